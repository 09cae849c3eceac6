// The parent's frame wallet (src/signer/parent/frame-wallet.ts) passes the frame's session events
// on, an error in a payload made a WalletError again: `end-refused` (the app's backend refused to
// end a session still to end, e.g. its sign-in expired: the app tells the user to sign in again)
// as `refresh-failed`; an event name it does not know is dropped. Its `serverNow()` is the frame's
// estimate carried on the page's monotonic clock: the local clock corrected by an hour after the
// frame's last state does not move it (src/session/INVARIANTS.md I6; journey 29 in frame mode).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WalletError } from '../../src/errors.js';
import type { FrameChannel, SignerFrame } from '../../src/signer/parent/frame-channel.js';
import { createFrameWallet } from '../../src/signer/parent/frame-wallet.js';
import type { FrameMessage } from '../../src/signer/protocol.js';

function frameWith(): { signer: SignerFrame; send(message: FrameMessage): void } {
  let listener: ((message: FrameMessage) => void) | undefined;
  const channel: FrameChannel = {
    call: () => Promise.resolve(undefined),
    onMessage(l) {
      listener = l;
      return () => (listener = undefined);
    },
  };
  return {
    signer: { origin: 'https://signer.test', connect: () => Promise.resolve(channel), close: () => undefined },
    send: (message) => listener?.(message),
  };
}

describe('frame wallet events', () => {
  it('end-refused and refresh-failed reach the app with a WalletError; an unknown event does not', async () => {
    const frame = frameWith();
    const wallet = createFrameWallet({ signer: frame.signer });
    const seen: Array<[string, unknown]> = [];
    wallet.on('end-refused', (p) => void seen.push(['end-refused', p]));
    wallet.on('refresh-failed', (p) => void seen.push(['refresh-failed', p]));
    await wallet.restore();
    const error = { code: 'LOGIN_REQUIRED', message: 'sign in first', status: 401 };
    frame.send({ type: 'event', name: 'end-refused', payload: { accountId: 'InternalAccount:1', sessionId: 'Session:1', error } });
    frame.send({ type: 'event', name: 'refresh-failed', payload: { session: null, error } });
    frame.send({ type: 'event', name: 'no-such-event', payload: {} });
    expect(seen.map(([name]) => name)).toEqual(['end-refused', 'refresh-failed']);
    const [, refused] = seen[0] as [string, { accountId: string; sessionId: string; error: unknown }];
    expect(refused.accountId).toBe('InternalAccount:1');
    expect(refused.sessionId).toBe('Session:1');
    expect(refused.error).toBeInstanceOf(WalletError);
    expect(refused.error).toMatchObject({ code: 'LOGIN_REQUIRED', status: 401 });
  });
});

describe('frame wallet serverNow', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the local clock moved by ±1 h after the frame\'s last state: serverNow() stays the server\'s time', async () => {
    const frame = frameWith();
    const wallet = createFrameWallet({ signer: frame.signer });
    await wallet.restore();
    const HOUR = 3_600_000;
    // The frame's state: the server is an hour ahead of the local clock (the clock an hour slow).
    frame.send({ type: 'state', snapshot: { status: 'signed-out', reason: 'none', accountId: null, session: null, expiresAt: null, origin: null }, sessions: [], serverOffsetMs: HOUR });
    const before = wallet.serverNow();
    expect(Math.abs(before - (Date.now() + HOUR))).toBeLessThan(1_000);
    const real = Date.now.bind(Date);
    for (const shift of [HOUR, -HOUR]) {
      vi.spyOn(Date, 'now').mockImplementation(() => real() + shift);
      // The monotonic clock went on only by the time the test took.
      expect(Math.abs(wallet.serverNow() - before)).toBeLessThan(1_000);
      vi.restoreAllMocks();
    }
  });
});
