/**
 * The server's clock, estimated from what it tells us: every answer's `Date` header and the
 * `createdAt` of each session it creates. Session expiry is judged on this clock, never on the local
 * one (a laptop whose clock is 10 minutes off must not think a fresh session is expired).
 *
 * Decision: both sources can only under-state the server's time at the moment an answer arrives
 * (the `Date` header is truncated to the second, and the answer spent time in flight), so the
 * estimate of `server − local` is the largest offset among the recent samples. A window of recent
 * samples lets the estimate follow a local clock that was corrected (or a sandbox clock advanced).
 */

const WINDOW = 8;
/** A `Date` header is truncated to whole seconds: credit it half a second on average. */
const DATE_HEADER_CREDIT_MS = 500;

export interface ServerClock {
  /** Server time now (epoch ms). */
  now(): number;
  /** Current estimate of server − local (ms). */
  readonly offsetMs: number;
  /** Records a `Date` header value seen at local time `receivedAt`; returns true when the estimate moved. */
  observeDateHeader(value: string | null, receivedAt?: number): boolean;
  /** Records an exact server timestamp (e.g. a session's createdAt) seen at `receivedAt`. */
  observeServerTime(serverMs: number, receivedAt?: number): boolean;
}

export function createServerClock(localNow: () => number = Date.now, onChange?: () => void): ServerClock {
  const samples: number[] = [];
  let offset = 0;

  function add(sample: number): boolean {
    if (!Number.isFinite(sample)) return false;
    samples.push(sample);
    if (samples.length > WINDOW) samples.shift();
    const next = Math.max(...samples);
    const moved = Math.abs(next - offset) >= 1000;
    offset = next;
    if (moved) onChange?.();
    return moved;
  }

  return {
    now: () => localNow() + offset,
    get offsetMs() {
      return offset;
    },
    observeDateHeader(value, receivedAt = localNow()) {
      if (value === null || value === '') return false;
      const ms = Date.parse(value);
      if (!Number.isFinite(ms)) return false;
      return add(ms + DATE_HEADER_CREDIT_MS - receivedAt);
    },
    observeServerTime(serverMs, receivedAt = localNow()) {
      return add(serverMs - receivedAt);
    },
  };
}
