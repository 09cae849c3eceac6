// A signer frame for the React bindings' component tests in frame mode: the real FrameWallet
// (src/signer/parent/frame-wallet.ts) over a channel that answers as the frame does, driven by the
// test. The user's part in the frame (typing the code, Approve, Decline, Cancel) is the test's
// call; the frame's own behaviour is tested against the real frame in e2e/frame/.
import { WalletError } from '../../src/errors.js';
import { createFrameWallet, type FrameWallet } from '../../src/signer/parent/frame-wallet.js';
import type { FrameChannel, SignerFrame } from '../../src/signer/parent/frame-channel.js';
import type { FrameMessage, FrameMethod } from '../../src/signer/protocol.js';

interface Waiting {
  readonly method: FrameMethod;
  readonly args: readonly unknown[];
  resolve(value: unknown): void;
  reject(error: WalletError): void;
}

export interface FrameDouble {
  readonly wallet: FrameWallet;
  /** Every call the frame got, in order (method and arguments). */
  readonly calls: Array<{ method: FrameMethod; args: readonly unknown[] }>;
  /** The calls waiting on the user in the frame (a code entry, an approval). */
  waiting(method: FrameMethod): number;
  /** The user typed a right code in the frame's entry: the session for `accountId`. */
  typeCode(accountId: string): void;
  /** The user approved the waiting `method` in the frame; it answers `value`. */
  approve(method: FrameMethod, value: unknown): void;
  /** The user declined (or cancelled) the waiting `method` in the frame: SIGNER_DECLINED. */
  decline(method: FrameMethod): void;
}

const SIGNED_OUT = { status: 'signed-out', reason: 'none', accountId: null, session: null, expiresAt: null, origin: null };

export function createFrameDouble(): FrameDouble {
  const calls: Array<{ method: FrameMethod; args: readonly unknown[] }> = [];
  const waiting: Waiting[] = [];
  let listener: ((message: FrameMessage) => void) | undefined;
  const state = (snapshot: Record<string, unknown>, sessions: Record<string, unknown>[] = []) => listener?.({ type: 'state', snapshot, sessions, serverOffsetMs: 0 });
  const take = (method: FrameMethod): Waiting => {
    const at = waiting.findIndex((w) => w.method === method);
    if (at === -1) throw new Error(`nothing waits on ${method} in the frame`);
    return waiting.splice(at, 1)[0]!;
  };
  const channel: FrameChannel = {
    call(method, args) {
      calls.push({ method, args });
      switch (method) {
        case 'restore':
          state(SIGNED_OUT);
          return Promise.resolve(undefined);
        case 'startOtpLogin':
          return Promise.resolve({ handle: `h${calls.length}`, credentialId: 'AuthMethod:email', type: 'EMAIL_OTP' });
        case 'otp.resend':
          return Promise.resolve(undefined);
        case 'logout':
          state({ ...SIGNED_OUT, reason: 'logout' });
          return Promise.resolve(undefined);
        default:
          return new Promise((resolve, reject) => waiting.push({ method, args, resolve, reject }));
      }
    },
    onMessage(l) {
      listener = l;
      return () => (listener = undefined);
    },
  };
  const signer: SignerFrame = { origin: 'https://signer.test', connect: () => Promise.resolve(channel), close: () => undefined };
  return {
    wallet: createFrameWallet({ signer }),
    calls,
    waiting: (method) => waiting.filter((w) => w.method === method).length,
    typeCode(accountId) {
      const expiresAt = new Date(Date.now() + 15 * 60_000).toISOString();
      const session = { id: 'Session:1', accountId, credentialId: 'AuthMethod:email', credentialType: 'EMAIL_OTP', publicKeyHex: '02' + '11'.repeat(32), expiresAt, createdAt: new Date().toISOString() };
      state({ status: 'active', reason: null, accountId, session, expiresAt: Date.parse(expiresAt), origin: 'this-tab' }, [session]);
      take('otp.verify').resolve(session);
    },
    approve: (method, value) => take(method).resolve(value),
    decline: (method) => take(method).reject(new WalletError('SIGNER_DECLINED', 'the user declined in the signer frame')),
  };
}
