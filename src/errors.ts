/**
 * One error type for everything a caller of this library can meet.
 *
 * `code` is stable: match on it, never on `message`. Codes of our own are the {@link WalletErrorCode}
 * union (described in error-codes.ts and ERRORS.md); codes the service sends (wire reference §9 and
 * the spec's §7, e.g. `WALLET_SIGNATURE_INVALID`, `QUOTE_EXPIRED`, `RATE_LIMITED`) are passed
 * through unchanged with the HTTP `status`, the service's `reason` as the message, and its `details`.
 */

/**
 * The library's own codes. What each means: WALLET_ERROR_CODES in error-codes.ts (the
 * `embedded-wallet-signer/error-codes` entry) and ERRORS.md; kept out of this file so that the
 * descriptions never ship in the main bundle.
 */
export type WalletErrorCode =
  | 'INVALID_ARGUMENT'
  | 'ENCODING_INVALID'
  | 'INVALID_POINT'
  | 'SIGNATURE_MALFORMED'
  | 'MALFORMED_BUNDLE'
  | 'BUNDLE_SIGNATURE_INVALID'
  | 'BUNDLE_SIGNER_UNTRUSTED'
  | 'DECRYPTION_FAILED'
  | 'CRYPTO_UNAVAILABLE'
  | 'KEY_STORAGE_UNAVAILABLE'
  | 'KEY_NOT_FOUND'
  | 'KEY_EVICTED'
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'BAD_RESPONSE'
  | 'SIGNING_REFUSED'
  | 'SIGNER_FAILED'
  | 'STILL_PROCESSING'
  | 'ABORTED'
  | 'CHALLENGE_EXPIRED'
  | 'UNEXPECTED_CHALLENGE'
  | 'SESSION_EXPIRED'
  | 'NOT_LOGGED_IN'
  | 'OTHER_CREDENTIAL_SESSION_REQUIRED'
  | 'WEBAUTHN_CANCELLED'
  | 'WEBAUTHN_NOT_ALLOWED'
  | 'WEBAUTHN_RP_ID_MISMATCH'
  | 'WEBAUTHN_UNSUPPORTED'
  | 'WEBAUTHN_FAILED'
  | 'SESSION_REVOKED'
  | 'SESSION_REPLACED_DURING_CALL'
  | 'CREDENTIAL_NOT_FOUND'
  | 'OTP_CODE_INVALID'
  | 'OTP_EXPIRED'
  | 'OAUTH_TOKEN_REJECTED'
  | 'OAUTH_NOT_PREPARED'
  | 'PASSKEY_ASSERTION_REJECTED'
  | 'SANDBOX_START_FAILED'
  | 'DEPENDENCY_MISSING'
  | 'WALLET_PROVIDER_MISSING'
  | 'SIGNER_FRAME_UNREACHABLE'
  | 'SIGNER_FRAME_TIMEOUT'
  | 'SIGNER_FRAME_FAILED'
  | 'SIGNER_ORIGIN_NOT_ALLOWED'
  | 'SIGNER_STORAGE_UNAVAILABLE'
  | 'SIGNER_DECLINED'
  | 'SIGNER_POPUP_BLOCKED'
  | 'SIGNER_APPROVAL_EXPIRED';

/** The third argument of the {@link WalletError} constructor. */
export interface WalletErrorOptions {
  /** The underlying error, e.g. a DOMException. */
  cause?: unknown;
  /** HTTP status when the error came from the service. */
  status?: number;
  /** The service's `details` object, when it sent one. */
  details?: Record<string, unknown>;
}

const BRAND = Symbol.for('embedded-wallet-signer.WalletError');

/**
 * Every failure of the library: our own {@link WalletErrorCode}s, and the service's codes passed
 * through with its HTTP `status` and `details`. Match on `code` (with {@link isWalletError}), never
 * on `message`; the meaning of each of our codes: `describeWalletError` in
 * `embedded-wallet-signer/error-codes`, and ERRORS.md.
 *
 * @example
 * ```ts
 * import { isWalletError } from 'embedded-wallet-signer';
 * try {
 *   await wallet.updateAccount(accountId, { privateEnabled: true });
 * } catch (err) {
 *   if (isWalletError(err, 'SIGNING_REFUSED')) return; // the user said no
 *   if (isWalletError(err) && err.status === 429) retryLater(err.details);
 *   throw err;
 * }
 * ```
 */
export class WalletError extends Error {
  /** Always `'WalletError'` (also how {@link isWalletError} knows one from another realm). */
  override readonly name = 'WalletError';
  /** Our own code, or the service's code passed through. */
  readonly code: WalletErrorCode | (string & {});
  /** The HTTP status when the error is the service's answer; undefined for our own. */
  readonly status: number | undefined;
  /** The service's `details` (e.g. `errors[]`, `attemptsLeft`), or ours for a few codes (e.g. `packages` of DEPENDENCY_MISSING). */
  readonly details: Record<string, unknown> | undefined;

  /**
   * @param code - one of our {@link WalletErrorCode}s, or a service code
   * @param message - defaults to the code itself
   * @param options - cause, status and details
   */
  constructor(code: WalletErrorCode | (string & {}), message?: string, options: WalletErrorOptions = {}) {
    // The default message is the code itself: the descriptions (error-codes.ts) stay out of the
    // bundles; describeWalletError() there reads them.
    super(message ?? code, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.status = options.status;
    this.details = options.details;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True for a WalletError, also one made in another realm (iframe, worker, other bundle copy); with
 * `code`, only for that code. `code` completes to our own codes ({@link WalletErrorCode}) and takes
 * any code the service sends too (e.g. `'INSUFFICIENT_FUNDS'`).
 *
 * @example
 * ```ts
 * try {
 *   await wallet.executeQuote(quote);
 * } catch (err) {
 *   if (isWalletError(err, 'SESSION_EXPIRED')) showLogin();
 *   else if (isWalletError(err, 'INSUFFICIENT_FUNDS')) showTopUp();
 *   else throw err;
 * }
 * ```
 */
export function isWalletError(value: unknown, code?: WalletErrorCode | (string & {})): value is WalletError {
  if (typeof value !== 'object' || value === null) return false;
  const branded = (value as Record<symbol, unknown>)[BRAND] === true;
  const shaped = (value as { name?: unknown }).name === 'WalletError' && typeof (value as { code?: unknown }).code === 'string';
  if (!branded && !shaped) return false;
  return code === undefined || (value as WalletError).code === code;
}

/** Shorthand used at input boundaries. */
export function invalidArgument(name: string, expected: string): WalletError {
  return new WalletError('INVALID_ARGUMENT', `${name} must be ${expected}`);
}
