// Where a signature is approved and until when (src/signer/frame/approval-route.ts, approval.ts;
// THREAT-MODEL.md P1): the route rule against an oracle over generated configurations; the host's
// `highValue` as signer-config.json gives it; and the prompt's deadline (60 s, or the service's
// `expiresAt` if sooner) on fake timers: an answer at or after it approves nothing and the call
// fails SIGNER_APPROVAL_EXPIRED; a window blocked or closed approves nothing either.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APPROVAL_MAX_MS, approvalDeadline, approvalPlace, HIGH_VALUE_KINDS, type HighValue } from '../../src/signer/frame/approval-route.js';
import { approveAction, createSigningPolicy, type PopupAnswers, type PopupApproval, type RenderApproval } from '../../src/signer/frame/approval.js';
import { holding } from './held-prompt.js';
import { parseSignerConfig } from '../../src/signer/frame/config.js';
import { WalletError } from '../../src/errors.js';
import type { SignRequest } from '../../src/transport/index.js';

const PURPOSE_KIND: Record<string, string> = {
  'add-credential': 'add-credential',
  'delete-credential': 'remove-credential',
  'delete-session': 'end-sessions',
  'update-internal-account': 'update-account',
  'export-wallet': 'export',
  'create-delegated-key': 'create-delegated-key',
  'revoke-delegated-key': 'revoke-delegated-key',
  'execute-quote': 'execute-quote',
  'change-contact': 'change-contact',
};
const PURPOSES = [...Object.keys(PURPOSE_KIND), 'something-new'];
const CURRENCIES = ['USD', 'EUR', 'BTC'];

const highValue = fc.record(
  { kinds: fc.subarray([...HIGH_VALUE_KINDS]), quoteAbove: fc.record({ amount: fc.nat(100_000), currency: fc.constantFrom(...CURRENCIES) }) },
  { requiredKeys: ['kinds'] },
);
const sending = fc.record({ amount: fc.nat(200_000), currency: fc.constantFrom(...CURRENCIES) });

describe('approvalPlace', () => {
  it('in the frame only where the browser reports occlusion, for a known kind the host did not mark, and a quote the frame can compare below its limit', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PURPOSES), fc.boolean(), fc.option(highValue, { nil: undefined }), fc.option(sending, { nil: undefined }), (purpose, tracks, high, sends) => {
        const kind = PURPOSE_KIND[purpose];
        // The oracle, case by case: each reason to go to the window.
        const reasons: string[] = [];
        if (kind === undefined) reasons.push('unknown purpose');
        if (!tracks) reasons.push('occlusion not reported');
        if (kind !== undefined && high?.kinds.includes(kind as never)) reasons.push('marked high-value');
        if (kind === 'execute-quote' && high?.quoteAbove !== undefined) {
          const limit = high.quoteAbove;
          if (sends === undefined) reasons.push('amount unknown');
          else if (sends.currency !== limit.currency) reasons.push('another currency');
          else if (sends.amount > limit.amount) reasons.push('above the limit');
        }
        const input = { purpose, tracksVisibility: tracks, highValue: high as HighValue | undefined, sending: sends };
        expect(approvalPlace(input), reasons.join(', ')).toBe(reasons.length > 0 ? 'popup' : 'frame');
      }),
      { numRuns: 2_000 },
    );
  });

  it('examples: export marked, a quote of 100.01 USD over 100.00, the same at 100.00, EUR against a USD limit, Firefox without any config', () => {
    const high: HighValue = { kinds: ['export'], quoteAbove: { amount: 10_000, currency: 'USD' } };
    expect(approvalPlace({ purpose: 'export-wallet', tracksVisibility: true, highValue: high })).toBe('popup');
    expect(approvalPlace({ purpose: 'update-internal-account', tracksVisibility: true, highValue: high })).toBe('frame');
    expect(approvalPlace({ purpose: 'execute-quote', tracksVisibility: true, highValue: high, sending: { amount: 10_001, currency: 'USD' } })).toBe('popup');
    expect(approvalPlace({ purpose: 'execute-quote', tracksVisibility: true, highValue: high, sending: { amount: 10_000, currency: 'USD' } })).toBe('frame');
    expect(approvalPlace({ purpose: 'execute-quote', tracksVisibility: true, highValue: high, sending: { amount: 1, currency: 'EUR' } })).toBe('popup');
    expect(approvalPlace({ purpose: 'update-internal-account', tracksVisibility: false })).toBe('popup');
  });
});

describe('signer-config.json highValue', () => {
  const base = { allowedParentOrigins: ['http://localhost:1'], baseUrl: 'http://localhost:1/api', trustedKeys: 'skip-verification' };
  it('accepts kinds and a quote limit; refuses an unknown kind, an unknown field, a bad amount', () => {
    expect(parseSignerConfig({ ...base, highValue: { kinds: ['export', 'execute-quote'], quoteAbove: { amount: 5000, currency: 'USD' } } }).highValue).toEqual({
      kinds: ['export', 'execute-quote'],
      quoteAbove: { amount: 5000, currency: 'USD' },
    });
    expect(parseSignerConfig(base).highValue).toBeUndefined();
    expect(() => parseSignerConfig({ ...base, highValue: { kinds: ['transfer'] } })).toThrow(/highValue.kinds/);
    expect(() => parseSignerConfig({ ...base, highValue: { kinds: [], everything: true } })).toThrow(/highValue.everything/);
    expect(() => parseSignerConfig({ ...base, highValue: { kinds: [], quoteAbove: { amount: 1.5, currency: 'USD' } } })).toThrow(/quoteAbove/);
    expect(() => parseSignerConfig({ ...base, highValue: { kinds: [], quoteAbove: { amount: -1, currency: 'USD' } } })).toThrow(/quoteAbove/);
  });
});

describe('the host\'s approval lifetime and unknown actions (signer-config.json)', () => {
  const base = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api', trustedKeys: 'skip-verification' };
  it('approvalLifetimeMs: a whole number from 5 000 to 60 000 ms (it only shortens); allowUnknown: a boolean, absent by default', () => {
    expect(parseSignerConfig(base).approvalLifetimeMs).toBeUndefined();
    expect(parseSignerConfig(base).allowUnknown).toBeUndefined();
    expect(parseSignerConfig({ ...base, approvalLifetimeMs: 5_000 }).approvalLifetimeMs).toBe(5_000);
    expect(parseSignerConfig({ ...base, approvalLifetimeMs: APPROVAL_MAX_MS }).approvalLifetimeMs).toBe(APPROVAL_MAX_MS);
    for (const bad of [4_999, APPROVAL_MAX_MS + 1, 10_000.5, '10000', null]) expect(() => parseSignerConfig({ ...base, approvalLifetimeMs: bad })).toThrow(/approvalLifetimeMs/);
    expect(parseSignerConfig({ ...base, allowUnknown: true }).allowUnknown).toBe(true);
    expect(parseSignerConfig({ ...base, allowUnknown: false }).allowUnknown).toBe(false);
    for (const bad of ['true', 1, null]) expect(() => parseSignerConfig({ ...base, allowUnknown: bad })).toThrow(/allowUnknown/);
  });

  it('approvalDeadline: the host\'s lifetime, never more than 60 s, and expiresAt if sooner', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * APPROVAL_MAX_MS }), fc.option(fc.integer({ min: -5_000, max: 120_000 }), { nil: undefined }), (lifetime, expiresIn) => {
        const t = Date.parse('2026-11-28T09:00:00Z');
        const expiresAt = expiresIn === undefined ? undefined : new Date(t + expiresIn).toISOString();
        expect(approvalDeadline({ openedAt: t, serviceNow: t, expiresAt: [expiresAt], lifetimeMs: lifetime })).toBe(Math.min(t + Math.min(lifetime, APPROVAL_MAX_MS), expiresIn === undefined ? Infinity : t + expiresIn));
      }),
    );
  });

  it('approvalDeadline: the service\'s expiresAt is on its clock, brought to the local one by the server-clock estimate (a local clock an hour fast: journey 29b)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -7_200_000, max: 7_200_000 }), fc.integer({ min: -5_000, max: 120_000 }), (offset, expiresIn) => {
        const t = Date.parse('2026-11-28T09:00:00Z');
        const expiresAt = new Date(t + offset + expiresIn).toISOString();
        expect(approvalDeadline({ openedAt: t, serviceNow: t + offset, expiresAt: [expiresAt] })).toBe(Math.min(t + APPROVAL_MAX_MS, t + expiresIn));
      }),
    );
    // The local clock an hour fast (server − local = −1 h), a challenge of 5 min: the full 60 s, not expired at once.
    const local = Date.parse('2026-11-28T10:00:00Z');
    expect(approvalDeadline({ openedAt: local, serviceNow: local - 3_600_000, expiresAt: ['2026-11-28T09:05:00Z'] })).toBe(local + APPROVAL_MAX_MS);
  });
});

function request(purpose: string, expiresAt?: string): SignRequest {
  return { payloadToSign: '{}', method: 'PATCH', path: '/x', purpose, leg: 2, automatic: false, signal: new AbortController().signal, ...(expiresAt !== undefined ? { expiresAt } : {}) };
}


/** Runs one signature of `purpose` in a scope: the outcome as the parent would get it. */
function signOnce(policy: ReturnType<typeof createSigningPolicy>, purpose: string, expiresAt?: string): Promise<string> {
  return approveAction(policy, { title: 'T', lines: [] }, [purpose], new AbortController().signal, async () => {
    if (!(await policy.onBeforeSign(request(purpose, expiresAt)))) throw new WalletError('SIGNING_REFUSED', 'refused');
    return 'signed';
  }).catch((error: WalletError) => error.code);
}

describe('the prompt expires', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-28T09:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('approvalDeadline: 60 s, or expiresAt if sooner; an unreadable expiresAt does not count', () => {
    const t = Date.parse('2026-11-28T09:00:00Z');
    const at = (expiresAt: string | undefined) => approvalDeadline({ openedAt: t, serviceNow: t, expiresAt: [expiresAt] });
    expect(at(undefined)).toBe(t + APPROVAL_MAX_MS);
    expect(at('2026-11-28T09:00:10Z')).toBe(t + 10_000);
    expect(at('2026-11-28T09:05:00Z')).toBe(t + APPROVAL_MAX_MS);
    expect(at('soon')).toBe(t + APPROVAL_MAX_MS);
  });

  it('a click before the deadline signs; at or after it (timer run or not), SIGNER_APPROVAL_EXPIRED and nothing signed; the service\'s expiresAt is on its clock, the local one up to 2 h off', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(fc.integer({ min: -5_000, max: 120_000 }), { nil: undefined }), fc.integer({ min: 0, max: 120_000 }), fc.boolean(), fc.integer({ min: -7_200_000, max: 7_200_000 }), async (expiresIn, clickAt, timersRun, serverOffset) => {
        const start = Date.now();
        const user = holding();
        // The frame's server-clock estimate: the service is `serverOffset` ms ahead of the local clock.
        const policy = createSigningPolicy(async () => ({ render: user.render }), () => undefined, { serviceNow: () => Date.now() + serverOffset });
        const expiresAt = expiresIn === undefined ? undefined : new Date(start + serverOffset + expiresIn).toISOString();
        const outcome = signOnce(policy, 'update-internal-account', expiresAt);
        await vi.advanceTimersByTimeAsync(0);
        // The user clicks at clickAt: with the page's timers run up to then, or the clock jumped (a stalled page).
        if (timersRun) await vi.advanceTimersByTimeAsync(clickAt);
        else vi.setSystemTime(start + clickAt);
        user.click();
        await vi.runAllTimersAsync();
        const deadline = Math.min(start + APPROVAL_MAX_MS, expiresIn === undefined ? Infinity : start + expiresIn);
        expect(await outcome).toBe(start + clickAt < deadline ? 'signed' : 'SIGNER_APPROVAL_EXPIRED');
        expect(user.shown).toBe(start < deadline ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });

  it('the host\'s approvalLifetimeMs: a click before it signs, at or after it SIGNER_APPROVAL_EXPIRED', async () => {
    for (const [clickAt, expected] of [[9_999, 'signed'], [10_000, 'SIGNER_APPROVAL_EXPIRED']] as const) {
      const user = holding();
      const policy = createSigningPolicy(async () => ({ render: user.render }), () => undefined, { approvalLifetimeMs: 10_000 });
      const outcome = signOnce(policy, 'update-internal-account');
      await vi.advanceTimersByTimeAsync(0);
      vi.setSystemTime(Date.now() + clickAt);
      user.click();
      await vi.runAllTimersAsync();
      expect(await outcome).toBe(expected);
    }
  });

  it('a scope the frame cannot put in words is refused without a prompt, with its reason', async () => {
    const user = holding();
    const policy = createSigningPolicy(async () => ({ render: user.render }), () => undefined);
    const reason = new WalletError('SIGNING_REFUSED', 'not in words');
    const outcome = approveAction(policy, { title: 'T', lines: [] }, ['execute-quote'], new AbortController().signal, async () => {
      if (!(await policy.onBeforeSign(request('execute-quote')))) throw new WalletError('SIGNING_REFUSED', 'refused');
      return 'signed';
    }, { refused: reason });
    await expect(outcome).rejects.toBe(reason);
    expect(user.shown).toBe(0);
  });

  it('one prompt per signature: an approval is not remembered for the next one, which expires unanswered', async () => {
    const user = holding();
    const policy = createSigningPolicy(async () => ({ render: user.render }), () => undefined);
    const both = approveAction(policy, { title: 'T', lines: [] }, ['delete-session'], new AbortController().signal, async () => {
      const first = await policy.onBeforeSign(request('delete-session'));
      const second = policy.onBeforeSign(request('delete-session'));
      return [first, await second];
    });
    await vi.advanceTimersByTimeAsync(0);
    user.click();
    await vi.advanceTimersByTimeAsync(APPROVAL_MAX_MS);
    expect(await both).toEqual([true, false]);
    expect(user.shown).toBe(2);
  });
});

describe('the approval window', () => {
  /** A popup stub: records its prompts, answers as told. */
  function popup(answer: (answers: PopupAnswers) => void): { popup: PopupApproval; opened: number } {
    const state = { opened: 0 };
    return {
      popup: (_d, answers) => {
        state.opened++;
        queueMicrotask(() => answer(answers));
        return () => undefined;
      },
      get opened() {
        return state.opened;
      },
    };
  }
  const inFrame: RenderApproval = () => {
    throw new Error('shown in the frame');
  };

  it('where occlusion is not reported the prompt goes to the window: approved signs; declined, closed, blocked do not; no window: refused', async () => {
    const approving = popup((a) => a.approved());
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame, popup: approving.popup }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('signed');
    expect(approving.opened).toBe(1);
    const declining = popup((a) => a.declined());
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame, popup: declining.popup }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('SIGNER_DECLINED');
    const blocked = popup((a) => a.failed(new WalletError('SIGNER_POPUP_BLOCKED', 'blocked')));
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame, popup: blocked.popup }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('SIGNER_POPUP_BLOCKED');
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('SIGNING_REFUSED');
  });

  it('one answer per prompt: the first counts, a later one changes nothing', async () => {
    const thenDecline = popup((a) => {
      a.approved();
      a.declined();
      a.failed(new WalletError('SIGNER_POPUP_BLOCKED', 'late'));
    });
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame, popup: thenDecline.popup }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('signed');
    const thenApprove = popup((a) => {
      a.declined();
      a.approved();
    });
    expect(await signOnce(createSigningPolicy(async () => ({ render: inFrame, popup: thenApprove.popup }), () => undefined, { tracksVisibility: false }), 'update-internal-account')).toBe('SIGNER_DECLINED');
  });

  it('a high-value kind goes to the window even where occlusion is reported; others stay in the frame', async () => {
    const approving = popup((a) => a.approved());
    const user = holding();
    const policy = createSigningPolicy(async () => ({ render: user.render, popup: approving.popup }), () => undefined, { tracksVisibility: true, highValue: { kinds: ['export'] } });
    expect(await signOnce(policy, 'export-wallet')).toBe('signed');
    expect([approving.opened, user.shown]).toEqual([1, 0]);
    const update = signOnce(policy, 'update-internal-account');
    await Promise.resolve();
    await Promise.resolve();
    user.click();
    expect(await update).toBe('signed');
    expect([approving.opened, user.shown]).toEqual([1, 1]);
  });
});
