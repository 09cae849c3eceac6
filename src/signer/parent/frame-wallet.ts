/**
 * The wallet of an app in frame mode: the {@link Wallet} API over the signer frame's channel. The
 * app's page holds no key, code or bundle: every session lives in the frame, which sends the
 * state (public facts: ids, expiry) and the events here; each method is a call of the frame.
 *
 * Differences from the in-origin wallet (THREAT-MODEL.md):
 * - a one-time code is typed in the frame: `login.verify()` takes no code (it shows the frame's
 *   code entry and resolves once the user typed a right one);
 * - a user action resolves once the user approved it in the frame (SIGNER_DECLINED when declined);
 *   there is no `onBeforeSign`: the frame asks, and the app cannot answer for the user;
 * - a passkey ceremony runs in the frame, on the user's click there (or in a window of the signer
 *   origin where the browser refuses it in a frame): `login()` and `registerPasskey` may be called
 *   at any time, not only from a click of the app;
 * - an OAuth login's key is made in the frame (the nonce binds it); the ID token goes to the frame;
 * - `exportWallet` shows the recovery phrase in the frame only and resolves to `{ shown: true }`;
 * - no `[WALLET_CONTEXT]` (nothing of the frame's wallet is reachable from here).
 */
import { WalletError } from '../../errors.js';
import type { OtpType, StartOtpLoginArgs } from '../../flows/otp.js';
import type { SharedWallet } from '../../shared-wallet.js';
import { createEmitter } from '../../session/emitter.js';
import type { SessionSnapshot } from '../../session/store.js';
import type { Session, SessionEvents } from '../../session/types.js';
import type { ExportShown, FrameMethod } from '../protocol.js';
import { fromWire, type FrameChannel, type SignerFrame } from './frame-channel.js';

/** An OTP login under way in the frame: the code is typed there, never here. */
export interface FrameOtpLogin {
  /** The credential (`AuthMethod:…`) the code was sent for. */
  readonly credentialId: string;
  /** Whether the code went by email or SMS. */
  readonly type: OtpType;
  /** Where the user types the code: always the signer frame. */
  readonly codeEntry: 'frame';
  /**
   * Shows the frame's code entry and resolves to the session once the user typed a right code there
   * (a wrong one is told in the frame); while the entry is open, another call waits on the same one.
   * Errors: OTP_EXPIRED, SIGNER_DECLINED (the user cancelled). Takes no code (one given:
   * INVALID_ARGUMENT): one typed in the app's page would be readable by every script of it.
   */
  verify(): Promise<Session>;
  /** Sends a new code. */
  resend(): Promise<void>;
}

/** The config of a wallet in frame mode. */
export interface FrameWalletConfig {
  /** The signer frame (`signerFrame({ url })`) that holds the keys and asks the user. */
  signer: SignerFrame;
}

/** The wallet in frame mode: the {@link Wallet} API less what cannot leave the frame (see frame-wallet.ts). */
export interface FrameWallet extends SharedWallet {
  /** Always `'frame'`: tells this wallet from the in-origin one (`'mode' in wallet`). */
  readonly mode: 'frame';
  /**
   * Sends a code (EMAIL_OTP by default) by account, or with the proxy's email-first login mode by
   * `{ email }` / `{ phone }` alone (the frame checks the shape: INVALID_ARGUMENT); the user types
   * it in the frame (`login.verify()`).
   */
  startOtpLogin(args: StartOtpLoginArgs): Promise<FrameOtpLogin>;
  /** Adds an SMS_OTP credential (approved in the frame); `verify()` activates it. */
  addSmsOtp(args: { accountId: string }): Promise<FrameOtpLogin>;
  /** Re-adds the EMAIL_OTP credential (approved in the frame); `verify()` activates it. */
  addEmailOtp(args: { accountId: string }): Promise<FrameOtpLogin>;
  /**
   * Exports the wallet of `accountId` (default: the current session's) in the signer frame: the
   * user approves it there, and the recovery phrase is shown there only (hidden until the user
   * reveals it, cleared after the host's delay and when closed). Resolves to `{ shown: true }` once
   * the phrase's screen is gone; nothing of the phrase reaches this page. Errors: SIGNER_DECLINED,
   * NOT_LOGGED_IN, SESSION_EXPIRED, BUNDLE_SIGNER_UNTRUSTED, BUNDLE_SIGNATURE_INVALID,
   * DECRYPTION_FAILED, SIGNER_FRAME_TIMEOUT, SIGNER_FRAME_UNREACHABLE and the service's codes.
   */
  exportWallet(accountId?: string): Promise<ExportShown>;
}

const INITIAL: SessionSnapshot = Object.freeze({ status: 'initializing', reason: null, accountId: null, session: null, expiresAt: null, origin: null });

const EVENT_NAMES: ReadonlySet<string> = new Set(['session', 'expiring', 'expired', 'refreshed', 'refresh-failed', 'end-refused', 'logged-out', 'key-evicted', 'storage-fallback', 'refreshing', 'changed']);
/** The events whose payload carries an error (sent in its wire form). */
const WITH_ERROR: ReadonlySet<string> = new Set(['refresh-failed', 'end-refused']);

/** Makes the wallet of an app whose keys live in the signer frame. Nothing is opened until the first call. */
export function createFrameWallet(config: FrameWalletConfig): FrameWallet {
  const signer = config?.signer;
  if (typeof signer !== 'object' || signer === null || typeof signer.connect !== 'function') throw new WalletError('INVALID_ARGUMENT', 'config.signer must be signerFrame({ url })');
  const events = createEmitter<SessionEvents>();
  const listeners = new Set<() => void>();
  let snapshot: SessionSnapshot = INITIAL;
  let sessions: Session[] = [];
  // The server's time as the frame's last state gave it (its offset from the wall clock, which the
  // frame and this page share), carried on from there on this page's monotonic clock: a change of
  // the local clock after that state moves it no more than it moves the frame's estimate (I6).
  let server: { readonly ms: number; readonly at: number } | null = null;
  let channel: Promise<FrameChannel> | undefined;

  const connect = () => {
    channel ??= signer.connect().then(
      (open) => {
        open.onMessage((message) => {
          if (message.type === 'state') {
            sessions = message.sessions as unknown as Session[];
            server = { ms: Date.now() + message.serverOffsetMs, at: performance.now() };
            const next = Object.freeze(message.snapshot) as unknown as SessionSnapshot;
            if (JSON.stringify(next) !== JSON.stringify(snapshot)) {
              snapshot = next;
              for (const listener of [...listeners]) listener();
            }
          } else if (message.type === 'event' && EVENT_NAMES.has(message.name)) {
            const payload = WITH_ERROR.has(message.name) ? { ...(message.payload as object), error: fromWire((message.payload as { error: never }).error) } : message.payload;
            events.emit(message.name as keyof SessionEvents, payload as never);
          }
        });
        return open;
      },
      (error: unknown) => {
        channel = undefined;
        throw error;
      },
    );
    return channel;
  };
  const call = async <T>(method: FrameMethod, ...args: unknown[]): Promise<T> => {
    // Trailing undefined arguments are left out (a message carries plain data only).
    while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
    return (await (await connect()).call(method, args)) as T;
  };
  const otpLogin = (answer: { handle: string; credentialId: string; type: OtpType }): FrameOtpLogin => {
    // The frame's code entry while it is open: a second verify() waits on it (a resend opens no second entry).
    let entry: Promise<Session> | undefined;
    return {
      credentialId: answer.credentialId,
      type: answer.type,
      codeEntry: 'frame',
      verify(code?: unknown) {
        if (code !== undefined) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'in frame mode the user types the code in the signer frame: call verify() with no code'));
        return (entry ??= call<Session>('otp.verify', answer.handle).finally(() => (entry = undefined)));
      },
      resend: () => call<void>('otp.resend', answer.handle).then(() => undefined),
    };
  };

  return {
    mode: 'frame',
    on: (event, listener) => events.on(event, listener),
    session: (accountId) => {
      const id = accountId ?? (snapshot.status === 'initializing' ? undefined : snapshot.accountId) ?? undefined;
      return sessions.find((s) => s.accountId === id && snapshot.session?.id === s.id) ?? sessions.find((s) => s.accountId === id) ?? null;
    },
    sessions: () => [...sessions],
    serverNow: () => (server === null ? Date.now() : server.ms + (performance.now() - server.at)),
    subscribe: (listener) => {
      if (typeof listener !== 'function') throw new WalletError('INVALID_ARGUMENT', 'listener must be a function');
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot: () => snapshot,
    restore: () => call('restore'),
    refresh: (accountId) => call('refresh', accountId),
    logout: (accountId) => call<void>('logout', accountId).then(() => undefined),
    listSessions: (accountId) => call('listSessions', accountId),
    signOutOtherDevices: (accountId) => call('signOutOtherDevices', accountId),
    startOtpLogin: async (args) => otpLogin(await call('startOtpLogin', args)),
    addSmsOtp: async (args) => otpLogin(await call('addSmsOtp', args)),
    addEmailOtp: async (args) => otpLogin(await call('addEmailOtp', args)),
    listCredentials: (accountId) => call('listCredentials', accountId),
    deleteCredential: (credentialId, accountId) => call<void>('deleteCredential', credentialId, accountId).then(() => undefined),
    createDelegatedKey: (args) => call('createDelegatedKey', args),
    listDelegatedKeys: (filter) => call('listDelegatedKeys', filter),
    getDelegatedKey: (id) => call('getDelegatedKey', id),
    revokeDelegatedKey: (id, accountId) => call('revokeDelegatedKey', id, accountId),
    updateAccount: (accountId, patch) => call('updateAccount', accountId, patch),
    createQuote: (args) => call('createQuote', args),
    executeQuote: (quoteOrId, options) => call('executeQuote', typeof quoteOrId === 'object' && quoteOrId !== null ? quoteOrId.id : quoteOrId, options),
    changeContact: (customerId, change, options) => call('changeContact', customerId, change, options),
    preparePasskeyLogin: async (args) => {
      const prepared = await call<{ handle: string; credentialId: string; expiresAt: string }>('preparePasskeyLogin', args);
      return { credentialId: prepared.credentialId, expiresAt: prepared.expiresAt, login: () => call<Session>('passkey.login', prepared.handle) };
    },
    preparePasskeyRegistration: (args) => call<void>('preparePasskeyRegistration', args).then(() => undefined),
    registerPasskey: (args) => call('registerPasskey', args),
    prepareOAuth: async (args) => {
      const prepared = await call<{ nonce: string; clientPublicKey: string }>('prepareOAuth', args);
      return {
        nonce: prepared.nonce,
        clientPublicKey: prepared.clientPublicKey,
        complete: (oidcToken: string, credentialId?: string) => call<Session>('completeOAuth', credentialId === undefined ? { oidcToken } : { oidcToken, credentialId }),
      };
    },
    completeOAuth: (args) => call('completeOAuth', args),
    addOAuthCredential: (args) => call('addOAuthCredential', args),
    exportWallet: async (accountId) => {
      await call('exportWallet', accountId);
      return { shown: true };
    },
    dispose: () => {
      events.clear();
      listeners.clear();
      signer.close();
    },
  };
}
