/**
 * The session manager: which sessions this browser holds for each account, which one is current,
 * when they expire (on the server's clock), refreshing, logging out, and keeping tabs in step.
 *
 * What it promises is INVARIANTS.md (I1–I8), each with the tests that check it. How, in short: each
 * account's sessions are one stored state (state.ts) with a generation, changed only by commits
 * inside the account's critical section (critical-section.ts: an in-page queue feeding a lock shared
 * by the tabs), each re-checking what it started from (`commitState`, or the same current session and
 * logout nonce) and undoing its own effect when stale. `logout()` first writes a new logout nonce
 * (the one write outside the section), which dooms commits in flight and cancels signatures not yet
 * sent in every tab (I2: re-read after every prompt, and every second while one is open); then it
 * waits for the logins in flight, a refresh on the wire and the section, and ends what is stored
 * (I1), keeping what the service could not confirm as pending ends (I8). Prompts never run inside
 * the section (I4): a refresh signs holding only the refresh lock; ends made for a logout or an undo
 * are approved by the call that caused them. Tabs learn of changes by a message that carries nothing
 * trusted and makes them re-read storage (channel.ts); their picture only moves to higher
 * generations (view.ts), and every signature re-reads the account's state first.
 *
 * Decisions where the wire reference is open:
 * - Only the current session of an account is refreshed automatically; other sessions held for the
 *   account (made with other credentials, kept so that a credential can be deleted) run to expiry.
 * - A login loses against a logout requested after it started (`loggingIn`): its session is ended
 *   and NOT_LOGGED_IN thrown. One that started after the logout was requested commits.
 * - Logout never fails for server errors: the state is emptied whatever the service answered; what
 *   it could not end stays a pending end (I8), whose key signs nothing else.
 * - A refresh whose answer never arrives leaves a session on the service whose key no one holds;
 *   it cannot be named (AuthSession names no key), so it runs to its expiry, unusable.
 */
import type { SessionKey, Signer } from '../crypto/index.js';
import { WalletError, invalidArgument } from '../errors.js';
import { loadOnFirstUse } from '../load-on-first-use.js';
import { ALL, createTabChannel, type LogoutRequest } from './channel.js';
import { withHeldRecords } from './held.js';
import { createCriticalSections } from './critical-section.js';
import { createEmitter } from './emitter.js';
import { createFollower } from './follow.js';
import { browserHost, type SessionHost } from './host.js';
import { loadStored } from './load.js';
import { addEnding, createCancellers, endAll, endOrphans, endWith, expireSessions, removeSessions, type OpsContext } from './operations.js';
import { parseStoredSession } from './records.js';
import { createRefresher } from './refresher.js';
import { createSchedule } from './schedule.js';
import { createServerClock } from './server-clock.js';
import { createSignerPicker } from './signer-pick.js';
import { createSessionService } from './service.js';
import { LOGOUT_PREFIX, adoptLogout, readSnapshot, requestLogout, type Change, type Snapshot } from './state.js';
import type { LoginTicket, LogoutReason, ManagedSessions, Session, SessionEvents, SessionManagerOptions, SignerOptions, SigningTicket } from './types.js';
import { accountFor, createView, currentOf, defaultAccountOf, noSessionError } from './view.js';

export type { ManagedSessions, SessionManagerOptions } from './types.js';

const CHANGE_OF: Record<LogoutReason, Change> = { user: 'logout', 'other-tab': 'logout', expired: 'expired', revoked: 'revoked' };

/**
 * How a manager downloads changes.ts (a dynamic import: a chunk of its own). Replaced only by tests
 * (test/session/model.test.ts makes it fail, as a chunk that cannot be downloaded); the package does
 * not export it.
 */
export const changesChunk = { load: (): Promise<typeof import('./changes.js')> => import('./changes.js') };

/** How soon a session the estimate calls expired, but the service did not confirm, is looked at again. */
const EXPIRY_RECHECK_MS = 30_000;

/**
 * A session manager over a client and a key store, without the rest of the wallet (`createWallet`
 * makes one for you). Nothing is read until `restore()` or the first call.
 */
export function createSessionManager(options: SessionManagerOptions): ManagedSessions {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { client } = options;
  // A logout's records that storage refuses are held in memory (held.ts): a logout needs no storage.
  const keyStore = withHeldRecords(options.keyStore, (account) => channel.post(account));
  const fraction = options.refreshWhenRemaining ?? 1 / 3;
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1)) throw invalidArgument('refreshWhenRemaining', 'a number between 0 and 1');
  const autoRefresh = options.autoRefresh ?? true;
  const namespace = options.namespace ?? 'embedded-wallet-signer';
  const host: SessionHost = { ...browserHost, ...(options.now !== undefined && { monotonicNow: options.now }), ...options.host };
  const service = options.service ?? createSessionService(client);
  const meta = keyStore.meta;

  const events = createEmitter<SessionEvents>();
  const clock = createServerClock(options.now ?? Date.now, () => schedule.planAll(), host.monotonicNow);
  const serverNow = (): number => clock.now();
  // Coordination only makes sense when the keys live in shared storage: a store that fell back to
  // memory is private to this tab (an explicitly memory-backed store is the caller's choice).
  const shared = (): boolean => options.crossTab !== false && keyStore.fallbackReason === undefined;
  const sections = createCriticalSections({ namespace, shared, locks: () => host.locks() });
  const view = createView(events, (accountId, local) => {
    events.emit('changed', { accountId, origin: local ? 'this-tab' : 'other-tab' });
    schedule.plan(accountId);
  });
  const channel = createTabChannel({
    name: `${namespace}:sessions`,
    host,
    enabled: shared,
    onSync: (key) => (key === ALL ? syncAll() : observe(key).then(() => undefined)),
    onLogout: (account, logout) => adoptLogout(meta, account, logout).then(() => undefined),
  });
  const noSession = (accountId: string): WalletError => noSessionError(view, accountId);
  const cancellers = createCancellers(() => follower.watch());
  const loggingOut = new Set<string>();
  const rechecks = new Map<string, unknown>();
  const ctx: OpsContext = { keyStore, service, host, view, channel, clock, cancellers, refreshFailed: (session, error) => events.emit('refresh-failed', { session, error }), noSession, loggingOut, endRefused: (accountId, sessionId, error) => events.emit('end-refused', { accountId, sessionId, error }) };
  // The tab's picture follows storage (follow.ts): observe, syncAll, finishPending, the 1 s watch.
  const follower = createFollower({ ctx, host, view, cancellers, run: (a, fn) => run(a, fn), disposed: () => disposed });
  const { observe, syncAll, finishPending } = follower;
  /**
   * The rarer changes (changes.ts: a login's commit, refresh, signing out other devices, judging a
   * refusal), loaded on first use by each manager (a tab's own download), always before the operation
   * takes a lock, so a download never holds the section; a failed one fails that operation
   * (NETWORK_ERROR) and is tried again at the next. Logout and a pending logout need none of it
   * (operations.ts): they work offline. A login loads it before its verify request is sent
   * (`loggingIn`, I5).
   */
  const withChanges = loadOnFirstUse(() => changesChunk.load(), 'session');
  const schedule = createSchedule({
    host,
    view,
    serverNow,
    fraction,
    autoRefresh,
    // Nothing removed (the service still lists them, or could not be asked): look again later.
    expire: (accountId) =>
      void run(accountId, (snap) => expireSessions(ctx, snap))
        .catch(() => new Set<string>())
        .then((gone) => {
          if (gone.size === 0 && !disposed && !rechecks.has(accountId)) {
            rechecks.set(accountId, host.setTimer(() => (rechecks.delete(accountId), schedule.plan(accountId)), EXPIRY_RECHECK_MS));
          }
        }),
    refreshDue: (session) => refresher.auto(session),
    expiring: (session) => events.emit('expiring', session),
  });

  let lastAccountId: string | undefined;
  let loaded: Promise<void> | undefined;
  let started = false;
  let disposed = false;
  const detach: Array<() => void> = [];
  const refresher = createRefresher({ ctx, run, observe, refreshing: (a, fn) => sections.refreshing(a, fn), changes: withChanges, schedule, disposed: () => disposed, busy: (accountId, refreshing) => events.emit('refreshing', { accountId, refreshing }) });

  /**
   * Runs `fn` in the account's critical section, from a snapshot read there. A pending logout
   * (requested here or in another tab, maybe closed since) is carried out first: it always wins.
   */
  function run<T>(accountId: string, fn: (snap: Snapshot) => Promise<T>): Promise<T> {
    return sections.run(accountId, async () => {
      let snap = await observe(accountId);
      if (snap.logoutPending && snap.state.sessions.length > 0) {
        await endAll(ctx, snap);
        snap = await observe(accountId);
      }
      return fn(snap);
    });
  }

  const defaultAccount = (): string | undefined => defaultAccountOf(view, lastAccountId);
  /**
   * Loaded, and for a call that names no account while this tab knows of none, storage read again
   * first: a tab without a channel (I7) may not have heard of a login made in another tab.
   */
  async function ready(accountId: string | undefined): Promise<void> {
    await ensureLoaded();
    if (accountId === undefined && defaultAccount() === undefined) await syncAll();
  }
  const accountOf = (accountId: string | undefined): string => accountFor(view, lastAccountId, accountId);

  async function load(): Promise<void> {
    await keyStore.ready();
    if (keyStore.fallbackReason !== undefined) events.emit('storage-fallback', { reason: keyStore.fallbackReason });
    // Listen first: a change another tab makes while this one reads is then not missed.
    if (!started && !disposed) {
      started = true;
      channel.start();
      // Back: what a logout could not write is written first, if storage takes it now (held.ts).
      const back = (): Promise<void> => meta.flush().catch(() => undefined).then(syncAll);
      detach.push(host.onWake(() => void back().then(() => schedule.planAll(), () => schedule.planAll())));
    }
    const stored = await loadStored(ctx, run);
    lastAccountId = stored.lastAccountId;
    schedule.planAll();
    finishPending(stored.ending);
    // Keys a closed tab stored for sessions it never committed: ended in the background, once no
    // refresh (refresh lock) or login (section) of the account can be between storing and committing.
    for (const a of stored.orphaned) void sections.refreshing(a, () => run(a, (snap) => endOrphans(ctx, snap))).catch(() => undefined);
  }

  function ensureLoaded(): Promise<void> {
    if (disposed) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'this wallet was disposed'));
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  const pickSigner = createSignerPicker({ ctx, view, serverNow, observe, run, noSession });

  async function resolve(accountId?: string, opts?: SignerOptions, ticket?: SigningTicket): Promise<{ session: Session; signer: Signer }> {
    await ready(ticket?.accountId ?? accountId);
    const account = accountOf(ticket?.accountId ?? accountId);
    const picked = await pickSigner(account, opts, ticket);
    lastAccountId = account;
    schedule.plan(account);
    return picked;
  }

  /** Validates and stores a session a login made (changes.ts `adopt`, loaded on first use). */
  const adoptDeps = {
    ensureLoaded,
    run,
    adopted(accountId: string): void {
      lastAccountId = accountId;
      // The service just answered a login of the account: its pending ends (the session a login
      // with the same credential replaced, a logout made offline) are finished now (I8), not only
      // at the next load, wake or logout.
      finishPending([accountId]);
    },
  };

  const manager: ManagedSessions = {
    clock,
    current(accountId) {
      const account = accountId ?? defaultAccount();
      return account === undefined ? null : currentOf(view.get(account));
    },
    all() {
      return view.accounts().flatMap((s) => s.sessions).sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    },
    adopt: (session, key) => withChanges((m) => m.adopt(ctx, session, key, undefined, adoptDeps)),
    // Loaded by `loggingIn` before verify (I5): this runs synchronously on the loaded module.
    establish: (answer, known) => withChanges((m) => m.establish(ctx, answer, known, adoptDeps)),
    async signingTicket(accountId) {
      // Bound to the logout nonce when the call starts (I2): for a named account it is read before
      // waiting for this tab's load, so a logout requested meanwhile (another tab) cancels the call.
      // The default account (no accountId given) is known only once loaded.
      const named = accountId === undefined ? undefined : readSnapshot(meta, accountId).catch(() => undefined);
      await ready(accountId);
      let account: string | undefined;
      try {
        account = accountOf(accountId);
      } catch {
        account = undefined; // resolve() throws the right error at the first challenge
      }
      // Untracked, carrying the account as asked: an invalid one (not a non-empty string) fails
      // INVALID_ARGUMENT at resolveFor, never signs for the default account instead.
      if (account === undefined) return { accountId, logoutNonce: null, signal: new AbortController().signal, done: () => undefined };
      // A named account that is valid is the account (an invalid one returned above).
      const started = (await named) ?? (await readSnapshot(meta, account));
      const guard = cancellers.track(account, started.logoutNonce);
      // A logout requested while the load was awaited cancels the call now.
      cancellers.check(account, (await readSnapshot(meta, account)).logoutNonce);
      return { accountId: account, logoutNonce: started.logoutNonce, signal: guard.signal, done: guard.done };
    },
    async signer(accountId, opts) {
      const { session, signer } = await resolve(accountId, opts);
      const bound = (await readSnapshot(meta, session.accountId)).logoutNonce;
      // The app may keep it: each signature first re-reads storage, and none is made once a logout
      // of the account was requested (any tab) or its session is no longer held here (I2).
      return {
        publicKeyHex: signer.publicKeyHex,
        async sign(data) {
          const snap = await readSnapshot(meta, session.accountId);
          if (snap.logoutPending || snap.logoutNonce !== bound || !snap.state.sessions.some((s) => s.id === session.id)) {
            throw new WalletError('NOT_LOGGED_IN', `${session.id} is no longer held here: nothing is signed with it`);
          }
          return signer.sign(data);
        },
      };
    },
    resolve: (accountId, opts) => resolve(accountId, opts),
    resolveFor: (ticket, opts) => resolve(ticket.accountId, opts, ticket),
    async refresh(accountId, plan) {
      await ready(accountId);
      return refresher.refresh(accountOf(accountId), plan, false);
    },
    async logout(accountId) {
      await ready(accountId);
      const account = accountId === undefined ? defaultAccount() : accountOf(accountId);
      if (account === undefined) return;
      loggingOut.add(account);
      try {
        // First doom whatever is in flight for the account, here and in the other tabs…
        const nonce = await requestLogout(meta, account);
        cancellers.check(account, nonce);
        // Storage refused the request (held in memory): the other tabs get it by message.
        const held = meta.isHeld(LOGOUT_PREFIX + account) ? await meta.get<LogoutRequest>(LOGOUT_PREFIX + account) : undefined;
        channel.post(account, held);
        // …then, once the logins in flight have settled (they lose: their tickets are stale) and a
        // refresh on the wire has committed or undone itself (its prompt was cancelled), end what is
        // stored, after whoever holds the section now. No lock taken here waits on a user (I4).
        await sections.logins(account, 'exclusive', () => sections.refreshing(account, () => run(account, (snap) => endAll(ctx, snap, { sweep: true }))));
      } finally {
        loggingOut.delete(account);
      }
      if (lastAccountId === account && !currentOf(view.get(account))) lastAccountId = undefined;
    },
    async forget(sessionIds, reason = 'revoked') {
      if (!Array.isArray(sessionIds) || !sessionIds.every((id) => typeof id === 'string')) throw invalidArgument('sessionIds', 'an array of Session ids');
      await ensureLoaded();
      const ids = new Set(sessionIds);
      for (const state of view.accounts()) {
        if (!state.sessions.some((s) => ids.has(s.id))) continue;
        const account = state.accountId;
        // Forgotten "by the user" is a logout made here: this tab's `logged-out` says `user` (the
        // other tabs' `other-tab`), as for logout().
        const here = reason === 'user' && !loggingOut.has(account);
        if (here) loggingOut.add(account);
        try {
          await run(account, (snap) => removeSessions(ctx, snap, ids, CHANGE_OF[reason] ?? 'revoked'));
        } finally {
          if (here) loggingOut.delete(account);
        }
      }
    },
    async list(accountId) {
      await ready(accountId);
      return service.list(accountOf(accountId));
    },
    async signOutOtherDevices(accountId) {
      await ready(accountId);
      const account = accountOf(accountId);
      // Under the locks, then ends outside them (I4): changes.ts signOutOthers.
      return withChanges((m) => m.signOutOthers(ctx, account, { sections, run, resolve }));
    },
    loggingIn(accountId, fn) {
      if (typeof accountId !== 'string' || accountId === '') throw invalidArgument('accountId', 'a non-empty string');
      if (typeof fn !== 'function') throw invalidArgument('fn', 'a function');
      // The login is bound to the logout nonce when it is called, not when it gets the lock: a
      // logout requested while it waited for the lock (behind another login, or a logout) wins.
      const started = readSnapshot(meta, accountId);
      // I5: the code the commit needs is loaded before verify is sent (a failed download fails the
      // login before the service makes a session).
      return withChanges(async () => started).then(({ logoutNonce }) => sections.logins(accountId, 'shared', async () => {
        const guard = cancellers.track(accountId, logoutNonce);
        cancellers.check(accountId, (await readSnapshot(meta, accountId)).logoutNonce);
        try {
          // A logout requested since the login started (it waited for the download or the lock): it
          // has lost; nothing is sent (an OTP code is not used up, no session is made).
          if (guard.signal.aborted) throw guard.signal.reason;
          return await fn({ accountId, logoutNonce, signal: guard.signal });
        } finally {
          guard.done();
        }
      }));
    },
    async restore() {
      const first = loaded === undefined;
      await ensureLoaded();
      if (!first) await syncAll();
      return manager.all();
    },
    async rejected(session, error) {
      if (!view.get(session.accountId).sessions.some((s) => s.id === session.id)) return error;
      // Without the judging code (it could not be downloaded) the error stands, as when the
      // service cannot be asked.
      const m = await withChanges(async (loaded) => loaded).catch(() => undefined);
      if (m === undefined) return error;
      return m.rejected(ctx, session, error, run);
    },
    on(event, listener) {
      return events.on(event, listener);
    },
    serverNow,
    dispose() {
      if (disposed) return;
      disposed = true;
      schedule.dispose();
      for (const t of rechecks.values()) host.clearTimer(t);
      rechecks.clear();
      follower.stop();
      for (const d of detach.splice(0)) d();
      channel.close();
      events.clear();
    },
  };
  return manager;
}
