'use client';
/**
 * embedded-wallet-signer/react/testing: a wallet for an app's component tests, without a network
 * or a key store. The test drives the session (signed in, expiring, refreshing, signed out for any
 * reason, from this tab or another) and the signatures the app is asked to confirm; the snapshot
 * comes from the same session store as a real wallet's.
 *
 * @example
 * const t = createTestWallet();
 * render(<WalletProvider wallet={t.wallet} signatures={t.signatures}><App /></WalletProvider>);
 * t.signIn({ accountId: 'InternalAccount:1' });
 * const answer = t.requestSignature({ purpose: 'execute-quote', payload: { amount: 5 } });
 * // …the app shows its confirmation; the test clicks "Approve"…
 * expect(await answer).toBe(true);
 */
import { WalletError } from '../errors.js';
import { WALLET_CONTEXT } from '../session/context.js';
import { createEmitter } from '../session/emitter.js';
import { createSessionStore, type SessionOrigin, type SignedOutReason } from '../session/store.js';
import type { LogoutReason, Session, SessionEvents } from '../session/types.js';
import type { OnBeforeSign } from '../transport/index.js';
import type { Wallet } from '../wallet.js';
import { createSignatureRequests, type SignatureRequests, type SignatureRequestsOptions } from './signatures.js';

/** Options of {@link createTestWallet}. */
export interface TestWalletOptions {
  /** Start signed in to this account (after `restore()`), else signed out. */
  signedInAs?: string;
  /** The code the fake OTP login accepts; default '000000'. */
  otpCode?: string;
  /** Session lifetime in ms; default 15 minutes. */
  lifetimeMs?: number;
  /** Methods to replace (e.g. `updateAccount` resolving a fixture); the others that need a service reject. */
  overrides?: Partial<Wallet>;
  /** How long each fake service call (login steps, refresh) takes, in ms; default 0. */
  latencyMs?: number;
  /** Options of the signature queue (its automatic policy). */
  signatures?: SignatureRequestsOptions;
}

/** What {@link createTestWallet} returns: the wallet, its signature queue, and the test's controls. */
export interface TestWallet {
  /** A Wallet to give `<WalletProvider>`. */
  readonly wallet: Wallet;
  /** Its signature queue, for `<WalletProvider signatures>`. */
  readonly signatures: SignatureRequests;
  /** How many times `restore()` was called. */
  readonly restores: number;
  /** How many session listeners are subscribed now (0 after every component unmounted). */
  readonly subscribers: number;
  /** Signs in (a new session): `this-tab` by default, `other-tab` as if another tab logged in. */
  signIn(args?: { accountId?: string; origin?: Exclude<SessionOrigin, 'storage'> }): Session;
  /** The session entered its refresh window. */
  expiring(): void;
  /** A refresh started (true) or ended (false) in this tab; ending it with `refreshed` replaces the session. */
  refreshing(on: boolean, refreshed?: boolean): void;
  /** Signs out with `reason` (default `logout`). */
  signOut(reason?: Exclude<SignedOutReason, 'none'>): void;
  /** Asks for a signature as one of the app's calls would: resolves to the answer (true: approved). */
  requestSignature(args: { purpose: string; payload: unknown; automatic?: boolean; signal?: AbortSignal }): Promise<boolean>;
}

const REASON: Record<Exclude<SignedOutReason, 'none'>, LogoutReason> = { logout: 'user', 'other-tab': 'other-tab', expired: 'expired', revoked: 'revoked' };

/** A wallet double for component tests (see the module's example). */
export function createTestWallet(options: TestWalletOptions = {}): TestWallet {
  const events = createEmitter<SessionEvents>();
  const store = createSessionStore({ on: events.on, current: (accountId) => (accountId === undefined || current?.accountId === accountId ? current : null) });
  const signatures = createSignatureRequests(options.signatures);
  const lifetime = options.lifetimeMs ?? 15 * 60_000;
  const code = options.otpCode ?? '000000';
  let current: Session | null = null;
  let serial = 0;
  let restores = 0;
  let subscribers = 0;

  function newSession(accountId: string): Session {
    serial++;
    const now = Date.now();
    return { id: `Session:test-${serial}`, accountId, credentialId: 'AuthMethod:test', credentialType: 'EMAIL_OTP', publicKeyHex: `02${serial.toString(16).padStart(64, '0')}`, createdAt: new Date(now).toISOString(), expiresAt: new Date(now + lifetime).toISOString() };
  }
  function signIn(args: { accountId?: string; origin?: 'this-tab' | 'other-tab' } = {}): Session {
    current = newSession(args.accountId ?? current?.accountId ?? 'InternalAccount:test');
    events.emit('session', current);
    events.emit('changed', { accountId: current.accountId, origin: args.origin ?? 'this-tab' });
    return current;
  }
  function signOut(reason: Exclude<SignedOutReason, 'none'> = 'logout'): void {
    if (!current) return;
    const { accountId } = current;
    current = null;
    events.emit('logged-out', { accountId, reason: REASON[reason] });
    events.emit('changed', { accountId, origin: reason === 'other-tab' ? 'other-tab' : 'this-tab' });
  }
  const signed = (purpose: string, payload: unknown): Promise<void> =>
    requestSignature({ purpose, payload }).then((ok) => {
      if (!ok) throw new WalletError('SIGNING_REFUSED');
    });
  async function requestSignature(args: { purpose: string; payload: unknown; automatic?: boolean; signal?: AbortSignal }): Promise<boolean> {
    const hook: OnBeforeSign = signatures.onBeforeSign;
    const answer = await hook({
      payloadToSign: typeof args.payload === 'string' ? args.payload : JSON.stringify(args.payload),
      method: 'POST',
      path: '/test',
      purpose: args.purpose,
      leg: 2,
      automatic: args.automatic === true,
      signal: args.signal ?? new AbortController().signal,
    });
    return answer !== false;
  }
  const latency = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, options.latencyMs ?? 0));
  const needsSession = (): Session => {
    if (!current) throw new WalletError('NOT_LOGGED_IN');
    return current;
  };

  const base: Partial<Wallet> = {
    on: (event, listener) => events.on(event, listener),
    subscribe(listener) {
      subscribers++;
      const off = store.subscribe(listener);
      let done = false;
      return () => {
        if (!done) subscribers--;
        done = true;
        off();
      };
    },
    getSnapshot: () => store.getSnapshot(),
    async restore() {
      restores++;
      if (restores === 1 && options.signedInAs !== undefined) signIn({ accountId: options.signedInAs });
      store.loaded();
      return current ? [current] : [];
    },
    session: () => current,
    sessions: () => (current ? [current] : []),
    serverNow: () => Date.now(),
    async startOtpLogin(args) {
      await latency();
      // Email-first ({ email } / { phone }): the double's one account, as the backend would find it.
      const accountId = 'accountId' in args ? args.accountId : undefined;
      const type = 'accountId' in args ? (args.type ?? 'EMAIL_OTP') : 'phone' in args ? 'SMS_OTP' : 'EMAIL_OTP';
      let used = false;
      return {
        credentialId: 'AuthMethod:test',
        type,
        async verify(typed) {
          await latency();
          if (used) throw new WalletError('OTP_EXPIRED');
          if (typed.trim() !== code) throw new WalletError('OTP_CODE_INVALID', 'wrong code', { status: 401 });
          used = true;
          // As the real login: the verify is signed with the new key, through onBeforeSign.
          await signed('otp-verify', { type, credentialId: 'AuthMethod:test' });
          return signIn(accountId === undefined ? {} : { accountId });
        },
        async resend() {
          await latency();
          used = false;
        },
      };
    },
    async preparePasskeyLogin({ accountId }) {
      await latency();
      return { credentialId: 'AuthMethod:test', expiresAt: new Date(Date.now() + 300_000).toISOString(), login: async () => (await latency(), signIn({ accountId })) };
    },
    async prepareOAuth({ accountId }) {
      await latency();
      return { nonce: 'test-nonce', clientPublicKey: '02'.padEnd(66, '0'), complete: async () => (await latency(), signIn({ accountId })) };
    },
    async completeOAuth() {
      return signIn();
    },
    async refresh() {
      const previous = needsSession();
      events.emit('refreshing', { accountId: previous.accountId, refreshing: true });
      try {
        await signed('refresh-session', {});
      } catch (error) {
        // As the real wallet: the refresh fails, the session stays usable until it expires.
        events.emit('refresh-failed', { session: previous, error: error as WalletError });
        events.emit('refreshing', { accountId: previous.accountId, refreshing: false });
        throw error;
      }
      current = newSession(previous.accountId);
      events.emit('refreshed', { previous, session: current });
      events.emit('changed', { accountId: current.accountId, origin: 'this-tab' });
      events.emit('refreshing', { accountId: current.accountId, refreshing: false });
      return current;
    },
    async logout() {
      signOut('logout');
    },
    async updateAccount(accountId, patch) {
      needsSession();
      await signed('update-internal-account', patch);
      return { id: accountId, ...patch } as never;
    },
    dispose: () => events.clear(),
    ...options.overrides,
  };
  const wallet = new Proxy(base, {
    get(target, key) {
      if (key in target) return target[key as keyof Wallet];
      if (key === WALLET_CONTEXT || typeof key === 'symbol' || key === 'then') return undefined;
      return () => Promise.reject(new WalletError('INVALID_ARGUMENT', `the test wallet has no ${String(key)}(): pass it in overrides`));
    },
  }) as Wallet;

  return {
    wallet,
    signatures,
    get restores() {
      return restores;
    },
    get subscribers() {
      return subscribers;
    },
    signIn,
    expiring() {
      if (current) events.emit('expiring', current);
    },
    refreshing(on, refreshed = false) {
      if (!current) return;
      if (!on && refreshed) {
        const previous = current;
        current = newSession(previous.accountId);
        events.emit('refreshed', { previous, session: current });
        events.emit('changed', { accountId: current.accountId, origin: 'this-tab' });
      }
      events.emit('refreshing', { accountId: current.accountId, refreshing: on });
    },
    signOut,
    requestSignature,
  };
}

export { createSignatureRequests } from './signatures.js';
