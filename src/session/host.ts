/**
 * What the session manager takes from its surroundings: Web Locks, BroadcastChannel, timers, the
 * page coming back, fresh session keys. The defaults are the browser's (each degrades to nothing
 * where missing); tests and unusual hosts replace any of them (`SessionManagerOptions.host`), e.g.
 * several managers over one shared lock manager and channel to simulate tabs.
 */
import { createKeyPlan, type KeyPlan } from './key-plan.js';
import { onPageWake } from './page-events.js';
import { WalletError } from '../errors.js';
import { loadOnFirstUse } from '../load-on-first-use.js';

/** The part of `navigator.locks` the manager uses. */
export interface LockManagerLike {
  /** Runs `callback` holding the lock `name` (as `navigator.locks.request` does). */
  request<T>(name: string, options: { mode: 'exclusive' | 'shared' }, callback: () => Promise<T>): Promise<T>;
}

/** The part of a BroadcastChannel the manager uses. */
export interface ChannelLike {
  /** Sends `message` to the other tabs. */
  postMessage(message: unknown): void;
  /** Closes the channel. */
  close(): void;
  /** Receives the other tabs' messages. */
  onmessage: ((event: { data: unknown }) => void) | null;
  /** Node only: lets the process exit with the channel open. */
  unref?: () => void;
}

/** What the session manager takes from its surroundings; the defaults are the browser's. */
export interface SessionHost {
  /** The lock manager shared by the tabs (default `navigator.locks`), or undefined where missing. */
  locks(): LockManagerLike | undefined;
  /** A channel to the other tabs (default `new BroadcastChannel(name)`), or undefined where missing. */
  openChannel(name: string): ChannelLike | undefined;
  /** Calls `callback` after `ms` (default `setTimeout`); returns a handle for `clearTimer`. */
  setTimer(callback: () => void, ms: number): unknown;
  /** Cancels a timer of `setTimer`. */
  clearTimer(handle: unknown): void;
  /** Calls `wake` when the page comes back (visible again, online); returns the detacher. */
  onWake(wake: () => void): () => void;
  /** A fresh session key and the plan that returns it (every refresh uses a new key). */
  newKeyPlan(): Promise<KeyPlan>;
  /**
   * A clock that never jumps (default `performance.now()`): time between server samples is measured
   * on it, so a change of the local clock moves no expiry (I6). Absent with a custom `now` option:
   * that clock is used for both.
   */
  monotonicNow?(): number;
}

/**
 * The fallback of I7 (storage-lock.ts), loaded on first use: only browsers without Web Locks or
 * BroadcastChannel download it. A failed download fails the operation that needed it
 * (NETWORK_ERROR) and is tried again at the next.
 */
const fallback = loadOnFirstUse(() => import('./storage-lock.js'), 'cross-tab fallback');
const hasLocalStorage = (): boolean => {
  try {
    return typeof (globalThis as { localStorage?: unknown }).localStorage === 'object' && (globalThis as { localStorage?: unknown }).localStorage !== null;
  } catch {
    return false;
  }
};

let leaseLocks: LockManagerLike | undefined;

/** What a lease lock fails with when localStorage refuses its lease (S7: a WalletError, never the DOMException). */
export const leaseRefused = (cause: unknown): Error => new WalletError('KEY_STORAGE_UNAVAILABLE', 'localStorage refused the lease of a lock', { cause });

/**
 * `navigator.locks`; without it (I7) locks emulated with leases in localStorage (storage-lock.ts);
 * without that either, undefined (the realm's own locks: tabs do not exclude each other).
 */
function browserLocks(): LockManagerLike | undefined {
  const locks = (globalThis as { navigator?: { locks?: unknown } }).navigator?.locks;
  if (typeof locks === 'object' && locks !== null && typeof (locks as LockManagerLike).request === 'function') return locks as LockManagerLike;
  if (leaseLocks || !hasLocalStorage()) return leaseLocks;
  let real: LockManagerLike | undefined;
  const owner = randomId();
  leaseLocks = {
    request: (name, options, callback) =>
      fallback(async (m) => {
        const storage = m.localLeaseStorage();
        if (!storage) throw new WalletError('KEY_STORAGE_UNAVAILABLE', 'localStorage refuses writes: no lock shared by the tabs');
        real ??= m.createLeaseLocks({ storage, owner, refused: leaseRefused });
        return real.request(name, options, callback);
      }),
  };
  return leaseLocks;
}

/** A BroadcastChannel; without one (I7) a channel over localStorage's `storage` event; else undefined. */
function browserChannel(name: string): ChannelLike | undefined {
  const Ctor = (globalThis as { BroadcastChannel?: new (name: string) => ChannelLike }).BroadcastChannel;
  if (typeof Ctor !== 'function') {
    if (!hasLocalStorage()) return undefined;
    // Messages posted before the fallback is loaded are dropped: tabs re-read storage anyway.
    let real: ChannelLike | undefined;
    let closed = false;
    const channel: ChannelLike = {
      onmessage: null,
      postMessage: (message) => real?.postMessage(message),
      close: () => {
        closed = true;
        real?.close();
      },
    };
    void fallback(async (m) => {
      const storage = m.localLeaseStorage();
      if (!storage || closed) return;
      real = m.createStorageChannel(storage, name);
      real.onmessage = (event) => channel.onmessage?.(event);
    }).catch(() => undefined);
    return channel;
  }
  try {
    return new Ctor(name);
  } catch {
    return undefined;
  }
}

/** A random id (a tab's id on the channel, a logout nonce): randomUUID where present. */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export const browserHost: SessionHost = {
  locks: browserLocks,
  openChannel: browserChannel,
  setTimer(callback, ms) {
    const t = setTimeout(callback, ms);
    // Node: a session timer must not keep the process alive.
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimer(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
  onWake: onPageWake,
  newKeyPlan: createKeyPlan,
  monotonicNow: () => {
    const perf = (globalThis as { performance?: { now?: () => number } }).performance;
    return typeof perf?.now === 'function' ? perf.now() : Date.now();
  },
};
