/** `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. */

/**
 * Milliseconds to wait, or undefined when the header is absent or unreadable. An HTTP-date is
 * measured against the server's clock (its `Date` header) when known, so a skewed client clock does
 * not stretch or shrink the wait; otherwise against the local clock.
 */
export function parseRetryAfter(value: string | null, serverNowMs: number | undefined, localNowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - (serverNowMs ?? localNowMs));
}

/** The server's `Date` header in epoch ms, or undefined (absent, unparsable, or not exposed by CORS). */
export function parseDateHeader(value: string | null): number | undefined {
  if (value === null) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
