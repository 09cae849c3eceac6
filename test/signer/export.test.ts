// Export in the frame (src/signer/frame/export.ts, THREAT-MODEL.md P1, P2) against the sandbox, with
// the frame's real signing policy and the library's own crypto; only the two screens are drawn by
// the test (the approval answers with a click of a chosen trust, the phrase screen records what it
// was given). Every case of the user (a trusted approve, an untrusted click then a decline, a
// decline) × every end of the phrase screen (the user's Done, the host's delay, the parent's
// cancel): the phrase is shown only after a trusted approve, the call's value is exactly
// { shown: true } and holds nothing of it, the export is signed only after that click.
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { describe, expect, it } from 'vitest';
import { createSigningPolicy, type ApprovalDescription, type RenderApproval } from '../../src/signer/frame/approval.js';
import { exportInFrame, type ExportContext } from '../../src/signer/frame/export.js';
import type { RenderPhrase } from '../../src/signer/frame/export-view.js';
import { EXPORT_CLEAR_AFTER_MS, parseSignerConfig } from '../../src/signer/frame/config.js';
import { toWire } from '../../src/signer/frame/serve.js';
import { emailLogin, useTestSandbox, testWallet, type TestCustomer, type TestWallet } from '../actions/helpers.js';

const env = useTestSandbox();

type Click = 'trusted-approve' | 'untrusted-then-decline' | 'decline';
type End = 'done' | 'timeout' | 'cancel';

/** The approval screen as the user answers it; records each description it was asked to show. */
function user(click: Click, shown: ApprovalDescription[]): RenderApproval {
  return (description, onApprove, onDecline) => {
    shown.push(description);
    const event = (isTrusted: boolean) => ({ isTrusted, type: 'click' }) as Event;
    queueMicrotask(() => {
      if (click === 'trusted-approve') return onApprove(event(true));
      if (click === 'untrusted-then-decline') onApprove(event(false));
      onDecline(event(true));
    });
    return () => undefined;
  };
}

interface Phrase {
  words?: readonly string[];
  closed: boolean;
  close?: () => void;
  opened: Promise<void>;
}

/** The phrase screen: records the words and whether it was closed; `phrase.close()` is the user's Done. */
function phraseScreen(): { render: RenderPhrase; phrase: Phrase } {
  let opened!: () => void;
  const phrase: Phrase = { closed: false, opened: new Promise((resolve) => (opened = resolve)) };
  const render: RenderPhrase = (words, _ms, onClose) => {
    phrase.words = [...words];
    phrase.close = onClose;
    opened();
    return {
      close() {
        phrase.closed = true;
      },
    };
  };
  return { render, phrase };
}

/** A frame: a wallet logged in on the sandbox whose onBeforeSign is the frame's policy with `click`. */
async function frame(click: Click, options: Parameters<typeof testWallet>[1] = {}): Promise<{ ctx: ExportContext; t: TestWallet; described: ApprovalDescription[]; customer: TestCustomer }> {
  // A customer of its own (the sandbox limits the challenges per credential).
  const customer = await env.admin.customer();
  const described: ApprovalDescription[] = [];
  const policy = createSigningPolicy(async () => ({ render: user(click, described) }), () => undefined);
  const t = testWallet(env.sandbox, { ...options, onBeforeSign: (request) => policy.onBeforeSign(request) });
  await emailLogin(t.wallet, customer.accountId);
  return { ctx: { wallet: t.wallet, policy, screensChanged: () => undefined }, t, described, customer };
}

const exports = (t: TestWallet) => t.wire.filter((w) => w.url.endsWith('/export'));

describe('exportInFrame', () => {
  const cases: [Click, End][] = (['trusted-approve', 'untrusted-then-decline', 'decline'] as const).flatMap((c) => (['done', 'timeout', 'cancel'] as const).map((e) => [c, e] as [Click, End]));

  it.each(cases)('%s, then %s: the phrase only after a trusted approve; the value is { shown: true } only', async (click, end) => {
    const { ctx, t, described, customer } = await frame(click);
    const { render, phrase } = phraseScreen();
    const cancel = new AbortController();
    const call = exportInFrame(ctx, [customer.accountId], cancel.signal, { render, clearAfterMs: end === 'timeout' ? 20 : 600_000 });
    const outcome = call.then(
      (value) => ({ value }),
      (error: { code?: string }) => ({ code: error.code }),
    );
    if (click === 'trusted-approve') {
      await phrase.opened;
      if (end === 'done') phrase.close?.();
      if (end === 'cancel') cancel.abort();
    }
    const result = await outcome;

    // The approval said what the frame sent: the words of the export, naming the key it made.
    expect(described).toHaveLength(1);
    const [description] = described as [ApprovalDescription];
    expect(description.title).toBe('Reveal your recovery phrase');
    const sent = exports(t);
    const key = (JSON.parse(sent[0]!.body!) as { clientPublicKey: string }).clientPublicKey;
    expect(description.lines).toContainEqual(['Encrypted to', `${key.slice(0, 10)}…${key.slice(-6)}`]);
    expect(description.lines).toContainEqual(['Wallet', customer.accountId]);
    expect(description.lines.map(([, v]) => v).join(' ')).toMatch(/anyone who sees it can take the funds/);
    expect(description.lines.map(([, v]) => v).join(' ')).toMatch(/cannot be undone/);

    if (click !== 'trusted-approve') {
      expect(result).toEqual({ code: 'SIGNER_DECLINED' });
      expect(phrase.words).toBeUndefined();
      expect(sent.filter((w) => w.headers.has('Service-Wallet-Signature'))).toEqual([]);
      return;
    }
    // Both legs sent by the frame, the second signed; the phrase shown, then cleared.
    expect(sent.map((w) => [w.status, w.headers.has('Service-Wallet-Signature')])).toEqual([
      [202, false],
      [200, true],
    ]);
    expect(validateMnemonic((phrase.words ?? []).join(' '), wordlist)).toBe(true);
    expect(phrase.closed).toBe(true);
    if (end === 'cancel') expect(result).toEqual({ code: 'ABORTED' });
    else {
      expect(result).toEqual({ value: { shown: true } });
      expect(Object.keys((result as { value: object }).value)).toEqual(['shown']);
    }
  });

  it('an export envelope whose enclave signature does not verify: BUNDLE_SIGNATURE_INVALID, nothing shown, the error goes up as code and message', async () => {
    const flip = (text: string, url: string) => {
      if (!url.endsWith('/export')) return text;
      const answer = JSON.parse(text) as { encryptedWalletCredentials?: string };
      if (answer.encryptedWalletCredentials === undefined) return text;
      const envelope = JSON.parse(answer.encryptedWalletCredentials) as { dataSignature: string };
      envelope.dataSignature = envelope.dataSignature.slice(0, -2) + (envelope.dataSignature.endsWith('00') ? '01' : '00');
      return JSON.stringify({ ...answer, encryptedWalletCredentials: JSON.stringify(envelope) });
    };
    const { ctx } = await frame('trusted-approve', { alterResponse: flip });
    const { render, phrase } = phraseScreen();
    const error = await exportInFrame(ctx, [], new AbortController().signal, { render, clearAfterMs: 60_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(toWire(error)).toEqual({ code: 'BUNDLE_SIGNATURE_INVALID', message: expect.any(String) });
    expect(phrase.words).toBeUndefined();
  });

  it('refuses more than an account id, and a frame with no session, before any request', async () => {
    const { ctx, t, customer } = await frame('trusted-approve');
    const { render } = phraseScreen();
    const screen = { render, clearAfterMs: 60_000 };
    const before = t.wire.length;
    await expect(exportInFrame(ctx, [customer.accountId, { payloadToSign: '{}' }], new AbortController().signal, screen)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await t.wallet.logout();
    const after = t.wire.length;
    await expect(exportInFrame(ctx, [], new AbortController().signal, screen)).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(t.wire.length).toBe(after);
    expect(exports(t).length).toBe(0);
    expect(after).toBeGreaterThanOrEqual(before);
  });
});

describe("the host's exportClearAfterMs", () => {
  const good = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api', trustedKeys: ['04ab'], name: 'Acme' };
  it('is a whole number of ms from 5 s to 10 min, or left out (the frame then clears after 60 s)', () => {
    expect(parseSignerConfig({ ...good, exportClearAfterMs: 30_000 }).exportClearAfterMs).toBe(30_000);
    expect(parseSignerConfig(good).exportClearAfterMs).toBeUndefined();
    expect(EXPORT_CLEAR_AFTER_MS).toBe(60_000);
    for (const bad of [4_999, 600_001, 1.5e4 + 0.5, '60000', null, Number.NaN]) {
      expect(() => parseSignerConfig({ ...good, exportClearAfterMs: bad })).toThrow(/exportClearAfterMs/);
    }
  });
});
