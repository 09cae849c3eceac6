// One prompt, one answer (src/signer/frame/approval.ts, THREAT-MODEL.md P1): whatever reaches a prompt
// after its first answer changes nothing, an untrusted event answers nothing, and the scope ends with
// its action. Written from StrykerJS's survivors in approval.ts (stryker.approval.config.mjs).
// fast-check draws what reaches an open prompt, in order: clicks on Approve and Decline (trusted or
// not), the library giving up on the request, the parent cancelling the action, the deadline passing.
// The oracle: the first event that counts decides, and nothing after it changes the answer, the
// user's decline, the prompt's failure, or what the page was told (shown once, hidden once).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approveAction, createSigningPolicy, type RenderApproval } from '../../src/signer/frame/approval.js';
import { WalletError } from '../../src/errors.js';
import type { SignRequest } from '../../src/transport/index.js';

const LIFETIME_MS = 5_000;
const PURPOSE = 'update-internal-account';

type Happening = 'approve' | 'approve-untrusted' | 'decline' | 'decline-untrusted' | 'request-aborted' | 'action-cancelled' | 'deadline';

interface Answer {
  readonly ok: boolean;
  readonly declined: boolean;
  readonly failure: string | undefined;
}

/** What the first event that counts makes of the prompt (undefined: none counts; the test then gives up on the request). */
function oracle(happenings: readonly Happening[]): Answer {
  for (const h of happenings) {
    if (h === 'approve') return { ok: true, declined: false, failure: undefined };
    if (h === 'decline') return { ok: false, declined: true, failure: undefined };
    if (h === 'request-aborted' || h === 'action-cancelled') return { ok: false, declined: false, failure: undefined };
    if (h === 'deadline') return { ok: false, declined: false, failure: 'SIGNER_APPROVAL_EXPIRED' };
  }
  return { ok: false, declined: false, failure: undefined };
}

function request(signal: AbortSignal): SignRequest {
  return { payloadToSign: '{}', method: 'PATCH', path: '/internal-accounts/InternalAccount:1', purpose: PURPOSE, leg: 2, automatic: false, signal };
}

/** A screen that keeps its buttons for the test to press, and counts its removals. */
function heldScreen() {
  const held: { approve?: (event: Event) => void; decline?: (event: Event) => void; removed: number; drawn: number } = { removed: 0, drawn: 0 };
  const render: RenderApproval = (_description, onApprove, onDecline) => {
    held.drawn++;
    held.approve = onApprove;
    held.decline = onDecline;
    return () => void held.removed++;
  };
  return { held, render };
}

const click = (trusted: boolean) => ({ isTrusted: trusted, type: 'click' }) as Event;

describe('one prompt, one answer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('the first event that counts decides; what comes after changes nothing; the page is told shown once and hidden once', async () => {
    const happening = fc.constantFrom<Happening>('approve', 'approve-untrusted', 'decline', 'decline-untrusted', 'request-aborted', 'action-cancelled', 'deadline');
    await fc.assert(
      fc.asyncProperty(fc.array(happening, { maxLength: 6 }), async (happenings) => {
        const { held, render } = heldScreen();
        const shown: boolean[] = [];
        const policy = createSigningPolicy(async () => ({ render }), (visible) => shown.push(visible), { approvalLifetimeMs: LIFETIME_MS });
        const action = new AbortController();
        const signing = new AbortController();
        let opened!: () => void;
        const open = new Promise<void>((resolve) => (opened = resolve));
        const outcome = policy.approve({ title: 'Turn on private mode', lines: [] }, [PURPOSE], action.signal, async (declined, failure) => {
          const asked = policy.onBeforeSign(request(signing.signal));
          opened();
          const ok = await asked;
          return { ok, declined: declined(), failure: failure()?.code };
        });
        await open;
        expect(held.drawn).toBe(1);
        // Every event in one go: the action reads its answer only after the last one.
        for (const h of happenings) {
          if (h === 'approve' || h === 'approve-untrusted') held.approve?.(click(h === 'approve'));
          else if (h === 'decline' || h === 'decline-untrusted') held.decline?.(click(h === 'decline'));
          else if (h === 'request-aborted') signing.abort();
          else if (h === 'action-cancelled') action.abort();
          else vi.advanceTimersByTime(LIFETIME_MS);
        }
        // None counted: the library gives up on the request.
        signing.abort();
        expect(await outcome).toEqual(oracle(happenings));
        expect(shown).toEqual([true, false]);
        expect(held.removed).toBe(1);
      }),
      { numRuns: 600 },
    );
  });

  it('once the action ended, the same purpose is no longer asked for: refused, nothing drawn', async () => {
    const { held, render } = heldScreen();
    const policy = createSigningPolicy(async () => ({ render }), () => undefined);
    const action = policy.approve({ title: 'Turn on private mode', lines: [] }, [PURPOSE], new AbortController().signal, async () => 'done');
    expect(await action).toBe('done');
    expect(await policy.onBeforeSign(request(new AbortController().signal))).toBe(false);
    expect(held.drawn).toBe(0);
  });

  it('an action the parent cancelled before it began: ABORTED, nothing run, nothing drawn', async () => {
    const { held, render } = heldScreen();
    const policy = createSigningPolicy(async () => ({ render }), () => undefined);
    const cancelled = new AbortController();
    cancelled.abort();
    let ran = 0;
    const outcome = approveAction(policy, { title: 'Turn on private mode', lines: [] }, [PURPOSE], cancelled.signal, async () => {
      ran++;
      return 'signed';
    });
    await expect(outcome).rejects.toMatchObject({ code: 'ABORTED' });
    expect(ran).toBe(0);
    expect(held.drawn).toBe(0);
  });

  it('after a decline, a failure of another kind stays what it is (only a refusal to sign becomes SIGNER_DECLINED)', async () => {
    const { held, render } = heldScreen();
    const policy = createSigningPolicy(async () => ({ render }), () => undefined);
    const signing = new AbortController();
    const outcome = approveAction(policy, { title: 'Turn on private mode', lines: [] }, [PURPOSE], new AbortController().signal, async () => {
      // The prompt is drawn as the signature is asked for.
      const asked = policy.onBeforeSign(request(signing.signal));
      expect(held.drawn).toBe(1);
      held.decline?.(click(true));
      expect(await asked).toBe(false);
      throw new WalletError('NETWORK_ERROR', 'the service could not be reached');
    });
    await expect(outcome).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
  });
});
