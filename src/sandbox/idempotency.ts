/**
 * The `Idempotency-Key` header (spec §5.2: required on `POST /cards`, optional on quote execution,
 * wire-reference §8.3). Decided here: a key is 1–255 visible ASCII characters; anything else →
 * `400 INVALID_INPUT` naming the header as the field.
 */
import type { RequestContext } from './context.js';
import { invalidField } from './errors.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's `Idempotency-Key`, or undefined when absent (400 when malformed). */
export function idempotencyKey(ctx: RequestContext): string | undefined {
  const key = ctx.header(IDEMPOTENCY_HEADER);
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw invalidField(IDEMPOTENCY_HEADER, 'FORMAT', 'must be 1–255 visible ASCII characters');
  }
  return key;
}
