/**
 * The session manager: which sessions this browser holds, which one is current per account, when
 * they expire (on the server's clock), refreshing, logging out, and keeping tabs in step.
 *
 * State lives in the key store (keys, and metadata beside them: see records.ts) and is mirrored in
 * memory; storage is written first, memory follows, so another tab can always rebuild the truth
 * from storage. Every change of this instance's state runs in one queue (`serial`), and a refresh
 * runs under a cross-tab lock, so that exactly one tab refreshes a session and the others adopt it.
 *
 * Decisions where the wire reference is open:
 * - Only the current session of an account is refreshed automatically; other sessions held for the
 *   account (made with other credentials, kept so that a credential can be deleted) run to expiry.
 * - A refresh deletes the old key but does not revoke the old session on the service: it stays valid
 *   until its own expiry (at most the refresh margin), so a tab still signing with it, or a tab
 *   closed mid-refresh, loses nothing. No one else holds its key.
 * - Logout never fails for server errors: the keys are deleted whatever the service answered (a
 *   client-held session without its key is unusable), and the service ends it at expiry anyway.
 */
import { signerFromKey, type SessionKey, type Signer } from '../crypto/index.js';
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import { loadBoundKey, type KeyStore, type StoredKey } from '../keys/index.js';
import type { Client } from '../transport/index.js';
import type { AuthSession, CredentialType } from '../types.js';
import { onPageWake } from './page-events.js';
import { deleteSession, listSessions, requestRefresh } from './service.js';
import { createCrossTab, type CrossTab } from './cross-tab.js';
import { createEmitter } from './emitter.js';
import { createKeyPlan } from './key-plan.js';
import {
  CURRENT_PREFIX,
  LAST_ACCOUNT,
  SESSION_PREFIX,
  expiresAtMs,
  lifetimeMs,
  parseAuthSession,
  parseStoredSession,
  readStoredState,
  sessionFromAnswer,
} from './records.js';
import { createServerClock, type ServerClock } from './server-clock.js';
import type { KeyPlan, LogoutReason, Session, SessionEvents, SessionManager, SignerOptions } from './types.js';

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

const DEFAULT_FRACTION = 1 / 3;
const ORPHAN_AGE_MS = 2 * 60 * 1000;
const MAX_TIMER_MS = 60 * 60 * 1000;
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** Errors after which an automatic refresh is not tried again for this session. */
const TERMINAL = new Set(['SESSION_REVOKED', 'SESSION_EXPIRED', 'NOT_LOGGED_IN', 'KEY_EVICTED', 'SIGNING_REFUSED']);

type Timer = ReturnType<typeof setTimeout>;

function toWalletError(error: unknown): WalletError {
  return isWalletError(error) ? error : new WalletError('SIGNER_FAILED', 'unexpected failure', { cause: error });
}

export function createSessionManager(options: SessionManagerOptions): ManagedSessions {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { client, keyStore } = options;
  const fraction = options.refreshWhenRemaining ?? DEFAULT_FRACTION;
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1)) throw invalidArgument('refreshWhenRemaining', 'a number between 0 and 1');
  const autoRefresh = options.autoRefresh ?? true;
  const localNow = options.now ?? Date.now;
  const namespace = options.namespace ?? 'embedded-wallet-signer';

  const events = createEmitter<SessionEvents>();
  const sessions = new Map<string, Session>();
  const current = new Map<string, string>();
  let lastAccountId: string | undefined;
  const timers = new Map<string, Timer>();
  const expiringSent = new Set<string>();
  const retryAt = new Map<string, number>();
  const inFlight = new Map<string, Promise<Session>>();
  /** Why an account's last session ended here, so that its next use says SESSION_EXPIRED / _REVOKED. */
  const ended = new Map<string, LogoutReason>();
  let loaded: Promise<void> | undefined;
  let started = false;
  let disposed = false;
  let fallbackReported = false;
  const detach: Array<() => void> = [];

  const clock = createServerClock(localNow, () => rescheduleAll());
  const serverNow = (): number => clock.now();

  // Cross-tab coordination only makes sense when the keys live in shared storage: a store that fell
  // back to memory is private to this tab (an explicitly memory-backed store is the caller's choice).
  const crossTab: CrossTab = createCrossTab({
    namespace,
    enabled: () => options.crossTab !== false && keyStore.fallbackReason === undefined,
    onMessage: () => {
      void serial(() => syncFromStorage()).catch(() => undefined);
    },
  });

  // ---- the queue every state change runs in ----
  let queue: Promise<unknown> = Promise.resolve();
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  // ---- reading state ----
  const isExpired = (s: Session): boolean => serverNow() >= expiresAtMs(s);
  const refreshAt = (s: Session): number => expiresAtMs(s) - lifetimeMs(s) * fraction;
  const isCurrent = (s: Session): boolean => current.get(s.accountId) === s.id;
  const sessionsOf = (accountId: string): Session[] => [...sessions.values()].filter((s) => s.accountId === accountId);

  function accountOf(accountId: string | undefined): string {
    if (accountId !== undefined && (typeof accountId !== 'string' || accountId === '')) throw invalidArgument('accountId', 'a non-empty string');
    const account = accountId ?? lastAccountId;
    if (account === undefined) throw new WalletError('NOT_LOGGED_IN', 'no session in this browser (and no accountId given)');
    return account;
  }

  function currentOf(accountId: string): Session | undefined {
    const id = current.get(accountId);
    return id === undefined ? undefined : sessions.get(id);
  }

  /** The best remaining session of an account to make current: the one that lasts longest. */
  function successor(accountId: string): Session | undefined {
    return sessionsOf(accountId)
      .filter((s) => !isExpired(s))
      .sort((a, b) => expiresAtMs(b) - expiresAtMs(a))[0];
  }

  /** Makes the stored pointer the account's current session when it is held, else its successor. */
  function pointAt(accountId: string, pointer: string | undefined): void {
    const next = pointer !== undefined && sessions.has(pointer) ? pointer : successor(accountId)?.id;
    if (next === undefined) current.delete(accountId);
    else current.set(accountId, next);
  }

  // ---- timers ----
  function clearTimer(sessionId: string): void {
    const t = timers.get(sessionId);
    if (t !== undefined) clearTimeout(t);
    timers.delete(sessionId);
  }

  function setTimer(sessionId: string, delayMs: number): void {
    clearTimer(sessionId);
    if (disposed) return;
    const t = setTimeout(() => {
      timers.delete(sessionId);
      const s = sessions.get(sessionId);
      if (s) evaluate(s);
    }, Math.max(0, Math.min(delayMs, MAX_TIMER_MS)));
    (t as { unref?: () => void }).unref?.();
    timers.set(sessionId, t);
  }

  /** Acts on a session's position in its life (expired, in its refresh window) and plans the next look. */
  function evaluate(s: Session): void {
    if (disposed || sessions.get(s.id) !== s) return;
    const now = serverNow();
    if (now >= expiresAtMs(s)) {
      void serial(() => expire(s)).catch(() => undefined);
      return;
    }
    const points = [expiresAtMs(s)];
    if (isCurrent(s)) {
      const at = refreshAt(s);
      if (now >= at) {
        if (!expiringSent.has(s.id)) {
          expiringSent.add(s.id);
          events.emit('expiring', s);
        }
        const retry = retryAt.get(s.id);
        if (autoRefresh && (retry === undefined || now >= retry)) void autoRefreshOf(s);
        else if (retry !== undefined && retry > now) points.push(retry);
      } else {
        points.push(at);
      }
    }
    setTimer(s.id, Math.min(...points) - now);
  }

  function rescheduleAll(): void {
    for (const s of [...sessions.values()]) evaluate(s);
  }

  async function autoRefreshOf(s: Session): Promise<void> {
    if (inFlight.has(s.accountId)) return;
    try {
      await refreshAccount(s.accountId, undefined, s);
    } catch (error) {
      const e = toWalletError(error);
      const still = sessions.get(s.id);
      if (!still) return;
      // A refused or hopeless refresh is not tried again automatically (no prompt loop); others are
      // retried after a quarter of the time left, between 5 s and 60 s.
      const remaining = expiresAtMs(still) - serverNow();
      const delay = TERMINAL.has(e.code) ? remaining : Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, remaining / 4));
      retryAt.set(s.id, serverNow() + delay);
      evaluate(still);
    }
  }

  // ---- storage + memory changes (call inside serial) ----
  async function removeStored(s: Session): Promise<void> {
    await keyStore.meta.delete(SESSION_PREFIX + s.id);
    await keyStore.delete(s.publicKeyHex);
  }

  function dropFromMemory(s: Session): void {
    sessions.delete(s.id);
    clearTimer(s.id);
    expiringSent.delete(s.id);
    retryAt.delete(s.id);
    keyStore.invalidate(s.publicKeyHex);
  }

  /**
   * Removes sessions (storage and memory). When an account loses its current session another of its
   * sessions becomes current, or the account is logged out (`logged-out` with `reason`).
   */
  async function forget(list: Session[], reason: LogoutReason | undefined): Promise<void> {
    const accounts = new Set<string>();
    for (const s of list) {
      await removeStored(s).catch(() => undefined);
      dropFromMemory(s);
      accounts.add(s.accountId);
    }
    for (const accountId of accounts) {
      const cur = currentOf(accountId);
      if (cur) continue;
      const next = successor(accountId);
      if (next) {
        current.set(accountId, next.id);
        await keyStore.meta.put(CURRENT_PREFIX + accountId, { sessionId: next.id }).catch(() => undefined);
        evaluate(next);
        events.emit('session', next);
        continue;
      }
      current.delete(accountId);
      await keyStore.meta.delete(CURRENT_PREFIX + accountId).catch(() => undefined);
      if (lastAccountId === accountId) lastAccountId = [...current.keys()][0];
      if (reason !== undefined) {
        ended.set(accountId, reason);
        events.emit('logged-out', { accountId, reason });
      }
    }
    if (list.length > 0) crossTab.post();
  }

  async function expire(s: Session): Promise<void> {
    if (sessions.get(s.id) !== s) return;
    events.emit('expired', s);
    await forget([s], 'expired');
  }

  async function evicted(s: Session): Promise<void> {
    if (sessions.get(s.id) !== s) return;
    events.emit('key-evicted', { session: s });
    await forget([s], undefined);
  }

  /** Writes a session and its key, makes it current; memory follows storage. */
  async function store(session: Session, key: SessionKey): Promise<void> {
    await keyStore.put({
      publicKeyHex: key.publicKeyHex,
      privateKey: key.privateKey,
      publicKey: key.publicKey,
      purpose: 'session',
      accountId: session.accountId,
      sessionId: session.id,
    });
    await keyStore.meta.put(SESSION_PREFIX + session.id, session);
    await keyStore.meta.put(CURRENT_PREFIX + session.accountId, { sessionId: session.id });
    await keyStore.meta.put(LAST_ACCOUNT, { accountId: session.accountId });
    sessions.set(session.id, session);
    ended.delete(session.accountId);
    const previous = currentOf(session.accountId);
    current.set(session.accountId, session.id);
    lastAccountId = session.accountId;
    if (previous && previous.id !== session.id) evaluate(previous);
    evaluate(session);
  }

  /**
   * Brings memory in line with storage (another tab logged in, refreshed, logged out) and emits
   * what changed for this instance's listeners.
   */
  async function syncFromStorage(): Promise<void> {
    const stored = await readStoredState(keyStore.meta);
    const before = new Map(current);
    const removed: Session[] = [];
    for (const s of [...sessions.values()]) {
      if (!stored.sessions.has(s.id)) {
        removed.push(s);
        dropFromMemory(s);
      }
    }
    for (const s of stored.sessions.values()) {
      if (sessions.has(s.id) || isExpired(s)) continue;
      keyStore.invalidate(s.publicKeyHex);
      const key = await keyStore.get(s.publicKeyHex).catch(() => undefined);
      if (key) sessions.set(s.id, s);
    }
    const accounts = new Set([...before.keys(), ...stored.current.keys(), ...removed.map((s) => s.accountId)]);
    for (const accountId of accounts) pointAt(accountId, stored.current.get(accountId));
    for (const s of sessions.values()) evaluate(s);
    for (const accountId of accounts) {
      const was = before.get(accountId);
      const now = current.get(accountId);
      if (was === now) continue;
      const nowSession = now === undefined ? undefined : sessions.get(now);
      const wasSession = removed.find((s) => s.id === was) ?? (was === undefined ? undefined : sessions.get(was));
      if (!nowSession) {
        if (lastAccountId === accountId) lastAccountId = [...current.keys()][0];
        events.emit('logged-out', { accountId, reason: 'other-tab' });
      } else if (wasSession && !sessions.has(wasSession.id) && wasSession.credentialId === nowSession.credentialId) {
        events.emit('refreshed', { previous: wasSession, session: nowSession });
      } else {
        lastAccountId ??= accountId;
        events.emit('session', nowSession);
      }
    }
  }

  // ---- loading ----
  function reportFallback(): void {
    if (fallbackReported || keyStore.fallbackReason === undefined) return;
    fallbackReported = true;
    events.emit('storage-fallback', { reason: keyStore.fallbackReason });
  }

  async function cleanOrphans(): Promise<void> {
    const keys: StoredKey[] = await keyStore.list({ purpose: 'session' });
    const held = new Set([...sessions.values()].map((s) => s.publicKeyHex));
    const cutoff = localNow() - ORPHAN_AGE_MS;
    for (const k of keys) {
      // A key with a session id but no session record: a login or refresh interrupted between
      // writing the key and writing its record (the age guard spares another tab mid-write).
      if (k.sessionId !== undefined && !held.has(k.publicKeyHex) && k.createdAt < cutoff) await keyStore.delete(k.publicKeyHex);
    }
  }

  async function load(): Promise<void> {
    await keyStore.ready();
    reportFallback();
    const stored = await readStoredState(keyStore.meta);
    const expired: Session[] = [];
    const gone: Session[] = [];
    for (const s of stored.sessions.values()) {
      if (isExpired(s)) {
        expired.push(s);
        continue;
      }
      const key = await keyStore.get(s.publicKeyHex);
      if (key) sessions.set(s.id, s);
      else gone.push(s);
    }
    for (const s of sessions.values()) pointAt(s.accountId, stored.current.get(s.accountId));
    lastAccountId = stored.lastAccountId !== undefined && current.has(stored.lastAccountId) ? stored.lastAccountId : [...current.keys()][0];
    for (const s of expired) {
      events.emit('expired', s);
      await removeStored(s).catch(() => undefined);
    }
    for (const s of gone) {
      events.emit('key-evicted', { session: s });
      await keyStore.meta.delete(SESSION_PREFIX + s.id).catch(() => undefined);
    }
    for (const accountId of new Set([...expired, ...gone].map((s) => s.accountId))) {
      if (current.has(accountId)) continue;
      await keyStore.meta.delete(CURRENT_PREFIX + accountId).catch(() => undefined);
      if (expired.some((s) => s.accountId === accountId && stored.current.get(accountId) === s.id)) {
        ended.set(accountId, 'expired');
        events.emit('logged-out', { accountId, reason: 'expired' });
      }
    }
    await cleanOrphans().catch(() => undefined);
    start();
    rescheduleAll();
  }

  function ensureLoaded(): Promise<void> {
    if (disposed) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'this wallet was disposed'));
    loaded ??= serial(load).catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  /** Listens to other tabs and to the page coming back (timers are throttled in background tabs). */
  function start(): void {
    if (started || disposed) return;
    started = true;
    crossTab.start();
    detach.push(onPageWake(() => void serial(() => syncFromStorage()).then(rescheduleAll, rescheduleAll)));
  }

  // ---- signing ----
  function noSession(accountId: string): WalletError {
    const why = ended.get(accountId);
    if (why === 'expired') return new WalletError('SESSION_EXPIRED', `the session of ${accountId} expired: log in again`);
    if (why === 'revoked') return new WalletError('SESSION_REVOKED', `the session of ${accountId} was ended elsewhere: log in again`);
    return new WalletError('NOT_LOGGED_IN', `no session for ${accountId} in this browser`);
  }

  function pick(accountId: string, opts: SignerOptions | undefined): Session {
    const exclude = opts?.excludeCredentialId;
    if (exclude === undefined) {
      const s = currentOf(accountId);
      if (!s) throw noSession(accountId);
      return s;
    }
    if (typeof exclude !== 'string' || exclude === '') throw invalidArgument('excludeCredentialId', 'a non-empty string');
    const cur = currentOf(accountId);
    const candidates = sessionsOf(accountId)
      .filter((s) => s.credentialId !== exclude && !isExpired(s))
      .sort((a, b) => (a === cur ? -1 : b === cur ? 1 : expiresAtMs(b) - expiresAtMs(a)));
    const chosen = candidates[0];
    if (chosen) return chosen;
    if (sessionsOf(accountId).length === 0) throw noSession(accountId);
    throw new WalletError('OTHER_CREDENTIAL_SESSION_REQUIRED');
  }

  async function keyOf(s: Session): Promise<StoredKey> {
    if (isExpired(s)) {
      await serial(() => expire(s));
      throw new WalletError('SESSION_EXPIRED');
    }
    try {
      return await loadBoundKey(keyStore, s, serverNow());
    } catch (error) {
      if (isWalletError(error, 'KEY_EVICTED')) await serial(() => evicted(s));
      throw error;
    }
  }

  async function resolve(accountId?: string, opts?: SignerOptions): Promise<{ session: Session; signer: Signer }> {
    await ensureLoaded();
    // Let queued state changes (an expiry noticed from the last answer's Date header) land first.
    await serial(async () => undefined);
    const account = accountOf(accountId);
    const session = pick(account, opts);
    const key = await keyOf(session);
    lastAccountId = account;
    if (autoRefresh && isCurrent(session) && serverNow() >= refreshAt(session)) evaluate(session);
    return { session, signer: signerFromKey(key) };
  }

  async function rejected(session: Session, error: WalletError): Promise<WalletError> {
    const suspicious = (error.status === 401 && error.code === 'WALLET_SIGNATURE_INVALID') || (error.status === 404 && error.code === 'SESSION_NOT_FOUND');
    if (!suspicious) return error;
    const status = error.status !== undefined ? { status: error.status } : {};
    // The answer's Date header may have just shown that the session expired meanwhile.
    if (serverNow() >= expiresAtMs(session)) {
      await serial(() => expire(session));
      return new WalletError('SESSION_EXPIRED', `${session.id} expired`, { cause: error, ...status });
    }
    if (!sessions.has(session.id)) return error;
    let active: AuthSession[];
    try {
      active = await list(session.accountId);
    } catch {
      return error;
    }
    if (active.some((a) => a.id === session.id)) return error;
    await serial(() => forget([session], 'revoked'));
    return new WalletError('SESSION_REVOKED', `the service no longer accepts ${session.id}`, { cause: error, ...status });
  }

  // ---- refresh ----
  async function refreshAccount(accountId: string, plan: KeyPlan | undefined, target: Session | undefined): Promise<Session> {
    const running = inFlight.get(accountId);
    if (running && plan === undefined) return running;
    const task = crossTab.withLock(`refresh:${accountId}`, async () => {
      await serial(() => syncFromStorage());
      const cur = currentOf(accountId);
      if (!cur) throw noSession(accountId);
      // Another tab refreshed while we waited for the lock: its result is ours now.
      if (target !== undefined && cur.id !== target.id && serverNow() < refreshAt(cur)) return cur;
      try {
        return await runRefresh(cur, plan);
      } catch (error) {
        const e = toWalletError(error);
        events.emit('refresh-failed', { session: cur, error: e });
        throw e;
      }
    });
    if (plan !== undefined) return task;
    inFlight.set(accountId, task);
    try {
      return await task;
    } finally {
      inFlight.delete(accountId);
    }
  }

  async function runRefresh(cur: Session, givenPlan: KeyPlan | undefined): Promise<Session> {
    const oldKey = await keyOf(cur);
    const plan = givenPlan ?? (await createKeyPlan());
    let answer: AuthSession;
    try {
      answer = await requestRefresh(client, cur.id, plan.clientPublicKey, signerFromKey(oldKey));
    } catch (error) {
      throw isWalletError(error) ? await rejected(cur, error) : error;
    }
    const key = await plan.finish(answer);
    observeCreatedAt(answer);
    const next = sessionFromAnswer(
      answer,
      { accountId: cur.accountId, credentialId: cur.credentialId, credentialType: cur.credentialType, publicKeyHex: key.publicKeyHex, legacy: plan.legacy },
      serverNow(),
    );
    await serial(async () => {
      await store(next, key);
      await removeStored(cur).catch(() => undefined);
      dropFromMemory(cur);
    });
    events.emit('refreshed', { previous: cur, session: next });
    crossTab.post();
    return next;
  }

  function observeCreatedAt(answer: AuthSession): void {
    const created = typeof answer.createdAt === 'string' ? Date.parse(answer.createdAt) : Number.NaN;
    if (Number.isFinite(created)) clock.observeServerTime(created);
  }

  // ---- service calls ----
  async function list(accountId?: string): Promise<AuthSession[]> {
    return listSessions(client, accountOf(accountId));
  }

  async function adopt(session: Session, key: SessionKey): Promise<void> {
    const parsed = parseStoredSession(session);
    if (!parsed) throw invalidArgument('session', 'a Session');
    if (typeof key !== 'object' || key === null || key.publicKeyHex !== parsed.publicKeyHex) {
      throw invalidArgument('key', 'the session key whose publicKeyHex is session.publicKeyHex');
    }
    await ensureLoaded();
    await serial(() => store(parsed, key));
    events.emit('session', parsed);
    crossTab.post();
  }

  const manager: ManagedSessions = {
    clock,
    current(accountId) {
      const account = accountId ?? lastAccountId;
      if (account === undefined) return null;
      return currentOf(account) ?? null;
    },
    all() {
      return [...sessions.values()].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    },
    adopt,
    async establish(answer, known) {
      const parsed = parseAuthSession(answer);
      observeCreatedAt(parsed);
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
      const account = accountOf(accountId);
      return refreshAccount(account, plan, undefined);
    },
    async logout(accountId) {
      await ensureLoaded();
      if (accountId === undefined && lastAccountId === undefined) return;
      const account = accountOf(accountId);
      const held = sessionsOf(account);
      if (held.length === 0) return;
      await Promise.allSettled(
        held.filter((s) => !isExpired(s)).map(async (s) => {
          const key = await keyStore.get(s.publicKeyHex);
          if (key) await deleteSession(client, s.id, signerFromKey(key));
        }),
      );
      // Every session of the account goes, so forget() also drops its current pointer and tells the other tabs.
      await serial(() => forget(held.filter((s) => sessions.has(s.id)), undefined));
      events.emit('logged-out', { accountId: account, reason: 'user' });
    },
    async forget(sessionIds, reason = 'revoked') {
      if (!Array.isArray(sessionIds) || !sessionIds.every((id) => typeof id === 'string')) throw invalidArgument('sessionIds', 'an array of Session ids');
      await ensureLoaded();
      await serial(() => forget(sessionIds.flatMap((id) => sessions.get(id) ?? []), reason));
    },
    async list(accountId) {
      await ensureLoaded();
      return list(accountId);
    },
    async signOutOtherDevices(accountId) {
      await ensureLoaded();
      const account = accountOf(accountId);
      await serial(() => syncFromStorage());
      const { session, signer } = await resolve(account);
      const mine = new Set(sessionsOf(account).map((s) => s.id));
      const others = (await list(account)).filter((a) => !mine.has(a.id));
      let count = 0;
      for (const other of others) {
        try {
          if (await deleteSession(client, other.id, signer)) count++;
        } catch (error) {
          throw isWalletError(error) ? await rejected(session, error) : error;
        }
      }
      return count;
    },
    async restore() {
      const first = loaded === undefined;
      await ensureLoaded();
      if (!first) await serial(() => syncFromStorage());
      return manager.all();
    },
    rejected,
    on(event, listener) {
      return events.on(event, listener);
    },
    serverNow,
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      for (const d of detach.splice(0)) d();
      crossTab.close();
      events.clear();
    },
  };
  return manager;
}
