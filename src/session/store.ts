/**
 * The session store: one immutable snapshot of "who is signed in here, and how is that session
 * doing", with subscribe/getSnapshot, for any UI framework to bind to (React's
 * useSyncExternalStore, a Svelte store, a signal). Framework-free; fed only by the session
 * manager's events and its `current()` picture.
 *
 * Invariants (test/react/store.test.ts generates event sequences against a model of them):
 * 1. `getSnapshot()` returns the same object until something the snapshot shows changes; a
 *    listener is called only when it did (a new object), never for an event that changed nothing.
 * 2. A snapshot is frozen and tells the truth of the moment it was made: `session` is the manager's
 *    current session of the default account, `expiresAt` its expiry on the service's clock (epoch
 *    ms), `status` `refreshing` while a refresh of it is under way in this tab, else `expiring`
 *    once it entered its refresh window, else `active`; `signed-out` with the reason of the last
 *    logout the account saw (`none` if it never had one) when there is no session, once loaded;
 *    `initializing` before `restore()` settled and while no session is known. `origin` is who made
 *    the shown state (the current session, or its end): a change of the account that keeps its
 *    current session (another of its sessions came or went, in any tab) leaves it as it was.
 * 3. Reading never does I/O and never throws; nothing runs at import time.
 */
import { createEmitter } from './emitter.js';
import type { LogoutReason, Session, SessionEvents } from './types.js';

/** What the session store shows: see {@link SessionSnapshot}. */
export type SessionStatus = 'initializing' | 'signed-out' | 'active' | 'expiring' | 'refreshing';
/**
 * Why no one is signed in: `none` (no session yet), `logout` (this tab logged out), `other-tab`
 * (another tab did), `expired`, `revoked` (the service ended it, or the browser dropped its key).
 */
export type SignedOutReason = 'none' | 'logout' | 'expired' | 'revoked' | 'other-tab';
/** Who made the state shown: this tab, another tab of this browser, or it was found in storage at restore. */
export type SessionOrigin = 'this-tab' | 'other-tab' | 'storage';

/**
 * The session of the wallet's default account as a frozen value: the same object until something
 * in it changes (compare with `===`). Narrow on `status`.
 */
export type SessionSnapshot =
  | {
      /** `restore()` has not settled yet (or the server rendered this). */
      readonly status: 'initializing';
      /** Null while initializing. */
      readonly reason: null;
      /** The account the server hinted at, else null. */
      readonly accountId: string | null;
      /** Null while initializing. */
      readonly session: null;
      /** Null while initializing. */
      readonly expiresAt: null;
      /** Null while initializing. */
      readonly origin: null;
    }
  | {
      /** No session in this browser for the default account. */
      readonly status: 'signed-out';
      /** Why (see {@link SignedOutReason}). */
      readonly reason: SignedOutReason;
      /** The account that was signed out, or null when none ever was signed in here. */
      readonly accountId: string | null;
      /** No session. */
      readonly session: null;
      /** No session. */
      readonly expiresAt: null;
      /** Which tab signed out (null: no one did). */
      readonly origin: SessionOrigin | null;
    }
  | {
      /** `active`; `expiring`: in its refresh window; `refreshing`: a refresh is under way in this tab. */
      readonly status: 'active' | 'expiring' | 'refreshing';
      /** Null while signed in. */
      readonly reason: null;
      /** The account signed in. */
      readonly accountId: string;
      /** Its current session (public facts only: ids, credential, expiry; never a key). */
      readonly session: Readonly<Session>;
      /** `session.expiresAt` as epoch ms on the service's clock (compare with `wallet.serverNow()`). */
      readonly expiresAt: number;
      /** Which tab made this session the current one (login, refresh), or `storage` (found at restore). */
      readonly origin: SessionOrigin;
    };

/** The subscribable part of a wallet (see `Wallet.subscribe`). */
export interface SessionStore {
  /** Calls `listener` after every change of the snapshot; returns the function that removes it. */
  subscribe(listener: () => void): () => void;
  /** The current snapshot: the same object until it changes. */
  getSnapshot(): SessionSnapshot;
}

/** What the store reads: the manager's events and its current session (of the default account, or of `accountId`). */
export interface SessionStoreSource {
  on<E extends keyof SessionEvents>(event: E, listener: (payload: SessionEvents[E]) => void): () => void;
  current(accountId?: string): Session | null;
}

/** The internal side of a store: the wallet tells it when `restore()` settled. */
export interface SessionStoreControl extends SessionStore {
  loaded(): void;
}

const INITIAL: SessionSnapshot = Object.freeze({ status: 'initializing', reason: null, accountId: null, session: null, expiresAt: null, origin: null });

/** The snapshot every server render starts from (optionally naming the account the server knows). */
export function initialSnapshot(accountId: string | null = null): SessionSnapshot {
  return accountId === null ? INITIAL : Object.freeze({ ...INITIAL, accountId });
}

const REASON: Record<LogoutReason, SignedOutReason> = { user: 'logout', 'other-tab': 'other-tab', expired: 'expired', revoked: 'revoked' };

function same(a: SessionSnapshot, b: SessionSnapshot): boolean {
  return (
    a.status === b.status &&
    a.reason === b.reason &&
    a.accountId === b.accountId &&
    a.origin === b.origin &&
    // A session's fields never change: its id stands for its expiry and credential.
    a.session?.id === b.session?.id
  );
}

export function createSessionStore(source: SessionStoreSource): SessionStoreControl {
  // Listeners are called in order; one that throws goes to reportError and stops no other.
  const listeners = createEmitter<{ change: undefined }>();
  let snapshot = INITIAL;
  let loaded = false;
  const refreshing = new Set<string>();
  // Ids of sessions that entered their refresh window (kept: the manager tells it once per session,
  // and a session can become current again; one id per refresh).
  const expiring = new Set<string>();
  // Per account: its current session id (null: none) and who made that the case. A change of the
  // account that leaves its current session as it was (another of its sessions came or went) does
  // not change who made the session shown.
  const origins = new Map<string, { sessionId: string | null; origin: SessionOrigin }>();
  const ended = new Map<string | null, SignedOutReason>();
  let lastAccount: string | null = null;

  function compute(): SessionSnapshot {
    const session = source.current();
    if (session) {
      const accountId = session.accountId;
      lastAccount = accountId;
      const status = refreshing.has(accountId) ? 'refreshing' : expiring.has(session.id) ? 'expiring' : 'active';
      return { status, reason: null, accountId, session: Object.freeze({ ...session }), expiresAt: Date.parse(session.expiresAt), origin: origins.get(accountId)?.origin ?? 'storage' };
    }
    if (!loaded) return INITIAL;
    const reason = ended.get(lastAccount) ?? 'none';
    return { status: 'signed-out', reason, accountId: lastAccount, session: null, expiresAt: null, origin: origins.get(lastAccount ?? '')?.origin ?? null };
  }

  function update(): void {
    const next = compute();
    if (same(next, snapshot)) return;
    snapshot = Object.freeze(next);
    listeners.emit('change', undefined);
  }

  source.on('changed', ({ accountId, origin }) => {
    const sessionId = source.current(accountId)?.id ?? null;
    if (origins.get(accountId)?.sessionId !== sessionId) origins.set(accountId, { sessionId, origin: loaded || origin === 'this-tab' ? origin : 'storage' });
    update();
  });
  // Each change of the picture ends with `changed` (after its `session`, `refreshed`, `logged-out`…
  // events): one update per change, with the change's origin known.
  source.on('logged-out', ({ accountId, reason }) => void ended.set(accountId, REASON[reason] ?? 'revoked'));
  source.on('key-evicted', ({ session }) => void ended.set(session.accountId, 'revoked'));
  source.on('expiring', (session) => {
    expiring.add(session.id);
    update();
  });
  source.on('refreshing', ({ accountId, refreshing: on }) => {
    if (on) refreshing.add(accountId);
    else refreshing.delete(accountId);
    update();
  });

  return {
    subscribe(listener) {
      // A wrapper per call: one listener subscribed twice is two subscriptions. (The emitter refuses a non-function.)
      return listeners.on('change', typeof listener === 'function' ? () => listener() : listener);
    },
    getSnapshot: () => snapshot,
    loaded() {
      loaded = true;
      update();
    },
  };
}
