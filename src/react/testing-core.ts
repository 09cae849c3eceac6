'use client';
/**
 * What both wallet doubles of embedded-wallet-signer/react/testing share (testing.ts: in-origin,
 * testing-frame.ts: frame mode): the session store and its events, the sessions the test makes and
 * ends, and the calls that look the same in both modes. How a signature is answered is the mode's:
 * `signed` (in-origin, the app's `onBeforeSign`; in frame mode, the user in the frame) and
 * `signedWithoutClick` (refresh and a login's verify: in-origin asked like any other, in frame mode
 * signed by the frame on its own, THREAT-MODEL P1).
 */
import { WalletError } from '../errors.js';
import { WALLET_CONTEXT } from '../session/context.js';
import { createEmitter } from '../session/emitter.js';
import { createSessionStore, type SessionOrigin, type SignedOutReason } from '../session/store.js';
import type { LogoutReason, Session, SessionEvents } from '../session/types.js';
import type { SharedWalletMethod } from '../shared-wallet.js';
import type { Wallet } from '../wallet.js';

/** The methods both doubles have alike (the wallets' shared ones, less the code login). */
export type TestCoreMethods = Partial<Pick<Wallet, SharedWalletMethod>>;

/** Options both doubles take. */
export interface TestWalletBaseOptions {
  /** Start signed in to this account (after `restore()`), else signed out. */
  signedInAs?: string;
  /** The code the fake OTP login accepts; default '000000'. */
  otpCode?: string;
  /** Session lifetime in ms; default 15 minutes. */
  lifetimeMs?: number;
  /** How long each fake service call (login steps, refresh) takes, in ms; default 0. */
  latencyMs?: number;
}

/** The test's controls of the session, in both doubles. */
export interface TestWalletControls {
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
}

const REASON: Record<Exclude<SignedOutReason, 'none'>, LogoutReason> = { logout: 'user', 'other-tab': 'other-tab', expired: 'expired', revoked: 'revoked' };

type Signer = (purpose: string, payload: unknown) => Promise<void>;

/** The double's shared part: the wallet methods both modes have alike, and the test's controls. */
export interface TestCore {
  readonly controls: TestWalletControls;
  readonly base: TestCoreMethods;
  readonly code: string;
  latency(): Promise<void>;
  needsSession(): Session;
}

export function createTestCore(options: TestWalletBaseOptions, signing: { signed: Signer; signedWithoutClick: Signer }): TestCore {
  const events = createEmitter<SessionEvents>();
  const store = createSessionStore({ on: events.on, current: (accountId) => (accountId === undefined || current?.accountId === accountId ? current : null) });
  const lifetime = options.lifetimeMs ?? 15 * 60_000;
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
  const latency = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, options.latencyMs ?? 0));
  const needsSession = (): Session => {
    if (!current) throw new WalletError('NOT_LOGGED_IN');
    return current;
  };

  const base: TestCoreMethods = {
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
        await signing.signedWithoutClick('refresh-session', {});
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
      await signing.signed('update-internal-account', patch);
      return { id: accountId, ...patch } as never;
    },
    dispose: () => events.clear(),
  };

  const controls: TestWalletControls = {
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
  };
  return { controls, base, code: options.otpCode ?? '000000', latency, needsSession };
}

/** The double's methods, `overrides` over them; any other method rejects (INVALID_ARGUMENT: pass it in overrides). */
export function doubleOf<W extends object>(methods: object): W {
  return new Proxy(methods, {
    get(target, key) {
      if (key in target) return (target as Record<PropertyKey, unknown>)[key];
      if (key === WALLET_CONTEXT || typeof key === 'symbol' || key === 'then') return undefined;
      return () => Promise.reject(new WalletError('INVALID_ARGUMENT', `the test wallet has no ${String(key)}(): pass it in overrides`));
    },
  }) as W;
}

/** `extra` with the controls' properties (their getters kept). */
export function withControls<T extends object>(controls: TestWalletControls, extra: T): T & TestWalletControls {
  return Object.defineProperties(extra, Object.getOwnPropertyDescriptors(controls)) as T & TestWalletControls;
}
