/**
 * The session manager: which sessions this browser holds for each account, which one is current,
 * when they expire (on the server's clock), refreshing, logging out, and keeping tabs in step.
 *
 * Why it is correct, in one paragraph. Each account's sessions are one stored state (state.ts) with
 * a generation number, and every change to it (login, refresh, logout, expiry, eviction, signing
 * out other devices, a revocation the service reports) runs inside the account's critical section:
 * an in-page queue feeding a Web Lock of the account's name (critical-section.ts), so one tab at a
 * time, in request order. An operation reads a snapshot when it enters and commits only if the
 * stored generation, and the account's logout nonce, are still the snapshot's (operations.ts);
 * otherwise it undoes its own effect (a refresh ends the session it created on the service and
 * drops its key). `logout()` first writes a new logout nonce (the one write made outside the
 * section), which dooms every commit in flight and cancels signatures not yet sent, in this tab and,
 * through a message and a re-read, in the others; then it waits for the section and ends on the
 * service every session the state holds, so after it resolves nothing of the account is left here
 * or on the service, including a session a refresh on the wire created. A refresh ends the session
 * it replaced once the new one is committed (one slot per browser), still inside the section but
 * after its caller has the new session. Tabs learn of changes by a message that carries nothing
 * trusted and makes them re-read storage (coalesced, channel.ts); their in-memory picture only moves
 * to higher generations (view.ts), and every signature re-reads the account's state first, so a tab
 * that missed a message never signs with a session another tab ended. onBeforeSign waits are bounded
 * (transport): an automatic refresh and the end of a replaced session are shown to it with
 * `automatic: true` and a short bound (`automaticSignTimeoutMs`), so no user prompt holds the
 * section; a refused or timed-out prompt fails that one call.
 *
 * Decisions where the wire reference is open:
 * - Only the current session of an account is refreshed automatically; other sessions held for the
 *   account (made with other credentials, kept so that a credential can be deleted) run to expiry.
 * - A login commits even when a logout was requested while it was on the wire: it is a new session
 *   the user just made, not a leftover. It enters the section after the logout, if it came after it.
 * - Logout never fails for server errors: the keys are deleted whatever the service answered (a
 *   session without its key is unusable), and the service ends it at expiry anyway.
 * - A refresh whose answer never arrives leaves a session on the service whose key no one holds;
 *   it cannot be named (AuthSession names no key), so it runs to its expiry, unusable.
 */
import { signerFromKey, type SessionKey } from '../crypto/index.js';
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import { loadBoundKey, type KeyStore } from '../keys/index.js';
import type { Client } from '../transport/index.js';
import type { AuthSession, CredentialType } from '../types.js';
import { ALL, createTabChannel } from './channel.js';
import { createCriticalSections } from './critical-section.js';
import { createEmitter } from './emitter.js';
import { browserHost, type SessionHost } from './host.js';
import { createCancellers, endAll, endOthers, expireSessions, judge, refreshSession, rejection, removeSessions, addSession, type OpsContext } from './operations.js';
import { expiresAtMs, parseAuthSession, parseStoredSession, sessionFromAnswer } from './records.js';
import { createSchedule } from './schedule.js';
import { createServerClock, type ServerClock } from './server-clock.js';
import { createSessionService, type SessionService } from './service.js';
import { migrateOldLayout, readAll, readSnapshot, requestLogout, type Change, type Snapshot } from './state.js';
import type { KeyPlan, LogoutReason, Session, SessionEvents, SessionManager, SignerOptions } from './types.js';
import { currentOf, createView } from './view.js';

export interface SessionManagerOptions {
  client: Client;
  keyStore: KeyStore;
  /** Fraction of a session's lifetime left when it is refreshed (and `expiring` fires); default 1/3. */
  refreshWhenRemaining?: number;
  /** Refresh the current session automatically; default true. */
  autoRefresh?: boolean;
  /** Coordinate with other tabs (Web Locks + BroadcastChannel) where present; default true. */
  crossTab?: boolean;
  /** Lock and channel name prefix; give wallets over different key stores different names. */
  namespace?: string;
  /** Local clock; default Date.now. */
  now?: () => number;
  /** Replaces parts of the browser this manager uses (locks, channel, timers…): tests, unusual hosts. */
  host?: Partial<SessionHost>;
  /** The session endpoints; default: over `client`. */
  service?: SessionService;
}

/** A SessionManager, plus what the wallet feeds it. */
export interface ManagedSessions extends SessionManager {
  /** The server clock estimate (the wallet feeds it every answer's Date header). */
  readonly clock: ServerClock;
  /** Builds the Session for a login answer, observes its server time and adopts it. */
  establish(
    answer: unknown,
    known: { accountId: string; credentialId: string; credentialType: CredentialType; key: SessionKey; legacy?: boolean },
  ): Promise<Session>;
}

const ORPHAN_AGE_MS = 2 * 60 * 1000;
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** Errors after which an automatic refresh is not tried again for this session (no prompt loop). */
const TERMINAL = new Set(['SESSION_REVOKED', 'SESSION_EXPIRED', 'NOT_LOGGED_IN', 'KEY_EVICTED', 'SIGNING_REFUSED']);
const CHANGE_OF: Record<LogoutReason, Change> = { user: 'logout', 'other-tab': 'logout', expired: 'expired', revoked: 'revoked' };

export function createSessionManager(options: SessionManagerOptions): ManagedSessions {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { client, keyStore } = options;
  const fraction = options.refreshWhenRemaining ?? 1 / 3;
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1)) throw invalidArgument('refreshWhenRemaining', 'a number between 0 and 1');
  const autoRefresh = options.autoRefresh ?? true;
  const namespace = options.namespace ?? 'embedded-wallet-signer';
  const host: SessionHost = { ...browserHost, ...options.host };
  const service = options.service ?? createSessionService(client);
  const meta = keyStore.meta;

  const events = createEmitter<SessionEvents>();
  const clock = createServerClock(options.now ?? Date.now, () => schedule.planAll());
  const serverNow = (): number => clock.now();
  // Coordination only makes sense when the keys live in shared storage: a store that fell back to
  // memory is private to this tab (an explicitly memory-backed store is the caller's choice).
  const shared = (): boolean => options.crossTab !== false && keyStore.fallbackReason === undefined;
  const sections = createCriticalSections({ namespace, shared, locks: () => host.locks() });
  const view = createView(events, (accountId) => schedule.plan(accountId));
  const channel = createTabChannel({ name: `${namespace}:sessions`, host, enabled: shared, onSync: (key) => (key === ALL ? syncAll() : observe(key).then(() => undefined)) });
  const cancellers = createCancellers();
  const ctx: OpsContext = { keyStore, service, host, view, channel, clock, cancellers, refreshFailed: (session, error) => events.emit('refresh-failed', { session, error }), noSession };
  const schedule = createSchedule({
    host,
    view,
    serverNow,
    fraction,
    autoRefresh,
    expire: (accountId) => void run(accountId, (snap) => expireSessions(ctx, snap)).catch(() => undefined),
    refreshDue: (session) => autoRefreshOf(session),
    expiring: (session) => events.emit('expiring', session),
  });

  let lastAccountId: string | undefined;
  let loaded: Promise<void> | undefined;
  let started = false;
  let disposed = false;
  const detach: Array<() => void> = [];
  const autoRunning = new Set<string>();

  /** Reads the account's stored state: the picture follows, stale operations are cancelled. */
  async function observe(accountId: string): Promise<Snapshot> {
    const snap = await readSnapshot(meta, accountId);
    view.apply(snap.state, { absent: snap.state.generation === 0 });
    cancellers.check(accountId, snap.logoutNonce);
    return snap;
  }

  async function syncAll(): Promise<void> {
    const { states } = await readAll(meta);
    const accounts = new Set([...states.map((s) => s.accountId), ...view.accounts().map((s) => s.accountId)]);
    for (const accountId of accounts) await observe(accountId);
  }

  /** Runs `fn` in the account's critical section, from a snapshot read there. */
  function run<T>(accountId: string, fn: (snap: Snapshot) => Promise<T>): Promise<T> {
    return sections.run(accountId, async () => fn(await observe(accountId)));
  }

  function defaultAccount(): string | undefined {
    if (lastAccountId !== undefined && currentOf(view.get(lastAccountId))) return lastAccountId;
    return view.accounts().find((s) => currentOf(s) !== null)?.accountId;
  }

  function accountOf(accountId: string | undefined): string {
    if (accountId !== undefined && (typeof accountId !== 'string' || accountId === '')) throw invalidArgument('accountId', 'a non-empty string');
    const account = accountId ?? defaultAccount();
    if (account === undefined) throw new WalletError('NOT_LOGGED_IN', 'no session in this browser (and no accountId given)');
    return account;
  }

  function noSession(accountId: string): WalletError {
    const why = view.ended(accountId);
    if (why === 'expired') return new WalletError('SESSION_EXPIRED', `the session of ${accountId} expired: log in again`);
    if (why === 'revoked') return new WalletError('SESSION_REVOKED', `the session of ${accountId} was ended elsewhere: log in again`);
    return new WalletError('NOT_LOGGED_IN', `no session for ${accountId} in this browser`);
  }

  /** A refresh in the section; resolves once committed (the replaced session is ended after that). */
  function refreshNow(accountId: string, plan: KeyPlan | undefined, automatic: boolean): Promise<Session> {
    return new Promise((resolve, reject) => {
      run(accountId, async (snap) => {
        const result = await refreshSession(ctx, snap, { plan, automatic, dueAt: schedule.refreshAt }).catch((error: unknown) => {
          reject(error);
          return undefined;
        });
        if (!result) return;
        resolve(result.session);
        await result.retire?.();
      }).catch(reject);
    });
  }

  function autoRefreshOf(s: Session): void {
    if (autoRunning.has(s.accountId) || disposed) return;
    autoRunning.add(s.accountId);
    refreshNow(s.accountId, undefined, true)
      .catch((error: unknown) => {
        // A refused or hopeless refresh is not tried again automatically; others are retried after a
        // quarter of the time left, between 5 s and 60 s.
        const code = isWalletError(error) ? error.code : 'SIGNER_FAILED';
        const remaining = expiresAtMs(s) - serverNow();
        schedule.holdRefresh(s.id, serverNow() + (TERMINAL.has(code) ? remaining : Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, remaining / 4))));
      })
      .finally(() => {
        autoRunning.delete(s.accountId);
        schedule.plan(s.accountId);
      });
  }

  function pick(accountId: string, opts: SignerOptions | undefined): Session {
    const state = view.get(accountId);
    const cur = currentOf(state);
    const exclude = opts?.excludeCredentialId;
    if (exclude === undefined) {
      if (!cur) throw noSession(accountId);
      return cur;
    }
    if (typeof exclude !== 'string' || exclude === '') throw invalidArgument('excludeCredentialId', 'a non-empty string');
    const candidates = state.sessions
      .filter((s) => s.credentialId !== exclude && serverNow() < expiresAtMs(s))
      .sort((a, b) => (a === cur ? -1 : b === cur ? 1 : expiresAtMs(b) - expiresAtMs(a)));
    if (candidates[0]) return candidates[0];
    if (state.sessions.length === 0) throw noSession(accountId);
    throw new WalletError('OTHER_CREDENTIAL_SESSION_REQUIRED');
  }

  async function cleanOrphans(): Promise<void> {
    const held = new Set(view.accounts().flatMap((s) => s.sessions.map((x) => x.publicKeyHex)));
    const cutoff = Date.now() - ORPHAN_AGE_MS;
    for (const k of await keyStore.list({ purpose: 'session' })) {
      // A key no state names: a login or refresh interrupted between writing its key and its state
      // (the age guard spares another tab in the middle of a commit).
      if (k.sessionId !== undefined && !held.has(k.publicKeyHex) && k.createdAt < cutoff) await keyStore.delete(k.publicKeyHex);
    }
  }

  async function load(): Promise<void> {
    await keyStore.ready();
    if (keyStore.fallbackReason !== undefined) events.emit('storage-fallback', { reason: keyStore.fallbackReason });
    await migrateOldLayout(meta).catch(() => undefined);
    const { states, lastAccountId: last } = await readAll(meta);
    for (const state of states) view.apply(state, { silent: true });
    lastAccountId = last;
    for (const { accountId } of states) {
      await run(accountId, (snap) => expireSessions(ctx, snap));
      await run(accountId, async (snap) => {
        const missing = [];
        for (const s of snap.state.sessions) if ((await keyStore.get(s.publicKeyHex)) === undefined) missing.push(s.id);
        await removeSessions(ctx, snap, new Set(missing), 'evicted');
      });
    }
    await cleanOrphans().catch(() => undefined);
    if (!started && !disposed) {
      started = true;
      channel.start();
      detach.push(host.onWake(() => void syncAll().then(() => schedule.planAll(), () => schedule.planAll())));
    }
    schedule.planAll();
  }

  function ensureLoaded(): Promise<void> {
    if (disposed) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'this wallet was disposed'));
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  async function resolve(accountId?: string, opts?: SignerOptions): Promise<{ session: Session; signer: ReturnType<typeof signerFromKey> }> {
    await ensureLoaded();
    const account = accountOf(accountId);
    // Another tab may have logged out or refreshed without this one hearing of it yet.
    await observe(account);
    const session = pick(account, opts);
    if (serverNow() >= expiresAtMs(session)) {
      await run(account, (snap) => expireSessions(ctx, snap));
      throw new WalletError('SESSION_EXPIRED', `${session.id} expired`);
    }
    let key;
    try {
      key = await loadBoundKey(keyStore, session, serverNow());
    } catch (error) {
      if (isWalletError(error, 'KEY_EVICTED')) await run(account, (snap) => removeSessions(ctx, snap, new Set([session.id]), 'evicted'));
      throw error;
    }
    lastAccountId = account;
    schedule.plan(account);
    return { session, signer: signerFromKey(key) };
  }

  async function adopt(session: Session, key: SessionKey): Promise<void> {
    const parsed = parseStoredSession(session);
    if (!parsed) throw invalidArgument('session', 'a Session');
    if (typeof key !== 'object' || key === null || key.publicKeyHex !== parsed.publicKeyHex) {
      throw invalidArgument('key', 'the session key whose publicKeyHex is session.publicKeyHex');
    }
    await ensureLoaded();
    await run(parsed.accountId, (snap) => addSession(ctx, snap, parsed, key));
    lastAccountId = parsed.accountId;
  }

  const manager: ManagedSessions = {
    clock,
    current(accountId) {
      const account = accountId ?? defaultAccount();
      return account === undefined ? null : currentOf(view.get(account));
    },
    all() {
      return view.accounts().flatMap((s) => s.sessions).sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    },
    adopt,
    async establish(answer, known) {
      const parsed = parseAuthSession(answer);
      clock.observeServerTime(Date.parse(parsed.createdAt));
      const session = sessionFromAnswer(parsed, { ...known, publicKeyHex: known.key.publicKeyHex }, serverNow());
      await adopt(session, known.key);
      return session;
    },
    async signer(accountId, opts) {
      return (await resolve(accountId, opts)).signer;
    },
    resolve,
    async refresh(accountId, plan) {
      await ensureLoaded();
      return refreshNow(accountOf(accountId), plan, false);
    },
    async logout(accountId) {
      await ensureLoaded();
      const account = accountId === undefined ? defaultAccount() : accountOf(accountId);
      if (account === undefined) return;
      // First doom whatever is in flight for the account, here and in the other tabs…
      cancellers.check(account, await requestLogout(meta, account));
      channel.post(account);
      // …then end what is stored, after whoever holds the section now.
      const ended = await run(account, (snap) => endAll(ctx, snap));
      if (ended && lastAccountId === account) lastAccountId = undefined;
    },
    async forget(sessionIds, reason = 'revoked') {
      if (!Array.isArray(sessionIds) || !sessionIds.every((id) => typeof id === 'string')) throw invalidArgument('sessionIds', 'an array of Session ids');
      await ensureLoaded();
      const ids = new Set(sessionIds);
      for (const state of view.accounts()) {
        if (state.sessions.some((s) => ids.has(s.id))) await run(state.accountId, (snap) => removeSessions(ctx, snap, ids, CHANGE_OF[reason] ?? 'revoked'));
      }
    },
    async list(accountId) {
      await ensureLoaded();
      return service.list(accountOf(accountId)) as Promise<AuthSession[]>;
    },
    async signOutOtherDevices(accountId) {
      await ensureLoaded();
      return run(accountOf(accountId), (snap) => endOthers(ctx, snap));
    },
    async restore() {
      const first = loaded === undefined;
      await ensureLoaded();
      if (!first) await syncAll();
      return manager.all();
    },
    async rejected(session, error) {
      if (!view.get(session.accountId).sessions.some((s) => s.id === session.id)) return error;
      const verdict = await judge(ctx, session, error);
      if (verdict === undefined) return error;
      await run(session.accountId, (snap) => removeSessions(ctx, snap, new Set([session.id]), verdict));
      return rejection(verdict, session, error);
    },
    on(event, listener) {
      return events.on(event, listener);
    },
    serverNow,
    dispose() {
      if (disposed) return;
      disposed = true;
      schedule.dispose();
      for (const d of detach.splice(0)) d();
      channel.close();
      events.clear();
    },
  };
  return manager;
}
