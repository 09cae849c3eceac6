/**
 * The surroundings of the session model test's tabs: one shared key/record backend, one lock manager
 * (or localStorage leases), one BroadcastChannel, one fake clock with timers, and each tab's host.
 * The scripted service is in scripted-service.ts.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { generateSessionKey, type SessionKey } from '../../../src/crypto/index.js';
import { createKeyStore, type KeyStore, type KeyStoreBackend } from '../../../src/keys/index.js';
import type { ChannelLike, LockManagerLike, SessionHost } from '../../../src/session/index.js';
import { createLeaseLocks, type LeaseStorage } from '../../../src/session/storage-lock.js';

export const MINUTE = 60_000;
export const LIFETIME = 15 * MINUTE;

/**
 * The `logout()` call (its number) whose work is running, for the requests it makes (S14). Work one
 * tab hands another (a message, a storage event) starts outside any call, and a lock's callback runs
 * in its requester's call, not in the one that released the lock.
 */
export const logoutCall = new AsyncLocalStorage<number>();

/** A Map backend whose contents the test can read synchronously. */
export function openBackend(): KeyStoreBackend & { map: Map<string, unknown>; failWrites: number } {
  const map = new Map<string, unknown>();
  const backend = {
    kind: 'memory' as const,
    map,
    /** The next this-many writes fail (a full or broken storage). */
    failWrites: 0,
    get: async (k: string) => map.get(k),
    set: async (k: string, v: unknown) => {
      if (backend.failWrites > 0) {
        backend.failWrites--;
        throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
      }
      map.set(k, v);
    },
    delete: async (k: string) => void map.delete(k),
    entries: async () => [...map.entries()],
    clear: async () => map.clear(),
  };
  return backend;
}

/** A key store whose `put` (which checks the key pair with WebCrypto, off the event loop) is counted; `now` dates its keys (the tabs' wall clock). */
export function countedKeyStore(backend: KeyStoreBackend, busy: { n: number }, now?: () => number): KeyStore {
  const store = createKeyStore({ backend, ...(now && { now }) });
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
            grant: AsyncResource.bind(() => {
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
            }),
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
  /** The logouts each tab announced as its user's (`loggedOut`), in the order posted (I1: memory tabs). */
  readonly userLogouts: Array<{ tab: number; account: string }> = [];

  channel(tab = -1): ChannelLike {
    const bus = this;
    const ch: ChannelLike = {
      onmessage: null,
      postMessage(message) {
        bus.sent++;
        const data = structuredClone(message);
        const m = data as { account?: unknown; loggedOut?: unknown };
        if (m.loggedOut === true && typeof m.account === 'string') bus.userLogouts.push({ tab, account: m.account });
        for (const other of bus.open) if (other !== ch) logoutCall.exit(() => queueMicrotask(() => other.onmessage?.({ data })));
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

  /** A closed tab's timers never fire. */
  closeTab(tab: number): void {
    for (const [id, t] of this.timers) if (t.tab === tab) this.timers.delete(id);
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

/** One origin's localStorage for the lease locks (I7): synchronous, its event reaching the other tabs. */
export class LeaseBoard {
  readonly map = new Map<string, string>();
  private readonly listeners = new Map<number, Set<(k: string | null, v: string | null) => void>>();

  forTab(tab: number): LeaseStorage {
    const fire = (k: string, v: string | null): void => {
      for (const [t, set] of this.listeners) if (t !== tab) for (const l of set) logoutCall.exit(() => queueMicrotask(() => l(k, v)));
    };
    return {
      get: (k) => this.map.get(k) ?? null,
      set: (k, v) => (this.map.set(k, v), fire(k, v)),
      remove: (k) => (this.map.delete(k), fire(k, null)),
      subscribe: (l) => {
        const set = this.listeners.get(tab) ?? new Set();
        this.listeners.set(tab, set);
        set.add(l);
        return () => set.delete(l);
      },
    };
  }

  closeTab(tab: number): void {
    this.listeners.delete(tab);
  }
}

/** How the simulated browser coordinates tabs (I7). */
export interface Coordination {
  locks: 'web' | 'lease';
  channel: boolean;
}

/** The host of one simulated tab. */
export function tabHost(
  tab: number,
  world: { clock: Clock; locks: Locks; bus: Bus; board: LeaseBoard; busy: { n: number }; coordination: Coordination; wakes: Map<number, () => void> },
  nextKey: () => SessionKey,
): Partial<SessionHost> {
  const { clock, coordination } = world;
  const lease =
    coordination.locks === 'lease'
      ? createLeaseLocks({
          storage: world.board.forTab(tab),
          owner: `tab${tab}`,
          now: () => clock.now,
          // Writes are synchronous here: no two tabs write at once, so no settling wait (counted busy so flush waits).
          sleep: () => {
            world.busy.n++;
            return new Promise<void>((r) => setImmediate(() => (world.busy.n--, r())));
          },
          setTimer: (fn, ms) => clock.set(tab, fn, ms),
          clearTimer: (id) => clock.clear(id),
          settleMs: 0,
        })
      : undefined;
  return {
    locks: () => lease ?? world.locks.forTab(tab),
    openChannel: () => (coordination.channel ? world.bus.channel(tab) : undefined),
    setTimer: (fn, ms) => clock.set(tab, fn, ms),
    clearTimer: (id) => clock.clear(id),
    onWake: (wake) => {
      world.wakes.set(tab, wake);
      return () => world.wakes.delete(tab);
    },
    monotonicNow: () => clock.now,
    newKeyPlan: async () => {
      const key = nextKey();
      return { clientPublicKey: key.publicKeyHex, legacy: false, finish: async () => key };
    },
  };
}
