/**
 * The email/phone membership oracle (S15 of scope.ts). A service answers `409
 * EMAIL_OTP_EMAIL_ALREADY_EXISTS` / `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS` when another customer's
 * wallet holds the email or phone number: on `PATCH /customers/{id}` (a contact change) and on
 * `POST /auth/credentials {type: EMAIL_OTP | SMS_OTP}` (the credential takes the customer's own
 * contact; no signature is needed for that first leg), and possibly on routes the app adds.
 *
 * Decisions:
 * - Every route's answer is looked at, not a list of routes: a 409 carrying one of these codes,
 *   whatever the route, goes to `onContactConflict(request, {code, customerId, method, pattern})`,
 *   which returns the `Response` to send or `undefined` to pass the service's answer on.
 * - Without the hook, a first leg (no signature headers) answered with a conflict gets a decoy
 *   challenge that answers like the free contact's `202` (S16, contact-decoy.ts), and every other
 *   conflict (a signed retry: of the decoy once its stamp verifies, or of a service challenge when the
 *   contact was taken in between) gets ONE answer, `409 CONTACT_UNAVAILABLE` "This email address or
 *   phone number cannot be used.": the same for an email and a phone number, for every route, and for
 *   every other customer who may hold it, so it names neither the kind of contact nor the code the
 *   service chose. The bit (taken or free) thus reaches only a signed retry whose stamp verifies.
 * - With the hook, the app decides both legs' answers (it sees every conflict the service sends; a
 *   decoy is never issued then), and owns what its answers tell.
 * - `contactRateLimit(request, {customerId, method, pattern})` runs before forwarding each request
 *   of a route that can answer a contact conflict ({@link CONTACT_ROUTES}), first legs and retries,
 *   after the ownership checks: a `Response` (say a `429` with `Retry-After` once the app's limit per
 *   customer is reached) is sent instead of forwarding; `undefined` forwards.
 */
import type { CurrentUser } from './ownership.js';
import { errorResponse, ProxyRefusal } from './responses.js';
import { refuse, type Outcome } from './outcome.js';
import type { CompiledRule } from './routes.js';
import type { ProxyOptions } from './types.js';
import type { DecoyCall } from './contact-decoy.js';
import type { ProxyConfig } from './options.js';

/** The codes that say another customer's wallet holds the email or phone number. */
export const CONTACT_CONFLICT_CODES: ReadonlySet<string> = new Set(['EMAIL_OTP_EMAIL_ALREADY_EXISTS', 'SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS']);

/** `METHOD pattern` of the default routes that can answer a contact conflict (where `contactRateLimit` runs). */
export const CONTACT_ROUTES: ReadonlySet<string> = new Set(['PATCH /customers/{customerId}', 'POST /auth/credentials']);

/** The one answer to a contact conflict when the app gives no `onContactConflict`. */
export function contactUnavailable(): Response {
  return errorResponse('CONTACT_UNAVAILABLE', 'This email address or phone number cannot be used.');
}

/** S15: a contact conflict from any route, answered by the app's hook or the one default answer. */
export async function contactConflict(request: Request, hook: ProxyOptions['onContactConflict'], rule: CompiledRule, outcome: Outcome, user: CurrentUser, decoy?: () => Promise<Response>): Promise<Outcome> {
  if (outcome.response.status !== 409) return outcome;
  // A body that is not JSON (or JSON's null) names no code.
  const code: unknown = await outcome.response
    .clone()
    .json()
    .then(
      (body: { code?: unknown } | null) => body?.code,
      () => undefined,
    );
  if (typeof code !== 'string' || !CONTACT_CONFLICT_CODES.has(code)) return outcome;
  if (hook === undefined) {
    // S16 (contact-decoy.ts): a first leg is answered as a free contact's is, a retry with the one answer.
    if (decoy !== undefined) return { response: await decoy(), path: outcome.path, code: 'CONTACT_UNAVAILABLE', detail: 'decoy challenge' };
    return { response: contactUnavailable(), path: outcome.path, code: 'CONTACT_UNAVAILABLE' };
  }
  try {
    const replacement = await hook(request, { code, customerId: user.customerId, method: rule.method, pattern: rule.pattern });
    return replacement === undefined ? outcome : { response: replacement, path: outcome.path };
  } catch {
    return refuse(new ProxyRefusal('INTERNAL_ERROR', 'The onContactConflict hook failed.'), outcome.path);
  }
}

/**
 * A header's value, `null` when absent or blank (the service counts an empty header as absent).
 * `Headers` already strips a value's leading and trailing whitespace (Fetch: header value
 * normalisation), so a blank header reads as `''`.
 */
function nonEmpty(value: string | null): string | null {
  return value === '' ? null : value;
}

/** A first leg: neither the signature header nor `Request-Id` (S16 answers its conflict with a decoy). */
export function isFirstLeg(headers: Headers, config: Pick<ProxyConfig, 'forwarded'>): boolean {
  return nonEmpty(headers.get(config.forwarded[0] as string)) === null && nonEmpty(headers.get('request-id')) === null;
}

/** S16: the signed retry of one of our decoys is answered here (never forwarded); `undefined` for any other request. */
export async function decoyRetry(headers: Headers, config: Pick<ProxyConfig, 'forwarded' | 'decoys'>, call: DecoyCall): Promise<Omit<Outcome, 'path'> | undefined> {
  const requestId = nonEmpty(headers.get('request-id'));
  if (requestId === null) return undefined;
  const retry = await config.decoys.retry(call, requestId, nonEmpty(headers.get(config.forwarded[0] as string)));
  if (!retry.decoy) return undefined;
  return retry.refusal === undefined ? { response: contactUnavailable(), code: 'CONTACT_UNAVAILABLE' } : { response: retry.refusal };
}
