// The frame's signing policy (src/signer/frame/approval.ts, THREAT-MODEL.md P1, P3): which
// signatures are made without a click, which need one, and which are refused. fast-check draws the
// request (purpose, automatic), the scope (its purposes, present or not) and the click (trusted or
// not); the oracle: without a click exactly refresh-session and otp-verify; otherwise approved only
// inside a scope that declared the purpose, for a non-automatic request, after a trusted click.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approveAction, createSigningPolicy, type ApprovalScreens, type RenderApproval } from '../../src/signer/frame/approval.js';
import { loadOnFirstUse } from '../../src/load-on-first-use.js';
import type { SignRequest } from '../../src/transport/index.js';

const PURPOSES = ['refresh-session', 'otp-verify', 'update-internal-account', 'delete-session', 'execute-quote', 'export-wallet', 'add-credential'];

function request(purpose: string, automatic: boolean, signal = new AbortController().signal): SignRequest {
  return { payloadToSign: '{}', method: 'PATCH', path: '/x', purpose, leg: 2, automatic, signal };
}

/** A renderer that answers at once with a click event of the given trust (or declines). */
function answering(click: { trusted: boolean; approve: boolean; type?: string }, shown: string[]): RenderApproval {
  return (description, onApprove, onDecline) => {
    shown.push(description.title);
    const event = { isTrusted: click.trusted, type: click.type ?? 'click' } as Event;
    queueMicrotask(() => (click.approve ? onApprove(event) : onDecline(event)));
    return () => undefined;
  };
}

describe('createSigningPolicy', () => {
  it('signs without a click only refreshes and a login\'s own verify; anything else only in its scope after a trusted click', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PURPOSES),
        fc.boolean(),
        fc.option(fc.subarray(PURPOSES.slice(2)), { nil: undefined }),
        fc.boolean(),
        // What the guarded button passes on (approve-button.ts): a click, or the touch lifted after a hold; nothing else approves.
        fc.constantFrom('click', 'pointerup', 'pointerdown', 'mouseup', 'keydown', 'touchend'),
        async (purpose, automatic, scopePurposes, trusted, type) => {
          const shown: string[] = [];
          const policy = createSigningPolicy(async () => ({ render: answering({ trusted, approve: true, type }, shown) }), () => undefined);
          const approves = trusted && (type === 'click' || type === 'pointerup');
          const controller = new AbortController();
          const ask = () => {
            const signing = new AbortController();
            const answer = policy.onBeforeSign(request(purpose, automatic, signing.signal));
            // An untrusted click (or another event) is ignored: the prompt stays until the library gives up (its signal).
            if (!approves) queueMicrotask(() => queueMicrotask(() => queueMicrotask(() => signing.abort())));
            return answer;
          };
          const answer = scopePurposes === undefined ? await ask() : await policy.approve({ title: 'T', lines: [] }, scopePurposes, controller.signal, ask);
          const withoutClick = purpose === 'refresh-session' || purpose === 'otp-verify';
          const inScope = scopePurposes !== undefined && scopePurposes.includes(purpose) && !automatic;
          expect(answer).toBe(withoutClick || (inScope && approves));
          expect(shown.length).toBe(!withoutClick && inScope ? 1 : 0);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a decline is remembered as the user\'s; the scope\'s signal closes the prompt; scopes run one at a time', async () => {
    const shown: string[] = [];
    const policy = createSigningPolicy(async () => ({ render: answering({ trusted: true, approve: false }, shown) }), () => undefined);
    const declined = await policy.approve({ title: 'A', lines: [] }, ['update-internal-account'], new AbortController().signal, async (wasDeclined) => {
      const ok = await policy.onBeforeSign(request('update-internal-account', false));
      return { ok, declined: wasDeclined() };
    });
    expect(declined).toEqual({ ok: false, declined: true });

    const never: RenderApproval = () => () => undefined;
    const waiting = createSigningPolicy(async () => ({ render: never }), () => undefined);
    const stop = new AbortController();
    const order: string[] = [];
    const first = waiting.approve({ title: 'first', lines: [] }, ['delete-session'], stop.signal, async () => {
      order.push('first starts');
      const ok = await waiting.onBeforeSign(request('delete-session', false));
      order.push('first ends');
      return ok;
    });
    const second = waiting.approve({ title: 'second', lines: [] }, ['delete-session'], new AbortController().signal, async () => {
      order.push('second starts');
      return true;
    });
    await Promise.resolve();
    stop.abort();
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
  });

  it('screens that cannot be loaded (the signer page\'s prompt chunk) fail the action with NETWORK_ERROR before it runs: nothing sent, nothing shown, nothing signed; the next action loads them again', async () => {
    const shown: string[] = [];
    let loads = 0;
    // As main.ts loads them: loadOnFirstUse around the chunk's import(); here the first download fails.
    const screens = loadOnFirstUse<ApprovalScreens>(async () => {
      loads += 1;
      if (loads === 1) throw new TypeError('Failed to fetch dynamically imported module');
      return { render: answering({ trusted: true, approve: true }, shown) };
    }, 'approval prompt');
    const policy = createSigningPolicy(() => screens(async (m) => m), () => undefined);
    const ran: string[] = [];
    const run = (title: string) => async () => {
      ran.push(title);
      return policy.onBeforeSign(request('update-internal-account', false));
    };
    await expect(approveAction(policy, { title: 'first', lines: [] }, ['update-internal-account'], new AbortController().signal, run('first'))).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(ran).toEqual([]);
    expect(shown).toEqual([]);
    // No scope is left open by the failure: a signature asked now is refused.
    expect(await policy.onBeforeSign(request('update-internal-account', false))).toBe(false);
    expect(await approveAction(policy, { title: 'second', lines: [] }, ['update-internal-account'], new AbortController().signal, run('second'))).toBe(true);
    expect({ ran, shown, loads }).toEqual({ ran: ['second'], shown: ['second'], loads: 2 });
  });
});
