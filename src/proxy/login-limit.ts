/**
 * The email-first login's rate limit (L3 of email-login.ts): a fixed window per key, in this
 * process's memory. Decisions: every start and every resend counts against both its contact
 * (email or phone, normalised) and its client address, and is refused (`429 RATE_LIMITED`,
 * `Retry-After`) once either is spent, known contact or not; the map is swept of ended windows
 * when it grows past 10,000 keys. Several server instances each keep their own counts: the limit
 * is per instance (an app running many should also limit at its edge).
 */
export interface RateWindow {
  /** Requests allowed per window. */
  readonly max: number;
  /** The window, in milliseconds. */
  readonly windowMs: number;
}

/** The email-first login's rate limits (`emailLoginProxy({ limits })`). */
export interface LoginLimits {
  /** Per email or phone number. Default 5 per 15 minutes. */
  readonly perContact?: RateWindow;
  /** Per client address (`clientAddress`). Default 30 per 15 minutes. */
  readonly perAddress?: RateWindow;
}

export const DEFAULT_LIMITS: Required<LoginLimits> = {
  perContact: { max: 5, windowMs: 15 * 60_000 },
  perAddress: { max: 30, windowMs: 15 * 60_000 },
};

/** A limiter: `take(key)` → 0 when allowed (and counted), else the milliseconds until its window ends. */
export function fixedWindow(window: RateWindow, now: () => number = Date.now): { take(key: string): number } {
  const counts = new Map<string, { count: number; resetAt: number }>();
  return {
    take(key) {
      const t = now();
      if (counts.size > 10_000) for (const [k, v] of counts) if (v.resetAt <= t) counts.delete(k);
      let entry = counts.get(key);
      if (entry === undefined || entry.resetAt <= t) {
        entry = { count: 0, resetAt: t + window.windowMs };
        counts.set(key, entry);
      }
      if (entry.count >= window.max) return entry.resetAt - t;
      entry.count++;
      return 0;
    },
  };
}
