/** Header names of the signed-retry protocol (wire reference §3–4, spec §5.2). */

/** Default name of the stamp header; the real service puts its own brand word in it (configurable). */
export const DEFAULT_SIGNATURE_HEADER = 'Service-Wallet-Signature';
export const REQUEST_ID_HEADER = 'Request-Id';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const RETRY_AFTER_HEADER = 'Retry-After';
