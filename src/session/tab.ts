/**
 * What a tab follows (the manager's first part; manager.ts puts the three together): the stored state
 * of each account as this tab sees it (view.ts, follow.ts), the other tabs (channel.ts), the account's
 * critical section and how everything that changes the state runs in it (`run`), loading, the timers
 * of refresh and expiry (schedule.ts, refresher.ts), the account used last, and the code loaded on
 * first use (changes.ts). signing.ts (what a tab signs with) and ending.ts (how it ends sessions) are
 * built on it.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { loadOnFirstUse } from '../load-on-first-use.js';
import { ALL, createTabChannel, type TabChannel } from './channel.js';
import { withHeldRecords, type HoldingStore } from './held.js';
import { createCriticalSections, type CriticalSections } from './critical-section.js';
import { createEmitter, type Emitter } from './emitter.js';
import { createFollower } from './follow.js';
import { browserHost, type SessionHost } from './host.js';
import { loadStored } from './load.js';
import { createCancellers, endAll, endOrphans, expireSessions, type Cancellers, type OpsContext } from './operations.js';
import type { RunInSection } from './refusal.js';
import { createRefresher, type Refresher } from './refresher.js';
import { createSchedule, type Schedule } from './schedule.js';
import { createServerClock, type ServerClock } from './server-clock.js';
import { createSessionService } from './service.js';
import { adoptLogout, type Snapshot } from './state.js';
import type { SessionEvents, SessionManagerOptions } from './types.js';
import { accountFor, createView, defaultAccountOf, noSessionError, type View } from './view.js';

/**
 * How a manager downloads changes.ts (a dynamic import: a chunk of its own). Replaced only by tests
 * (test/session/model.test.ts makes it fail, as a chunk that cannot be downloaded); the package does
 * not export it (manager.ts re-exports it for the tests).
 */
export const changesChunk = { load: (): Promise<typeof import('./changes.js')> => import('./changes.js') };

/** How soon a session the estimate calls expired, but the service did not confirm, is looked at again. */
const EXPIRY_RECHECK_MS = 30_000;

/** A tab of the manager: what signing.ts, ending.ts and manager.ts share. */
export interface Tab {
  readonly ctx: OpsContext;
  /** The key store's records, a logout's held in memory where storage refuses them (held.ts). */
  readonly meta: HoldingStore;
  readonly events: Emitter<SessionEvents>;
  readonly view: View;
  readonly clock: ServerClock;
  readonly sections: CriticalSections;
  readonly channel: TabChannel;
  readonly cancellers: Cancellers;
  readonly refresher: Refresher;
  readonly schedule: Schedule;
  /** Accounts whose logout this tab's user asked for (their `logged-out` says `user`). */
  readonly loggingOut: Set<string>;
  /** The rarer changes (changes.ts), loaded on first use. */
  readonly withChanges: <R>(use: (module: typeof import('./changes.js')) => Promise<R>) => Promise<R>;
  serverNow(): number;
  /** Runs `fn` in the account's critical section, a pending logout carried out first. */
  run: RunInSection;
  observe(accountId: string): Promise<Snapshot>;
  syncAll(): Promise<void>;
  finishPending(accountIds: Iterable<string>): void;
  ensureLoaded(): Promise<void>;
  /** Loads; when loaded already, reads storage again (`restore()`). */
  reload(): Promise<void>;
  /** Loaded, and for a call naming no account while this tab knows of none, storage read again. */
  ready(accountId: string | undefined): Promise<void>;
  /** The account a call is for (the one given, else the default); INVALID_ARGUMENT or NOT_LOGGED_IN. */
  accountOf(accountId: string | undefined): string;
  defaultAccount(): string | undefined;
  /** The account used last (the default of calls that name none). */
  lastAccountId: string | undefined;
  dispose(): void;
}

/**
 * A tab over the options (validated here). `onLoggedOut` carries out a logout another tab's user asked
 * for that this tab must make itself (a tab on the memory store: channel.ts).
 */
export function createTab(options: SessionManagerOptions, onLoggedOut: (accountId: string) => void): Tab {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { client } = options;
  // A logout's records that storage refuses are held in memory (held.ts): a logout needs no storage.
  const keyStore = withHeldRecords(options.keyStore, (account) => channel.post(account));
  const meta = keyStore.meta;
  const fraction = options.refreshWhenRemaining ?? 1 / 3;
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1)) throw invalidArgument('refreshWhenRemaining', 'a number between 0 and 1');
  const autoRefresh = options.autoRefresh ?? true;
  const namespace = options.namespace ?? 'embedded-wallet-signer';
  const host: SessionHost = { ...browserHost, ...(options.now !== undefined && { monotonicNow: options.now }), ...options.host };
  const service = options.service ?? createSessionService(client);

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
  // A tab on the memory store keeps the channel for logouts alone (channel.ts, I1).
  const channel = createTabChannel({
    name: `${namespace}:sessions`,
    host,
    enabled: () => options.crossTab !== false,
    shared,
    onSync: (key) => (key === ALL ? syncAll() : observe(key).then(() => undefined)),
    onLogout: (account, logout) => adoptLogout(meta, account, logout).then(() => undefined),
    onLoggedOut,
  });
  const cancellers = createCancellers(() => follower.watch());
  const loggingOut = new Set<string>();
  const rechecks = new Map<string, unknown>();
  const noSession = (accountId: string): WalletError => noSessionError(view, accountId);
  const ctx: OpsContext = {
    keyStore,
    service,
    host,
    view,
    channel,
    clock,
    cancellers,
    refreshFailed: (session, error) => events.emit('refresh-failed', { session, error }),
    noSession,
    loggingOut,
    endRefused: (accountId, sessionId, error) => events.emit('end-refused', { accountId, sessionId, error }),
  };
  // The tab's picture follows storage (follow.ts): observe, syncAll, finishPending, the 1 s watch.
  const follower = createFollower({ ctx, host, view, cancellers, run: (a, fn) => run(a, fn), disposed: () => disposed });
  const { observe, syncAll, finishPending } = follower;
  /**
   * The rarer changes (changes.ts: a login's commit, refresh, signing out other devices, judging a
   * refusal), loaded on first use by each manager (a tab's own download), always before the operation
   * takes a lock, so a download never holds the section; a failed one fails that operation
   * (NETWORK_ERROR) and is tried again at the next. Logout and a pending logout need none of it
   * (operations.ts): they work offline. A login loads it before its verify request is sent
   * (`loginStarts`, I5).
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
    tab.lastAccountId = stored.lastAccountId;
    schedule.planAll();
    finishPending(stored.ending);
    // Keys a closed tab stored for sessions it never committed: ended in the background, once no
    // refresh (refresh lock) or login (section) of the account can be between storing and committing.
    for (const a of stored.orphaned) void sections.refreshing(a, () => run(a, (snap) => endOrphans(ctx, snap))).catch(() => undefined);
  }

  const tab: Tab = {
    ctx,
    meta,
    events,
    view,
    clock,
    sections,
    channel,
    cancellers,
    refresher,
    schedule,
    loggingOut,
    withChanges,
    serverNow,
    run,
    observe,
    syncAll,
    finishPending,
    lastAccountId: undefined,
    ensureLoaded() {
      if (disposed) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'this wallet was disposed'));
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      return loaded;
    },
    async reload() {
      const first = loaded === undefined;
      await tab.ensureLoaded();
      if (!first) await syncAll();
    },
    /**
     * Loaded, and for a call that names no account while this tab knows of none, storage read again
     * first: a tab without a channel (I7) may not have heard of a login made in another tab.
     */
    async ready(accountId) {
      await tab.ensureLoaded();
      if (accountId === undefined && tab.defaultAccount() === undefined) await syncAll();
    },
    accountOf: (accountId) => accountFor(view, tab.lastAccountId, accountId),
    defaultAccount: () => defaultAccountOf(view, tab.lastAccountId),
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
  return tab;
}
