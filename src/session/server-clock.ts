/**
 * The server's clock, estimated from what it tells us: every answer's `Date` header and the
 * `createdAt` of each session it creates. Session expiry is judged on this clock, never on the local
 * one (a laptop whose clock is 10 minutes off must not think a fresh session is expired).
 *
 * Decision: both sources can only under-state the server's time at the moment an answer arrives
 * (the `Date` header is truncated to the second, and the answer spent time in flight), so the
 * estimate of `server − local` is the largest offset among the recent samples. A window of recent
 * samples lets the estimate follow a sandbox clock that was advanced.
 *
 * Invariant I6 (INVARIANTS.md): between server samples, time is measured on a monotonic clock
 * (`performance.now()` in browsers), never on the wall clock, so setting the local clock forward or
 * back (by an hour, say) moves neither the estimate nor any session's expiry. Before the first
 * sample the estimate is the local clock, and a session is never dropped as expired on it alone: the
 * manager asks the service first (operations.ts, expireSessions).
 */

const WINDOW = 8;
/** A `Date` header is truncated to whole seconds: credit it half a second on average. */
const DATE_HEADER_CREDIT_MS = 500;

export interface ServerClock {
  /** Server time now (epoch ms). */
  now(): number;
  /** Current estimate of server − local (ms). */
  readonly offsetMs: number;
  /** Whether the service told its time yet (before that, `now()` is the local clock, which may be hours off). */
  readonly sampled: boolean;
  /** Records a `Date` header value seen at local time `receivedAt`; returns true when the estimate moved. */
  observeDateHeader(value: string | null, receivedAt?: number): boolean;
  /** Records an exact server timestamp (e.g. a session's createdAt) seen at `receivedAt`. */
  observeServerTime(serverMs: number, receivedAt?: number): boolean;
}

/**
 * `localNow`: the wall clock (what `receivedAt` arguments are in). `monotonic`: a clock that never
 * jumps (default: `localNow`, for tests that drive one fake clock).
 */
export function createServerClock(localNow: () => number = Date.now, onChange?: () => void, monotonic: () => number = localNow): ServerClock {
  /** Samples of server − monotonic. */
  const samples: number[] = [];
  let offset = 0;

  function add(sample: number): boolean {
    if (!Number.isFinite(sample)) return false;
    samples.push(sample);
    if (samples.length > WINDOW) samples.shift();
    const next = Math.max(...samples);
    const moved = samples.length === 1 ? Math.abs(monotonic() + next - localNow()) >= 1000 : Math.abs(next - offset) >= 1000;
    offset = next;
    if (moved) onChange?.();
    return moved;
  }

  const now = (): number => (samples.length === 0 ? localNow() : monotonic() + offset);
  /** The monotonic time of a wall-clock instant `receivedAt` (default: now). */
  const at = (receivedAt: number | undefined): number => (receivedAt === undefined ? monotonic() : monotonic() - (localNow() - receivedAt));

  return {
    now,
    get offsetMs() {
      return now() - localNow();
    },
    get sampled() {
      return samples.length > 0;
    },
    observeDateHeader(value, receivedAt) {
      if (value === null || value === '') return false;
      const ms = Date.parse(value);
      if (!Number.isFinite(ms)) return false;
      return add(ms + DATE_HEADER_CREDIT_MS - at(receivedAt));
    },
    observeServerTime(serverMs, receivedAt) {
      return add(serverMs - at(receivedAt));
    },
  };
}
