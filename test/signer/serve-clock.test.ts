// The frame's server-clock estimate reaches the parent (src/signer/frame/serve.ts, `answerSeen`;
// journey 29b in frame mode, INVARIANTS.md I6): the frame's wallet, against the sandbox whose clock
// runs an hour ahead of the local one, reads its first answer; no session changes and no event
// fires, yet the parent gets a state whose `serverOffsetMs` is the hour. An answer that does not
// move the estimate sends nothing more. Before the fix the parent kept the unsampled offset (0).
import { afterEach, describe, expect, it } from 'vitest';
import { createSigningPolicy } from '../../src/signer/frame/approval.js';
import type { FrameContext } from '../../src/signer/frame/methods.js';
import { CLOCK_STEP_MS, serveParent, type Served } from '../../src/signer/frame/serve.js';
import { parseFrameMessage, type FrameMessage } from '../../src/signer/protocol.js';
import { testWallet, useTestSandbox } from '../actions/helpers.js';

const env = useTestSandbox();
const HOUR = 3_600_000;

let served: Served | undefined;
afterEach(() => {
  served?.stop();
  served = undefined;
});

/** The states the parent's end of the port receives, as the parent parses them. */
function parentEnd(port: MessagePort): { states: Extract<FrameMessage, { type: 'state' }>[]; next(): Promise<void> } {
  const states: Extract<FrameMessage, { type: 'state' }>[] = [];
  let waiting: (() => void) | undefined;
  port.onmessage = (event: MessageEvent) => {
    const message = parseFrameMessage(event.data);
    if (message?.type === 'state') states.push(message);
    waiting?.();
  };
  return { states, next: () => new Promise<void>((resolve) => (waiting = resolve)) };
}

describe('the frame posts its server-clock estimate', () => {
  it('the first answer of a server an hour ahead: a state carrying the hour reaches the parent, with no session change; a second answer sends nothing more', async () => {
    // This file's sandbox, an hour ahead from here on (its clock only moves forward).
    env.sandbox.advanceClock(3_600);
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    const policy = createSigningPolicy(async () => ({ render: () => () => undefined }), () => undefined);
    const ctx: FrameContext = { wallet: t.wallet, policy, logins: new Map(), screensChanged: () => undefined };
    const { port1, port2 } = new MessageChannel();
    const parent = parentEnd(port2);
    let message = parent.next();
    served = serveParent(port1, ctx);
    await message;
    await expect.poll(() => parent.states.length).toBe(1);
    // Unsampled: the local clock.
    expect(Math.abs(parent.states[0]!.serverOffsetMs)).toBeLessThan(CLOCK_STEP_MS);

    // One answer of the service (a code login started: no session, no event).
    await t.wallet.startOtpLogin({ accountId: customer.accountId });
    expect(t.wallet.sessions()).toEqual([]);
    message = parent.next();
    served.answerSeen();
    await message;
    expect(parent.states).toHaveLength(2);
    expect(Math.abs(parent.states[1]!.serverOffsetMs - HOUR)).toBeLessThan(5_000);
    expect(parent.states[1]!.sessions).toEqual([]);

    // Another answer on the same clock: the estimate did not move, nothing goes up.
    await t.wallet.startOtpLogin({ accountId: customer.accountId });
    served.answerSeen();
    // A state would have been posted synchronously by answerSeen; a round trip on the port shows none came.
    const probe = parent.next();
    port1.postMessage({ type: 'event', name: 'probe', payload: null });
    await probe;
    expect(parent.states).toHaveLength(2);
  });
});
