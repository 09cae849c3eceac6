/**
 * The sandbox's clock: every expiry (challenges, OTPs, sessions, OIDC freshness, quotes) is judged
 * with it, and every response's `Date` header comes from it, so a client that reads the server's
 * time stays consistent after `POST /sandbox/clock/advance` or `advanceClock(seconds)`.
 *
 * `base` is injectable (`startSandbox({ now })`); the offset only ever grows.
 */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
  /** Current time as an ISO-8601 UTC string. */
  iso(offsetMs?: number): string;
  /** Moves the clock forward; negative or non-finite values are refused by the caller. */
  advance(seconds: number): void;
}

export function createClock(base: () => number = Date.now): Clock {
  let offset = 0;
  const now = (): number => base() + offset;
  return {
    now,
    iso: (offsetMs = 0) => new Date(now() + offsetMs).toISOString(),
    advance(seconds: number) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a finite number ≥ 0');
      offset += Math.round(seconds * 1000);
    },
  };
}
