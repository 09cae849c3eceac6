// What the fast tests of manager.ts and follow.ts share: session managers ("tabs") driven through
// their real API over fakes of the platform — one shared in-memory key/record backend, Web Locks
// (model/harness.ts's Locks), one BroadcastChannel (its Bus, or none), a clock whose timers the
// test fires and can read (which delay each was set with) — and a small service double that answers
// at once (list, end, refresh; what it holds is the test's input). Real session keys, real
// WebCrypto signatures. Not a test file.
import { generateSessionKey, type SessionKey } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import { createKeyStore, type KeyStore, type KeyStoreBackend } from '../../src/keys/index.js';
import type { SessionService, SessionSigner, SigningOptions } from '../../src/session/service.js';
import { createSessionManager } from '../../src/session/manager.js';
import type { ManagedSessions, Session, SessionEvents, SessionManagerOptions } from '../../src/session/types.js';
import { createClient } from '../../src/transport/index.js';
import type { AuthSession } from '../../src/types.js';
import { Bus, Locks, openBackend } from './model/harness.js';

export const T0 = Date.parse('2030-01-01T00:00:00.000Z');
export const LIFETIME_MS = 15 * 60_000;
export const ACCOUNT = 'InternalAccount:tabs-a';
export const OTHER = 'InternalAccount:tabs-b';

export interface Timer {
  id: number;
  tab: number;
  at: number;
  ms: number;
  fn: () => void;
}

/** The local clock (the service's too) and every tab's timers, fired when the test moves it. */
export class Timers {
  now = T0;
  private seq = 0;
  readonly live = new Map<number, Timer>();

  set(tab: number, fn: () => void, ms: number): number {
    const id = ++this.seq;
    this.live.set(id, { id, tab, at: this.now + ms, ms, fn });
    return id;
  }

  clear(id: unknown): void {
    this.live.delete(id as number);
  }

  /** The delays of the tab's pending timers, sorted. */
  delays(tab: number): number[] {
    return [...this.live.values()].filter((t) => t.tab === tab).map((t) => t.ms).sort((a, b) => a - b);
  }

  /** Moves the clock, firing due timers in time order (the callbacks' async work is not awaited). */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.live.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.live.delete(due.id);
      this.now = Math.max(this.now, due.at);
      due.fn();
    }
    this.now = end;
  }
}

interface Held {
  auth: AuthSession;
  publicKeyHex: string;
  ended: boolean;
}

/** The service, answering at once. `offline` makes every call fail as the network would. */
export class FakeService implements SessionService {
  readonly held = new Map<string, Held>();
  /** Every call: kind, session id (or account), the key that signed, the options given. */
  readonly calls: Array<{ kind: 'list' | 'end' | 'refresh'; id: string; key?: string; options?: SigningOptions }> = [];
  offline = false;
  /** When set, every call fails with it without reaching the service (the app's proxy refusing: 401 LOGIN_REQUIRED, 403). */
  refusal: WalletError | undefined;
  /** Refreshes wait for this (when set) before answering: a refresh on the wire. */
  gate: Promise<void> | undefined;
  private ids = 0;

  constructor(private readonly timers: Timers) {}

  /** A session the service makes for a login (or another device's). */
  make(accountId: string, publicKeyHex: string): AuthSession {
    const at = new Date(this.timers.now).toISOString();
    const auth: AuthSession = { id: `Session:${++this.ids}`, accountId, type: 'EMAIL_OTP', nickname: 'user@example.com', createdAt: at, updatedAt: at, expiresAt: new Date(this.timers.now + LIFETIME_MS).toISOString() };
    this.held.set(auth.id, { auth, publicKeyHex, ended: false });
    return auth;
  }

  active(id: string): boolean {
    const h = this.held.get(id);
    return h !== undefined && !h.ended && this.timers.now < Date.parse(h.auth.expiresAt);
  }

  private async signer(signer: SessionSigner): Promise<string> {
    const s = typeof signer === 'function' ? await signer() : signer;
    await s.sign(new Uint8Array([1, 2, 3]));
    return s.publicKeyHex;
  }

  async list(accountId: string): Promise<AuthSession[]> {
    this.calls.push({ kind: 'list', id: accountId });
    if (this.refusal) throw this.refusal;
    if (this.offline) throw new WalletError('NETWORK_ERROR', 'offline');
    return [...this.held.values()].filter((h) => h.auth.accountId === accountId && this.active(h.auth.id)).map((h) => h.auth);
  }

  async end(sessionId: string, signer: SessionSigner, options?: SigningOptions): Promise<boolean> {
    const key = await this.signer(signer);
    this.calls.push({ kind: 'end', id: sessionId, key, ...(options && { options }) });
    if (this.refusal) throw this.refusal;
    if (this.offline) throw new WalletError('NETWORK_ERROR', 'offline');
    if (!this.active(sessionId)) return false;
    this.held.get(sessionId)!.ended = true;
    return true;
  }

  async refresh(sessionId: string, clientPublicKey: string, signer: SessionSigner, options?: SigningOptions): Promise<AuthSession> {
    const key = await this.signer(signer);
    this.calls.push({ kind: 'refresh', id: sessionId, key, ...(options && { options }) });
    await this.gate;
    if (this.refusal) throw this.refusal;
    if (this.offline) throw new WalletError('NETWORK_ERROR', 'offline');
    const old = this.held.get(sessionId);
    if (!old || !this.active(sessionId) || old.publicKeyHex !== key) throw new WalletError('WALLET_SIGNATURE_INVALID', 'not signed by an active session', { status: 401 });
    return this.make(old.auth.accountId, clientPublicKey);
  }
}

export interface Tab {
  id: number;
  manager: ManagedSessions;
  keyStore: KeyStore;
  events: Array<[keyof SessionEvents, unknown]>;
  /** The page-wake callback the manager registered (undefined before it loads or after dispose). */
  wake: (() => void) | undefined;
  /** How many times the manager registered a page-wake callback. */
  wakesRegistered: number;
  channelsOpened: string[];
  /** Names of the locks the manager asked the shared lock manager for. */
  lockNames: string[];
}

export interface PlatformOptions {
  /** Tabs share a BroadcastChannel (default true). */
  channel?: boolean;
}

const EVENTS: Array<keyof SessionEvents> = ['session', 'expiring', 'expired', 'refreshed', 'refresh-failed', 'logged-out', 'key-evicted', 'storage-fallback', 'refreshing', 'changed', 'end-refused'];

/** One browser: shared storage, locks, channel and clock; `tab()` opens a manager over them. */
export function platform(opts: PlatformOptions = {}) {
  const timers = new Timers();
  const locks = new Locks();
  const bus = new Bus();
  const backend = openBackend();
  const service = new FakeService(timers);
  const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
  const tabs: Tab[] = [];

  function tab(over: Partial<SessionManagerOptions> & { keyStore?: KeyStore; backend?: KeyStoreBackend } = {}): Tab {
    const id = tabs.length;
    const keyStore = over.keyStore ?? createKeyStore({ backend: over.backend ?? backend, now: () => timers.now });
    const t: Tab = { id, keyStore, events: [], channelsOpened: [], lockNames: [], wakesRegistered: 0, wake: undefined, manager: undefined as never };
    const { keyStore: _k, backend: _b, host, ...rest } = over;
    t.manager = createSessionManager({
      client,
      keyStore,
      now: () => timers.now,
      service,
      host: {
        locks: () => {
          const shared = locks.forTab(id);
          return { request: (name, options, fn) => (t.lockNames.push(name), shared.request(name, options, fn)) };
        },
        openChannel: (name) => {
          t.channelsOpened.push(name);
          return opts.channel === false ? undefined : bus.channel();
        },
        setTimer: (fn, ms) => timers.set(id, fn, ms),
        clearTimer: (h) => timers.clear(h),
        onWake: (wake) => {
          t.wake = wake;
          t.wakesRegistered++;
          return () => (t.wake = undefined);
        },
        monotonicNow: () => timers.now,
        newKeyPlan: async () => {
          const key = await generateSessionKey();
          return { clientPublicKey: key.publicKeyHex, legacy: false, finish: async () => key };
        },
        ...host,
      },
      ...rest,
    });
    for (const name of EVENTS) t.manager.on(name, (e: unknown) => void t.events.push([name, e]));
    tabs.push(t);
    return t;
  }

  /** Logs `t` in to `accountId` as a login flow does (loggingIn + establish); returns the session. */
  async function login(t: Tab, accountId = ACCOUNT, credentialId = 'AuthMethod:1'): Promise<Session> {
    const key = await generateSessionKey();
    return t.manager.loggingIn(accountId, async (ticket) => {
      const answer = service.make(accountId, key.publicKeyHex);
      return t.manager.establish(answer, { accountId, credentialId, credentialType: 'EMAIL_OTP', key, ticket });
    });
  }

  return { timers, locks, bus, backend, service, client, tabs, tab, login };
}

export { until } from '../helpers/wait-for.js';

export const named = (t: Tab, name: keyof SessionEvents): unknown[] => t.events.filter(([n]) => n === name).map(([, e]) => e);

export async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code ?? `not a WalletError: ${String(error)}`;
  }
}

export type { SessionKey };
