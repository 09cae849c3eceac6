// A prompt's deadline is the first of: the host's lifetime (at most 60 s), the signed retry's
// `expiresAt` (the 202 answer) and the `expiresAt` of the quote being executed, the service's times
// read on the frame's estimate of the service's clock (approval-route.ts `approvalDeadline`,
// approval.ts; THREAT-MODEL.md P1). Generated lifetimes, expiries and clock skews; the oracle is the
// minimum, each expiry counted as "this long after the service's now".
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APPROVAL_MAX_MS, approvalDeadline } from '../../src/signer/frame/approval-route.js';
import { approveAction, createSigningPolicy } from '../../src/signer/frame/approval.js';
import { holding } from './held-prompt.js';
import { WalletError } from '../../src/errors.js';

const START = Date.parse('2026-11-28T09:00:00Z');
/** The service's clock minus the frame's: up to an hour either way. */
const skew = fc.integer({ min: -3_600_000, max: 3_600_000 });
/** How long after the service's now something expires (already past, soon, after the lifetime), or not given. */
const expiresIn = fc.option(fc.integer({ min: -10_000, max: 2 * APPROVAL_MAX_MS }), { nil: undefined });
/** The host's `approvalLifetimeMs` (config.ts takes 5 s to 60 s; the rule caps anything at 60 s). */
const lifetime = fc.integer({ min: 1, max: 2 * APPROVAL_MAX_MS });

/** The oracle: how long after it opens the prompt can be approved. */
const oracle = (lifetimeMs: number, ...expiries: (number | undefined)[]) => Math.min(lifetimeMs, APPROVAL_MAX_MS, ...expiries.map((e) => e ?? Infinity));
/** A time `ms` after the service's now, as the service writes it. */
const serviceTime = (serviceNow: number, ms: number | undefined) => (ms === undefined ? undefined : new Date(serviceNow + ms).toISOString());

describe('approvalDeadline', () => {
  it('is the first of the lifetime and each expiry, each read on the service\'s clock whatever the skew', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), skew, lifetime, expiresIn, expiresIn, (openedAt, offset, lifetimeMs, challengeIn, quoteIn) => {
        const serviceNow = openedAt + offset;
        const deadline = approvalDeadline({ openedAt, serviceNow, lifetimeMs, expiresAt: [serviceTime(serviceNow, challengeIn), serviceTime(serviceNow, quoteIn)] });
        expect(deadline).toBe(openedAt + oracle(lifetimeMs, challengeIn, quoteIn));
      }),
    );
  });

  it('an expiry that is absent or unreadable does not count', () => {
    for (const bad of [undefined, '', 'soon', '2026-13-45T99:00:00Z']) {
      expect(approvalDeadline({ openedAt: START, serviceNow: START + 5_000, lifetimeMs: 20_000, expiresAt: [bad, bad] })).toBe(START + 20_000);
    }
  });
});


describe('a quote\'s prompt expires with the quote, on the service\'s clock', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => vi.useRealTimers());

  it('a click before the first of lifetime, challenge and quote expiry signs; after it, SIGNER_APPROVAL_EXPIRED and nothing signed; none opened past it', async () => {
    await fc.assert(
      fc.asyncProperty(skew, lifetime, expiresIn, expiresIn, fc.integer({ min: 0, max: 2 * APPROVAL_MAX_MS }), fc.boolean(), async (offset, lifetimeMs, challengeIn, quoteIn, clickAt, timersRun) => {
        const start = Date.now();
        const serviceNow = () => Date.now() + offset;
        const user = holding();
        let signed = 0;
        const policy = createSigningPolicy(async () => ({ render: user.render }), () => undefined, { approvalLifetimeMs: lifetimeMs, serviceNow });
        const quoteExpiresAt = serviceTime(serviceNow(), quoteIn);
        const request = { payloadToSign: '{}', method: 'POST' as const, path: '/quotes/Quote:1/execute', purpose: 'execute-quote', leg: 2, automatic: false, signal: new AbortController().signal };
        const challenge = serviceTime(serviceNow(), challengeIn);
        const outcome = approveAction(
          policy,
          { title: 'Send a payment', lines: [] },
          ['execute-quote'],
          new AbortController().signal,
          async () => {
            if (!(await policy.onBeforeSign({ ...request, ...(challenge === undefined ? {} : { expiresAt: challenge }) }))) throw new WalletError('SIGNING_REFUSED', 'refused');
            signed++;
            return 'signed';
          },
          quoteExpiresAt === undefined ? {} : { expiresAt: quoteExpiresAt },
        ).catch((error: WalletError) => error.code);
        await vi.advanceTimersByTimeAsync(0);
        // The user clicks at clickAt: with the page's timers run up to then, or the clock jumped (a stalled page).
        if (timersRun) await vi.advanceTimersByTimeAsync(clickAt);
        else vi.setSystemTime(start + clickAt);
        user.click();
        await vi.runAllTimersAsync();
        const open = oracle(lifetimeMs, challengeIn, quoteIn);
        expect(await outcome).toBe(clickAt < open ? 'signed' : 'SIGNER_APPROVAL_EXPIRED');
        expect(signed).toBe(clickAt < open ? 1 : 0);
        expect(user.shown).toBe(open > 0 ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });
});
