// The parent's frame wallet (src/signer/parent/frame-wallet.ts) passes the frame's session events
// on, an error in a payload made a WalletError again: `end-refused` (the app's backend refused to
// end a session still to end, e.g. its sign-in expired: the app tells the user to sign in again)
// as `refresh-failed`; an event name it does not know is dropped.
import { describe, expect, it } from 'vitest';
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
