/**
 * The world of the session model test: several tabs (session managers) over one shared key/record
 * backend, one lock manager, one BroadcastChannel and one fake clock with timers, and a scripted
 * service whose every request waits until the test answers it (delivered, lost after processing,
 * dropped before arriving; a signature's prompt approved or refused first).
 */
import { generateSessionKey, type SessionKey } from '../../../src/crypto/index.js';
import { WalletError } from '../../../src/errors.js';
import { createKeyStore, type KeyStore, type KeyStoreBackend } from '../../../src/keys/index.js';
import type { ChannelLike, LockManagerLike, SessionHost, SessionService, SigningOptions } from '../../../src/session/index.js';
import type { SessionSigner } from '../../../src/session/service.js';
import type { AuthSession } from '../../../src/types.js';

export const MINUTE = 60_000;
export const LIFETIME = 15 * MINUTE;

/** A Map backend whose contents the test can read synchronously. */
export function openBackend(): KeyStoreBackend & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return {
    kind: 'memory',
    map,
    get: async (k) => map.get(k),
    set: async (k, v) => void map.set(k, v),
    delete: async (k) => void map.delete(k),
    entries: async () => [...map.entries()],
    clear: async () => map.clear(),
  };
}

/** A key store whose `put` (which checks the key pair with WebCrypto, off the event loop) is counted. */
export function countedKeyStore(backend: KeyStoreBackend, busy: { n: number }): KeyStore {
  const store = createKeyStore({ backend });
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'put') return Reflect.get(target, prop, receiver);
      return async (record: Parameters<KeyStore['put']>[0]) => {
        busy.n++;
        try {
          return await target.put(record);
        } finally {
          busy.n--;
        }
      };
    },
  });
}

/** Shared Web Locks (exclusive and shared modes, granted in request order); a closed tab's waiters are dropped and its locks released. */
export class Locks {
  private readonly state = new Map<string, { holders: Map<symbol, number>; exclusive: boolean; queue: Array<{ tab: number; mode: 'exclusive' | 'shared'; grant: () => void }> }>();

  forTab(tab: number): LockManagerLike {
    return {
      request: <T>(name: string, options: { mode: 'exclusive' | 'shared' }, callback: () => Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          const s = this.slot(name);
          s.queue.push({
            tab,
            mode: options.mode,
            grant: () => {
              const token = Symbol(name);
              s.holders.set(token, tab);
              const release = (): void => {
                if (!s.holders.delete(token)) return;
                this.pump(name);
              };
              Promise.resolve()
                .then(callback)
                .then(
                  (v) => (release(), resolve(v)),
                  (e: unknown) => (release(), reject(e)),
                );
            },
          });
          this.pump(name);
        }),
    };
  }

  private slot(name: string) {
    let s = this.state.get(name);
    if (!s) {
      s = { holders: new Map(), exclusive: false, queue: [] };
      this.state.set(name, s);
    }
    return s;
  }

  private pump(name: string): void {
    const s = this.slot(name);
    while (s.queue.length > 0) {
      const next = s.queue[0]!;
      if (s.holders.size > 0 && (s.exclusive || next.mode === 'exclusive')) break;
      s.queue.shift();
      s.exclusive = next.mode === 'exclusive';
      next.grant();
    }
  }

  close(tab: number): void {
    for (const [name, s] of this.state) {
      s.queue.splice(0, s.queue.length, ...s.queue.filter((w) => w.tab !== tab));
      for (const [token, holder] of [...s.holders]) if (holder === tab) s.holders.delete(token);
      this.pump(name);
    }
  }
}

/** One BroadcastChannel name shared by every tab; messages arrive in a later microtask. */
export class Bus {
  private readonly open = new Set<ChannelLike>();
  sent = 0;

  channel(): ChannelLike {
    const bus = this;
    const ch: ChannelLike = {
      onmessage: null,
      postMessage(message) {
        bus.sent++;
        const data = structuredClone(message);
        for (const other of bus.open) if (other !== ch) queueMicrotask(() => other.onmessage?.({ data }));
      },
      close() {
        bus.open.delete(ch);
      },
    };
    this.open.add(ch);
    return ch;
  }
}

/** The local clock (also the service's: no skew) and timers fired when the test moves it. */
export class Clock {
  now = Date.parse('2030-01-01T00:00:00.000Z');
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void; tab: number }>();

  set(tab: number, fn: () => void, ms: number): number {
    const id = ++this.seq;
    this.timers.set(id, { at: this.now + ms, fn, tab });
    return id;
  }

  clear(id: unknown): void {
    this.timers.delete(id as number);
  }

  /** Moves the clock, firing due timers in time order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = Math.max(this.now, due[1].at);
      due[1].fn();
    }
    this.now = end;
  }
}

/** Fresh keys made before the runs (WebCrypto work stays out of the interleavings). */
export async function keyPool(n: number): Promise<SessionKey[]> {
  return Promise.all(Array.from({ length: n }, () => generateSessionKey()));
}

export type Origin = 'login' | 'refresh' | 'elsewhere';

export interface ServiceSession {
  id: string;
  accountId: string;
  publicKeyHex: string;
  origin: Origin;
  createdAt: number;
  expiresAt: number;
  ended?: { by: 'browser' | 'elsewhere'; at: number };
  /** The tab whose request made it. */
  tab: number;
  /** The answer that created it reached the browser. */
  delivered: boolean;
  /** The test's step counter when the login that made it started (-1 for refreshes). */
  startedAt: number;
  /** Its tab closed after the answer came but before the session was stored or undone. */
  orphaned: boolean;
  /** A request of this browser to end it never arrived (refused at the prompt, dropped, or its tab closed first). */
  endLost: boolean;
}

export type Answer = 'deliver' | 'lose' | 'drop' | 'refuse';

interface Pending {
  tab: number;
  kind: 'list' | 'end' | 'refresh' | 'login';
  /** 'prompt': the signature is not sent yet (onBeforeSign); 'signing': approved, the signer being resolved; 'wire': sent, awaiting processing. */
  stage: 'prompt' | 'signing' | 'wire';
  /** Who signs: given, or asked after the prompt (as the transport's getSigner). */
  signer?: SessionSigner;
  /** The key the request was signed with, once it left. */
  signedBy?: string;
  process: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  refreshOf?: string;
  endOf?: string;
}

/** The service, scripted: state plus requests held until `answer`. */
export class ScriptedService {
  readonly sessions = new Map<string, ServiceSession>();
  readonly pending: Pending[] = [];
  readonly usedKeys = new Set<string>();
  /** Violations of "one refresh per session" seen when a refresh request was sent. */
  readonly doubleRefreshes: string[] = [];
  private readonly refreshState = new Map<string, 'in-flight' | 'done'>();
  private ids = 0;

  constructor(private readonly clock: Clock) {}

  active(s: ServiceSession): boolean {
    return s.ended === undefined && this.clock.now < s.expiresAt;
  }

  /** The test's step counter (orders logins against logout calls). */
  step = 0;

  private create(accountId: string, publicKeyHex: string, origin: Origin, tab: number): ServiceSession {
    if (this.usedKeys.has(publicKeyHex)) throw new WalletError('INVALID_INPUT', 'public key already backs a session', { status: 400 });
    this.usedKeys.add(publicKeyHex);
    const s: ServiceSession = { id: `Session:${++this.ids}`, accountId, publicKeyHex, origin, tab, createdAt: this.clock.now, expiresAt: this.clock.now + LIFETIME, delivered: false, startedAt: -1, orphaned: false, endLost: false };
    this.sessions.set(s.id, s);
    return s;
  }

  toAuthSession(s: ServiceSession): AuthSession {
    const at = new Date(s.createdAt).toISOString();
    return { id: s.id, accountId: s.accountId, type: 'EMAIL_OTP', nickname: 'user@example.com', createdAt: at, updatedAt: at, expiresAt: new Date(s.expiresAt).toISOString() };
  }

  /** Another device of the user logs in (its session is not this browser's). */
  elsewhere(accountId: string, publicKeyHex: string): void {
    this.create(accountId, publicKeyHex, 'elsewhere', -1);
  }

  /** Another device signs out this browser's session (or any other). */
  endElsewhere(s: ServiceSession): void {
    if (this.active(s)) s.ended = { by: 'elsewhere', at: this.clock.now };
  }

  private signerOk(accountId: string, publicKeyHex: string): boolean {
    return [...this.sessions.values()].some((s) => s.accountId === accountId && s.publicKeyHex === publicKeyHex && this.active(s));
  }

  private hold<T>(p: Omit<Pending, 'resolve' | 'reject'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = Object.assign(p, { resolve: resolve as (v: unknown) => void, reject });
      if (p.signal?.aborted) return reject(p.signal.reason);
      p.signal?.addEventListener('abort', () => {
        if (entry.stage !== 'prompt') return; // a request being signed or on the wire is never aborted
        this.pending.splice(this.pending.indexOf(entry), 1);
        reject(p.signal?.reason);
      });
      this.pending.push(entry);
      if (p.stage === 'signing') void this.sign(entry);
    });
  }

  /** An approved signature: the signer is resolved now (after the prompt), then the leg is sent. */
  private async sign(p: Pending): Promise<void> {
    let key: string;
    try {
      const signer = typeof p.signer === 'function' ? await p.signer() : p.signer!;
      key = signer.publicKeyHex;
    } catch (error) {
      if (this.pending.includes(p)) this.pending.splice(this.pending.indexOf(p), 1);
      this.lostEnd(p);
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      return p.reject(error);
    }
    if (!this.pending.includes(p)) return; // its tab closed meanwhile
    if (p.signal?.aborted) {
      this.pending.splice(this.pending.indexOf(p), 1);
      this.lostEnd(p);
      return p.reject(p.signal.reason);
    }
    p.signedBy = key;
    p.stage = 'wire';
    if (p.kind === 'refresh') this.sent(p.refreshOf!);
    this.signedSent.push({ tab: p.tab, kind: p.kind, key, at: this.step });
  }

  /** Every signature that left the browser: which key, when (for the logout invariants). */
  readonly signedSent: Array<{ tab: number; kind: string; key: string; at: number }> = [];

  /** A login's verify: the session exists once processed. */
  login(tab: number, accountId: string, key: SessionKey, startedAt: number): Promise<AuthSession & { _s: ServiceSession }> {
    return this.hold({ tab, kind: 'login', stage: 'wire', process: () => {
      const s = this.create(accountId, key.publicKeyHex, 'login', tab);
      s.startedAt = startedAt;
      return { ...this.toAuthSession(s), _s: s };
    } });
  }

  forTab(tab: number): SessionService {
    return {
      list: (accountId) => this.hold({ tab, kind: 'list', stage: 'wire', process: () => [...this.sessions.values()].filter((s) => s.accountId === accountId && this.active(s)).map((s) => this.toAuthSession(s)) }),
      end: (sessionId, signer, options?: SigningOptions) => {
        const p: Omit<Pending, 'resolve' | 'reject'> = { tab, kind: 'end', stage: options?.approved ? 'signing' : 'prompt', signer, endOf: sessionId, ...(options?.signingSignal && { signal: options.signingSignal }), process: () => {
          const s = this.sessions.get(sessionId);
          if (!s || !this.signerOk(s.accountId, p.signedBy!)) throw new WalletError('WALLET_SIGNATURE_INVALID', 'no active session has this key', { status: 401 });
          if (!this.active(s)) return false;
          s.ended = { by: 'browser', at: this.clock.now };
          return true;
        } };
        return this.hold(p);
      },
      refresh: (sessionId, clientPublicKey, signer, options?: SigningOptions) => {
        const p: Omit<Pending, 'resolve' | 'reject'> = { tab, kind: 'refresh', stage: 'prompt', signer, refreshOf: sessionId, ...(options?.signingSignal && { signal: options.signingSignal }), process: () => {
          const old = this.sessions.get(sessionId);
          if (!old || !this.active(old) || old.publicKeyHex !== p.signedBy) throw new WalletError('WALLET_SIGNATURE_INVALID', 'not signed by an active session', { status: 401 });
          const s = this.create(old.accountId, clientPublicKey, 'refresh', tab);
          return this.toAuthSession(s);
        } };
        return this.hold(p);
      },
    };
  }

  /** Answers the pending request at `index` (modulo the queue's length). */
  answer(index: number, how: Answer): void {
    if (this.pending.length === 0) return;
    const p = this.pending[index % this.pending.length]!;
    if (p.stage === 'signing') return;
    if (p.stage === 'prompt') {
      if (how === 'refuse') {
        this.pending.splice(this.pending.indexOf(p), 1);
        this.lostEnd(p);
        p.reject(new WalletError('SIGNING_REFUSED', 'refused'));
        return;
      }
      p.stage = 'signing'; // approved: the signer is resolved, then the signed leg is on its way
      void this.sign(p);
      return;
    }
    this.pending.splice(this.pending.indexOf(p), 1);
    if (how === 'drop') {
      this.lostEnd(p);
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      return p.reject(new WalletError('NETWORK_ERROR', 'dropped before arriving'));
    }
    let result: unknown;
    try {
      result = p.process();
    } catch (error) {
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      return how === 'lose' ? p.reject(new WalletError('TIMEOUT', 'answer lost')) : p.reject(error);
    }
    if (p.kind === 'refresh') {
      if (how === 'deliver') this.refreshState.set(p.refreshOf!, 'done');
      else this.refreshState.delete(p.refreshOf!);
    }
    const made = p.kind === 'login' ? (result as { _s: ServiceSession })._s : p.kind === 'refresh' ? this.sessions.get((result as AuthSession).id) : undefined;
    if (how === 'lose') return p.reject(new WalletError('TIMEOUT', 'answer lost'));
    if (made) made.delivered = true;
    p.resolve(result);
  }

  private lostEnd(p: Pending): void {
    const target = p.endOf === undefined ? undefined : this.sessions.get(p.endOf);
    if (target) target.endLost = true;
  }

  private sent(sessionId: string): void {
    if (this.refreshState.has(sessionId)) this.doubleRefreshes.push(`${sessionId} refreshed again while ${this.refreshState.get(sessionId)}`);
    this.refreshState.set(sessionId, 'in-flight');
  }

  /**
   * A closed tab's requests: those on the wire arrive (processed, answer lost) or not; prompts
   * vanish. Sessions its answers made that it had not stored (`held`) are orphaned: no one can end them.
   */
  closeTab(tab: number, arrived: boolean, held: ReadonlySet<string>): void {
    for (const s of this.sessions.values()) if (s.tab === tab && s.delivered && !held.has(s.id) && s.ended === undefined) s.orphaned = true;
    for (const p of this.pending.filter((x) => x.tab === tab)) {
      this.pending.splice(this.pending.indexOf(p), 1);
      if (p.stage !== 'wire' || !arrived) this.lostEnd(p);
      if (p.stage === 'wire' && arrived) {
        try {
          p.process();
        } catch {
          // refused by the service: nothing happened
        }
      }
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
    }
  }
}

/** The host of one simulated tab. */
export function tabHost(tab: number, clock: Clock, locks: Locks, bus: Bus, nextKey: () => SessionKey): Partial<SessionHost> {
  return {
    locks: () => locks.forTab(tab),
    openChannel: () => bus.channel(),
    setTimer: (fn, ms) => clock.set(tab, fn, ms),
    clearTimer: (id) => clock.clear(id),
    onWake: () => () => undefined,
    newKeyPlan: async () => {
      const key = nextKey();
      return { clientPublicKey: key.publicKeyHex, legacy: false, finish: async () => key };
    },
  };
}
