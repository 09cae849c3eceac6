/**
 * The fallback when a browser has no Web Locks (invariant I7, INVARIANTS.md): a lock shared by the
 * tabs of an origin, emulated with leases in `localStorage`, and a channel over its `storage` event
 * when there is no BroadcastChannel.
 *
 * The lock: `lock:<name>` holds `{ owner, until }`. A tab takes a free (absent or lapsed) lease by
 * writing its own, waits `settleMs`, and holds the lock only if its write is still there (two tabs
 * writing at once: the later write wins, the earlier sees it and waits). It renews the lease while
 * it holds the lock and removes it on release. Waiters try again when the record changes (the
 * `storage` event) and when the lease they saw lapses. A tab that closes while holding a lease
 * blocks the others until the lease lapses (`leaseMs`). Shared requests are served as exclusive
 * (only logins take one; they then run one at a time). Within one page the realm's own queue
 * orders requests first, so at most one request per name per page contends for the lease.
 * Decision: localStorage writes of different tabs are not transactions, so this exclusion is
 * best effort; correctness does not rest on it (every commit re-checks its snapshot and a stale one
 * undoes itself with the new session's own key) — it keeps tabs from doing the same work twice and
 * makes a logout wait for a refresh on the wire in another tab.
 */

/** Structurally host.ts's LockManagerLike and ChannelLike (not imported: host.ts imports this file). */
interface LockManagerLike {
  request<T>(name: string, options: { mode: 'exclusive' | 'shared' }, callback: () => Promise<T>): Promise<T>;
}
interface ChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/** The part of `localStorage` (and its `storage` event) the fallback uses. */
export interface LeaseStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
  /** Calls `listener` with the key another tab changed and its new value; returns the detacher. */
  subscribe(listener: (key: string | null, value: string | null) => void): () => void;
}

export interface LeaseOptions {
  storage: LeaseStorage;
  /** The tab's id (unique per tab). */
  owner: string;
  /** Wall clock for the leases (default Date.now). */
  now?: () => number;
  /** Waits (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  leaseMs?: number;
  settleMs?: number;
  /**
   * The error a request fails with when localStorage refuses the lease (a quota, a read that
   * throws): host.ts gives KEY_STORAGE_UNAVAILABLE (S7). Passed in rather than imported so that
   * this chunk, loaded on first use, shares no module with the startup code (a shared errors.ts
   * made Vite split its startup chunk in two: `npm run size`). Default: the cause itself.
   */
  refused?: (cause: unknown) => Error;
}

interface Lease {
  owner: string;
  until: number;
}

function parse(value: string | null): Lease | undefined {
  if (value === null) return undefined;
  try {
    const v = JSON.parse(value) as Partial<Lease>;
    return typeof v.owner === 'string' && typeof v.until === 'number' ? { owner: v.owner, until: v.until } : undefined;
  } catch {
    return undefined;
  }
}

export function createLeaseLocks(options: LeaseOptions): LockManagerLike {
  const { storage } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const setTimer = options.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const leaseMs = options.leaseMs ?? 5000;
  const settleMs = options.settleMs ?? 25;
  const queues = new Map<string, Promise<unknown>>();
  let seq = 0;

  /** Resolves when the record may have become free: it changed, or the lease seen lapses. */
  function change(key: string, seen: Lease): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        detach();
        clearTimer(timer);
        resolve();
      };
      const detach = storage.subscribe((k) => {
        if (k === key || k === null) done();
      });
      const timer = setTimer(done, Math.min(Math.max(0, seen.until - now()), leaseMs) + 1);
    });
  }

  async function acquire(key: string, me: string): Promise<void> {
    for (;;) {
      const held = parse(storage.get(key));
      // A lease ending more than two lease lengths ahead was written before the clock was set back:
      // judged lapsed (else a tab that closed holding it would block the others for as long as the
      // clock moved; I6). No tab writes one further than one length ahead; the second leaves a live
      // holder's lease alone when the clock steps back by less than that. A live holder renews on the new clock.
      if (held === undefined || held.until <= now() || held.until - now() > 2 * leaseMs) {
        storage.set(key, JSON.stringify({ owner: me, until: now() + leaseMs }));
        await sleep(settleMs);
        if (parse(storage.get(key))?.owner === me) return;
        continue;
      }
      await change(key, held);
    }
  }

  async function leased<T>(name: string, callback: () => Promise<T>): Promise<T> {
    const key = `lock:${name}`;
    const me = `${options.owner}:${++seq}`;
    try {
      await acquire(key, me);
    } catch (cause) {
      // localStorage refusing a write (quota) or a read: the caller's typed error (S7).
      throw options.refused ? options.refused(cause) : cause;
    }
    let renew: unknown;
    const keep = (): void => {
      renew = setTimer(() => {
        try {
          if (parse(storage.get(key))?.owner !== me) return;
          storage.set(key, JSON.stringify({ owner: me, until: now() + leaseMs }));
        } catch {
          // Not renewed this time (a quota error): tried again at the next tick, so one refused write
          // does not give the lock away; storage that keeps refusing lets the lease lapse, as for a tab that stalled.
        }
        keep();
      }, leaseMs / 3);
    };
    keep();
    try {
      return await callback();
    } finally {
      clearTimer(renew);
      try {
        if (parse(storage.get(key))?.owner === me) storage.remove(key);
      } catch {
        // left to lapse
      }
    }
  }

  return {
    request<T>(name: string, _options: { mode: 'exclusive' | 'shared' }, callback: () => Promise<T>): Promise<T> {
      const enter = (): Promise<T> => leased(name, callback);
      const previous = queues.get(name) ?? Promise.resolve();
      const run = previous.then(enter, enter);
      const tail = run.catch(() => undefined);
      queues.set(name, tail);
      void tail.then(() => {
        if (queues.get(name) === tail) queues.delete(name);
      });
      return run;
    },
  };
}

/** A channel over the `storage` event: each message is a write other tabs are told about. */
export function createStorageChannel(storage: LeaseStorage, name: string): ChannelLike {
  const key = `channel:${name}`;
  let n = 0;
  const channel: ChannelLike = {
    onmessage: null,
    postMessage(message) {
      // A new value every time (the event fires only on a change); removed at once to keep storage clean.
      storage.set(key, JSON.stringify({ message, n: `${Date.now()}-${++n}-${Math.random()}` }));
      storage.remove(key);
    },
    close() {
      detach();
      channel.onmessage = null;
    },
  };
  const detach = storage.subscribe((k, raw) => {
    if (k !== key || raw === null) return;
    try {
      channel.onmessage?.({ data: (JSON.parse(raw) as { message: unknown }).message });
    } catch {
      // not ours
    }
  });
  return channel;
}

/** `localStorage` as a LeaseStorage, or undefined where it is missing or refuses writes. */
export function localLeaseStorage(): LeaseStorage | undefined {
  type Win = { localStorage?: Storage; addEventListener?: (t: string, f: (e: StorageEvent) => void) => void; removeEventListener?: (t: string, f: (e: StorageEvent) => void) => void };
  const win = globalThis as Win;
  let ls: Storage | undefined;
  try {
    ls = win.localStorage;
    if (!ls || typeof win.addEventListener !== 'function') return undefined;
    ls.setItem('embedded-wallet-signer:probe', '1');
    ls.removeItem('embedded-wallet-signer:probe');
  } catch {
    return undefined;
  }
  const store = ls;
  return {
    get: (k) => store.getItem(k),
    set: (k, v) => store.setItem(k, v),
    remove: (k) => store.removeItem(k),
    subscribe(listener) {
      const handler = (e: StorageEvent): void => {
        if (e.storageArea === store) listener(e.key, e.newValue);
      };
      win.addEventListener?.('storage', handler);
      return () => win.removeEventListener?.('storage', handler);
    },
  };
}
