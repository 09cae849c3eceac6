/** Header names of the signed-retry protocol (wire reference §3–4, spec §5.2). */

/** Default name of the stamp header; the real service puts its own brand word in it (configurable). */
export const DEFAULT_SIGNATURE_HEADER = 'Service-Wallet-Signature';
export const REQUEST_ID_HEADER = 'Request-Id';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const RETRY_AFTER_HEADER = 'Retry-After';

/**
 * Whether `value` can be sent as an HTTP header value: fetch's `Headers` throws a bare TypeError on
 * CR, LF, NUL and characters above U+00FF, so such values are refused up front (caller input →
 * INVALID_ARGUMENT, a service's request id → BAD_RESPONSE).
 */
export function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}
