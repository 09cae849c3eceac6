// Executing a quote in the frame (src/signer/frame/methods.ts, THREAT-MODEL.md P1) against the
// sandbox with the frame's real policy: the frame reads the quote itself, shows it in words (what
// is sent and received, to whom), and executes that very quote after a trusted click. Whatever the
// parent passes beside the id (a quote of its own with other amounts) plays no part in what is
// shown or signed.
import { describe, expect, it } from 'vitest';
import { createSigningPolicy, type ApprovalDescription, type PopupApproval, type RenderApproval } from '../../src/signer/frame/approval.js';
import { HANDLERS, type FrameContext } from '../../src/signer/frame/methods.js';
import { emailLogin, useTestSandbox, testWallet } from '../actions/helpers.js';

const env = useTestSandbox();

/** The approval screen: records what it shows, answers with a click of the given trust. */
function clicking(trusted: boolean, shown: ApprovalDescription[]): RenderApproval {
  return (description, onApprove, onDecline) => {
    shown.push(description);
    queueMicrotask(() => (trusted ? onApprove({ isTrusted: true, type: 'click' } as Event) : onDecline({ isTrusted: true, type: 'click' } as Event)));
    return () => undefined;
  };
}

async function frameOfPayer(trusted: boolean) {
  const payer = await env.admin.customer();
  await env.admin.fund(payer.accountId, 10_000);
  const payee = await env.admin.customer();
  const shown: ApprovalDescription[] = [];
  const policy = createSigningPolicy(async () => ({ render: clicking(trusted, shown) }), () => undefined);
  const t = testWallet(env.sandbox, { onBeforeSign: (request) => policy.onBeforeSign(request) });
  await emailLogin(t.wallet, payer.accountId);
  const ctx: FrameContext = { wallet: t.wallet, policy, logins: new Map(), screensChanged: () => undefined };
  const quote = await t.wallet.createQuote({ sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount: 1_234 });
  return { ctx, t, quote, shown, payee };
}

describe('executeQuote in the frame', () => {
  it('describes the quote it read itself and executes it after a trusted click; the parent\'s own quote object plays no part', async () => {
    const { ctx, t, quote, shown, payee } = await frameOfPayer(true);
    const forged = { ...quote, totalSendingAmount: 1, destination: { accountId: 'InternalAccount:attacker' } };
    const before = t.wire.length;
    const executed = (await HANDLERS.executeQuote(ctx, [forged], new AbortController().signal)) as { id: string; status: string };
    expect(executed.id).toBe(quote.id);
    expect(executed.status).not.toBe('PENDING');
    const sent = t.wire.slice(before);
    expect(sent[0]).toMatchObject({ method: 'GET' });
    expect(sent[0]!.url).toMatch(new RegExp(`/quotes/${encodeURIComponent(quote.id)}$`));
    expect(sent.filter((w) => w.url.endsWith('/execute'))).not.toHaveLength(0);

    expect(shown).toHaveLength(1);
    const [description] = shown as [ApprovalDescription];
    expect(description.title).toBe('Send a payment');
    const lines = Object.fromEntries(description.lines);
    // 1 234 in the sending currency's smallest units (the sandbox's USDC has 6 decimals), in the locale's digits.
    expect(lines['You send']?.replace(/\D/g, '')).toMatch(/^0*1234$/);
    expect(lines['You send']).toContain(String((quote.sendingCurrency as { code: string }).code));
    expect(lines.To).toBe(payee.accountId);
    expect(lines.Quote).toBe(quote.id);
    expect(JSON.stringify(description)).not.toContain('attacker');
  });

  it('declined in the frame: SIGNER_DECLINED, nothing executed', async () => {
    const { ctx, t, quote } = await frameOfPayer(false);
    await expect(HANDLERS.executeQuote(ctx, [quote.id], new AbortController().signal)).rejects.toMatchObject({ code: 'SIGNER_DECLINED' });
    expect(t.wire.filter((w) => w.url.endsWith('/execute') && w.headers.has('Service-Wallet-Signature'))).toEqual([]);
  });

  /**
   * A payer whose prompts go to the approval window (as in Firefox and WebKit), a window that
   * records its deadline and is never answered; the sandbox's clock is moved `ahead` seconds once the
   * quote exists (the service's clock then runs ahead of the frame's, and the quote is that much
   * nearer its end).
   */
  async function unansweredPayer(ahead: number) {
    const payer = await env.admin.customer();
    await env.admin.fund(payer.accountId, 10_000);
    const payee = await env.admin.customer();
    const windows: { deadline: number; localNow: number; serviceNow: number; closed: boolean }[] = [];
    const holder: { wallet?: { serverNow(): number } } = {};
    const popup: PopupApproval = (_d, _answers, _decline, deadline) => {
      const seen = { deadline, localNow: Date.now(), serviceNow: holder.wallet?.serverNow() ?? Number.NaN, closed: false };
      windows.push(seen);
      return () => void (seen.closed = true);
    };
    const never: RenderApproval = () => {
      throw new Error('shown in the frame');
    };
    const policy = createSigningPolicy(async () => ({ render: never, popup }), () => undefined, { tracksVisibility: false, serviceNow: () => holder.wallet?.serverNow() ?? Date.now() });
    const t = testWallet(env.sandbox, { onBeforeSign: (request) => policy.onBeforeSign(request) });
    holder.wallet = t.wallet;
    await emailLogin(t.wallet, payer.accountId);
    const ctx: FrameContext = { wallet: t.wallet, policy, logins: new Map(), screensChanged: () => undefined };
    const quote = await t.wallet.createQuote({ sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount: 1_234 });
    env.sandbox.advanceClock(ahead);
    const signedExecutes = () => t.wire.filter((w) => w.url.endsWith('/execute') && w.headers.has('Service-Wallet-Signature')).length;
    return { ctx, t, quote, windows, signedExecutes };
  }

  it('a quote that ends before the prompt\'s lifetime: the prompt ends with it, read on the service\'s clock (minutes ahead of the frame\'s); SIGNER_APPROVAL_EXPIRED, nothing signed', async () => {
    // The quote lives 5 minutes (the sandbox's QUOTE_TTL_MS): 8 s of it are left on the service's clock.
    const { ctx, t, quote, windows, signedExecutes } = await unansweredPayer(5 * 60 - 8);
    const outcome = await (HANDLERS.executeQuote(ctx, [quote.id], new AbortController().signal) as Promise<unknown>).catch((error: { code?: string }) => error.code);
    expect(outcome).toBe('SIGNER_APPROVAL_EXPIRED');
    expect(windows).toHaveLength(1);
    const [w] = windows as [(typeof windows)[number]];
    // The window's deadline is the quote's end laid on the frame's clock: what was left of it on the service's clock when it opened.
    const left = Date.parse(String(quote.expiresAt)) - w.serviceNow;
    // At most the 8 s left, plus the estimate's resolution: it reads the service's `Date` headers,
    // whole seconds, so it may lag the service's clock by up to 1 s (server-clock.ts).
    expect(left).toBeLessThan(9_000);
    expect(Math.abs(w.deadline - w.localNow - left)).toBeLessThan(100);
    expect(w.closed).toBe(true);
    expect(signedExecutes()).toBe(0);
    expect(t.wire.filter((w) => w.url.endsWith('/execute')).every((w) => w.status !== 200)).toBe(true);
  });

  it('a quote already ended on the service\'s clock when the frame reads it: QUOTE_EXPIRED, no prompt, no execute sent', async () => {
    const { ctx, t, quote, windows } = await unansweredPayer(5 * 60 + 5);
    await expect(HANDLERS.executeQuote(ctx, [quote.id], new AbortController().signal)).rejects.toMatchObject({ code: 'QUOTE_EXPIRED' });
    expect(windows).toHaveLength(0);
    expect(t.wire.filter((w) => w.url.endsWith('/execute'))).toEqual([]);
  });
});
