/**
 * One critical section per account: an in-page queue (this manager's operations on the account run
 * one after another, in call order) feeding a Web Lock of the account's name, so that at most one
 * tab of the origin is inside it at a time (Web Locks are granted in request order).
 *
 * Beside it, per account, a lock on logins in flight: a login holds it shared from its verify
 * request until its session is committed; `signOutOtherDevices` takes it exclusive before entering
 * the section, so that it never takes a session a login of this browser is about to store for
 * another device's. And a refresh lock: a refresh holds it from reading the current session to its
 * commit and undo (its prompt and request run outside the section, I4), so one refresh per account
 * runs at a time across tabs; logout takes it after cancelling prompts, to wait for a refresh on the
 * wire. (Lock order: logins, then refresh, then the section; nothing takes them the other way round.)
 *
 * Without `navigator.locks`, the locks are ones of this JavaScript realm: wallets of one page still
 * exclude each other, tabs do not. Decision: that fallback keeps correctness through the stored
 * generation and logout nonce (a stale commit undoes itself) and loses only exclusion (two tabs may
 * then both refresh). With cross-tab coordination off, locks of this manager alone are used.
 */
import type { LockManagerLike } from './host.js';

type Mode = 'exclusive' | 'shared';

export interface CriticalSections {
  /** Runs `fn` inside the account's critical section. Never call it from inside one (no re-entry). */
  run<T>(accountId: string, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` holding the account's login lock (shared: a login; exclusive: sign out other devices, logout). */
  logins<T>(accountId: string, mode: Mode, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` holding the account's refresh lock (one refresh per account across tabs; logout takes it to wait for one on the wire). */
  refreshing<T>(accountId: string, fn: () => Promise<T>): Promise<T>;
}

/** One lock name's holders and waiters. */
interface Slot {
  holders: number;
  exclusive: boolean;
  queue: Array<{ mode: Mode; grant: () => void }>;
}

/** A readers-writer lock of one JavaScript realm (or of one manager), granted in request order. */
function createLocalLocks(): LockManagerLike {
  const state = new Map<string, Slot>();
  const pump = (name: string, s: Slot): void => {
    while (s.queue.length > 0) {
      const next = s.queue[0]!;
      const free = s.holders === 0 || (!s.exclusive && next.mode === 'shared');
      if (!free) break;
      s.queue.shift();
      s.holders++;
      s.exclusive = next.mode === 'exclusive';
      next.grant();
    }
    // Nobody holds it: the loop above granted every waiter, so the queue is empty too.
    if (s.holders === 0) state.delete(name);
  };
  return {
    request(name, options, callback) {
      const s: Slot = state.get(name) ?? { holders: 0, exclusive: false, queue: [] };
      state.set(name, s);
      return new Promise((resolve, reject) => {
        s.queue.push({
          mode: options.mode,
          grant: () => {
            const release = (): void => {
              s.holders--;
              pump(name, s);
            };
            Promise.resolve()
              .then(callback)
              .then(
                (value) => (release(), resolve(value)),
                (error: unknown) => (release(), reject(error)),
              );
          },
        });
        pump(name, s);
      });
    },
  };
}

const realm = createLocalLocks();

/**
 * `locks()` is asked at each entry: undefined means the realm fallback; `shared` false means this
 * manager's own locks (coordination off: its storage is its own).
 */
export function createCriticalSections(options: { namespace: string; shared: () => boolean; locks: () => LockManagerLike | undefined }): CriticalSections {
  const own = createLocalLocks();
  const queues = new Map<string, Promise<unknown>>();
  const lockManager = (): LockManagerLike => (options.shared() ? (options.locks() ?? realm) : own);
  return {
    run<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
      const name = `${options.namespace}:account:${accountId}`;
      const enter = (): Promise<T> => lockManager().request(name, { mode: 'exclusive' }, fn);
      const previous = queues.get(accountId) ?? Promise.resolve();
      const run = previous.then(enter, enter);
      const tail = run.catch(() => undefined);
      queues.set(accountId, tail);
      void tail.then(() => {
        if (queues.get(accountId) === tail) queues.delete(accountId);
      });
      return run;
    },
    logins(accountId, mode, fn) {
      return lockManager().request(`${options.namespace}:logins:${accountId}`, { mode }, fn);
    },
    refreshing(accountId, fn) {
      return lockManager().request(`${options.namespace}:refresh:${accountId}`, { mode: 'exclusive' }, fn);
    },
  };
}
