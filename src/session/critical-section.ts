/**
 * One critical section per account: an in-page queue (this manager's operations on the account run
 * one after another, in call order) feeding a Web Lock of the account's name, so that at most one
 * tab of the origin is inside it at a time (Web Locks are granted in request order).
 *
 * Without `navigator.locks`, the lock is one of this JavaScript realm: wallets of one page still
 * exclude each other, tabs do not. Decision: that fallback keeps correctness through the stored
 * generation and logout nonce (a stale commit undoes itself) and loses only exclusion (two tabs may
 * then both refresh). With cross-tab coordination off, the in-page queue alone is the section.
 */
import type { LockManagerLike } from './host.js';

export interface CriticalSections {
  /** Runs `fn` inside the account's critical section. Never call it from inside one (no re-entry). */
  run<T>(accountId: string, fn: () => Promise<T>): Promise<T>;
}

const realmLocks = new Map<string, Promise<unknown>>();

async function withRealmLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const previous = realmLocks.get(name) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  realmLocks.set(name, tail);
  try {
    return await run;
  } finally {
    if (realmLocks.get(name) === tail) realmLocks.delete(name);
  }
}

/**
 * `locks()` is asked at each entry: undefined means the realm fallback; `shared` false means no
 * lock at all (coordination off: this manager's storage is its own).
 */
export function createCriticalSections(options: { namespace: string; shared: () => boolean; locks: () => LockManagerLike | undefined }): CriticalSections {
  const queues = new Map<string, Promise<unknown>>();
  return {
    run<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
      const name = `${options.namespace}:account:${accountId}`;
      const enter = (): Promise<T> => {
        if (!options.shared()) return fn();
        const locks = options.locks();
        return locks ? locks.request(name, { mode: 'exclusive' }, fn) : withRealmLock(name, fn);
      };
      const previous = queues.get(accountId) ?? Promise.resolve();
      const run = previous.then(enter, enter);
      const tail = run.catch(() => undefined);
      queues.set(accountId, tail);
      void tail.then(() => {
        if (queues.get(accountId) === tail) queues.delete(accountId);
      });
      return run;
    },
  };
}
