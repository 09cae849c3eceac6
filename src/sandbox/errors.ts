/**
 * Errors the sandbox answers with: `{ status, code, reason, message, details? }` (wire-reference §9, spec §7).
 *
 * Route code throws a {@link SandboxError}; the server turns it into the HTTP answer. Anything else
 * that escapes a handler is a bug in the sandbox and is answered `500 INTERNAL_ERROR` (logged, the
 * connection kept), never a dropped socket. Input validation must therefore cover every field.
 *
 * Field validation: `details.errors[]` lists every bad field as `{ field, constraint, message }`
 * (spec §2.13 FieldError). The spec does not list FieldConstraint values; the sandbox uses the
 * {@link FieldConstraint} values below.
 */

/** Constraint names used in `details.errors[].constraint` (the spec leaves the values open). */
export type FieldConstraint =
  | 'REQUIRED'
  | 'TYPE'
  | 'FORMAT'
  | 'ENUM'
  | 'RANGE'
  | 'LENGTH'
  | 'UNKNOWN_FIELD'
  | 'CONFLICT';

export interface FieldError {
  /** Dot-notation path of the field, e.g. `attestation.credentialId`. */
  field: string;
  constraint: FieldConstraint;
  message: string;
}

/**
 * The error body. The spec (§7) defines `code`, `reason`, `details`; the real service also sends
 * `status` and `message` (wire-reference §9), so the default profile sends all five (`message` =
 * `reason`). The service profile (profile.ts) sends what the service does.
 */
export interface ErrorBody {
  status: number;
  code: string;
  reason: string;
  message: string;
  details?: Record<string, unknown>;
}

export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers, e.g. `Retry-After` on 429 or `Allow` on 405. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    reason: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(reason);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { status: this.status, code: this.code, reason: this.message, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function isSandboxError(value: unknown): value is SandboxError {
  return value instanceof SandboxError;
}

/** `400 INVALID_INPUT`, optionally with the list of bad fields. */
export function invalidInput(reason: string, errors?: readonly FieldError[], details?: Record<string, unknown>): SandboxError {
  const all = errors !== undefined && errors.length > 0 ? { ...details, errors: [...errors] } : details;
  return new SandboxError(400, 'INVALID_INPUT', reason, all);
}

/** `400 INVALID_INPUT` for one field. */
export function invalidField(field: string, constraint: FieldConstraint, message: string): SandboxError {
  return invalidInput(`${field}: ${message}`, [{ field, constraint, message }]);
}

export function badRequest(code: string, reason: string, details?: Record<string, unknown>): SandboxError {
  return new SandboxError(400, code, reason, details);
}

export function unauthorized(code: string, reason: string, details?: Record<string, unknown>): SandboxError {
  return new SandboxError(401, code, reason, details);
}

export function notFound(code: string, reason: string): SandboxError {
  return new SandboxError(404, code, reason);
}

export function conflict(code: string, reason: string, details?: Record<string, unknown>): SandboxError {
  return new SandboxError(409, code, reason, details);
}

/** `429 RATE_LIMITED` with `Retry-After` in whole seconds (at least 1). */
export function rateLimited(reason: string, retryAfterSeconds: number): SandboxError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new SandboxError(429, 'RATE_LIMITED', reason, { retryAfterSeconds: seconds }, { 'Retry-After': String(seconds) });
}
