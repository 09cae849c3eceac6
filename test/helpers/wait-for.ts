// Waiting on the event itself, never on time (DEVELOPERS.md: a test that fails on a busy machine is
// a bug). `until` polls a condition on every turn of the event loop and gives up only after a bound
// far longer than the work needs (a failure report, not a timing assumption); `deferred` is a
// promise a fake resolves when the awaited event happens; `idle` waits until a counter of work in
// flight has stayed at zero. Works in Node and in the browser (no setImmediate there).

const turn = (): Promise<void> => new Promise<void>((r) => (typeof setImmediate === 'function' ? setImmediate(r) : setTimeout(r, 0)));

/** How long a wait may take before it is reported as never happening (real time). */
export const WAIT_MS = 15_000;

/** Waits (real time, bounded by `ms`) until `cond` holds; throws naming `what` if it never does. */
export async function until(cond: () => boolean | Promise<boolean>, what = 'condition', ms = WAIT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await turn();
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
  /** Whether resolve or reject was called. */
  readonly settled: boolean;
}

/** A promise and its resolvers: a fake resolves it when the event a test waits for happens. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  let settled = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = (v) => ((settled = true), res(v));
    reject = (e) => ((settled = true), rej(e));
  });
  return {
    promise,
    resolve,
    reject,
    get settled() {
      return settled;
    },
  };
}

/** `p`, or an error naming `what` if it has not settled within `ms` (real time; a failure report). */
export function within<T>(p: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Whether `p` has settled yet, after every job already queued has run (a promise that can only
 * settle through work outside the event loop — a timer the test owns, a lock it holds — has not).
 */
export async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await turn();
  return done;
}

/**
 * One full turn of the event loop: every microtask already queued, and every one those queue, has
 * run. Deterministic for work that only chains promises (the in-memory fakes of storage, locks and
 * channel answer that way); work that leaves the event loop (WebCrypto, a real timer, I/O) is not
 * covered — wait for its event instead.
 */
export const flush = turn;
