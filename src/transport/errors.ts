/** HTTP answers → WalletError. */
import { WalletError } from '../errors.js';
import { isRecord } from '../types.js';

/**
 * A non-2xx answer as a WalletError. Both error body shapes are read (wire reference §9): the
 * documented `{code, reason, details?}` and the real service's `{status, code, message, details?}`.
 * The service's code passes through unchanged with the HTTP status and details. A body without a
 * string `code` (a gateway's HTML page, an empty 502) gives BAD_RESPONSE with the status — except a
 * bare 429, which is still RATE_LIMITED.
 */
export function errorFromResponse(status: number, text: string, extraDetails?: Record<string, unknown>): WalletError {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isRecord(body) && typeof body.code === 'string' && body.code !== '') {
    const message = typeof body.reason === 'string' ? body.reason : typeof body.message === 'string' ? body.message : `HTTP ${status} ${body.code}`;
    const details = isRecord(body.details) ? body.details : undefined;
    const merged = extraDetails ? { ...extraDetails, ...details } : details;
    return new WalletError(body.code, message, merged ? { status, details: merged } : { status });
  }
  if (status === 429) {
    return new WalletError('RATE_LIMITED', 'HTTP 429: too many requests', extraDetails ? { status, details: extraDetails } : { status });
  }
  return new WalletError('BAD_RESPONSE', `HTTP ${status} without a service error body`, { status });
}

/** A 2xx body as JSON, or BAD_RESPONSE. */
export function parseJsonBody(status: number, text: string): unknown {
  if (text === '') throw new WalletError('BAD_RESPONSE', `HTTP ${status} with an empty body where JSON was expected`, { status });
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new WalletError('BAD_RESPONSE', `HTTP ${status} with a body that is not JSON`, { status, cause });
  }
}
