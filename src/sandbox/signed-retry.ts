/**
 * The signed-retry machinery (wire-reference §4, spec §5.3) for every route.
 *
 * A handler of a signed action does:
 * ```ts
 * const retry = verifyRetry(ctx);            // null on the first leg (no signature headers)
 * if (retry === null) {
 *   ...validate the body and the state...
 *   return issueChallenge(ctx, { type: 'UPDATE_INTERNAL_ACCOUNT', organizationId, parameters, signer });
 * }
 * ...re-check the state, act, answer 200/201/204...
 * ```
 * Three legs: on the verified second leg, call `issueChallenge` again with `stage: 'leg3'` and
 * `signer: { ...sameRule, publicKey: retry.publicKey ?? undefined }`; the third leg's `verifyRetry`
 * returns `stage === 'leg3'`.
 *
 * Rules enforced by `verifyRetry`, in this order:
 * 1. Neither `Service-Wallet-Signature` nor `Request-Id` → first leg (returns null).
 * 2. `Request-Id` without a stamp → `401 WALLET_SIGNATURE_MISSING`.
 * 3. A stamp without `Request-Id` → `401 REQUEST_ID_MISSING`.
 * 4. Unparseable stamp → `401 WALLET_SIGNATURE_MALFORMED` (stamp.ts).
 * 5. Unknown request id, or one issued for another method or path → `404 REQUEST_NOT_FOUND`
 *    (spec §7.3 code; decided here: a request id is scoped to the call that produced it).
 * 6. Already used → `401 WALLET_SIGNATURE_INVALID` with `details.requestStatus = "USED"`;
 *    past `expiresAt` → `401 WALLET_SIGNATURE_INVALID` with `details.requestStatus = "EXPIRED"`
 *    (decided here; a client restarts from the first leg).
 * 7. Body not byte-identical to the first leg's (wire-reference §4; whitespace, key order and
 *    duplicate keys count) → `401 WALLET_SIGNATURE_BODY_MISMATCH`.
 * 8. Key not allowed by the challenge's signer rule, or signature does not verify →
 *    `401 WALLET_SIGNATURE_INVALID`. The literal `sandbox-valid-signature` stands in for a valid
 *    stamp by an allowed key (spec §5.4): no ECDSA check and no signer rule (stamp.ts).
 * 9. The request id is marked used (single use), even if the action then fails on state.
 *
 * Failed attempts (steps 2–8) do not consume the request id: a client may fix its stamp and retry
 * until `expiresAt`.
 *
 * `payloadToSign` is the JSON string
 * `{"type":"ACTIVITY_TYPE_<type>","requestId","organizationId","timestampMs","parameters","bodyDigest"}`
 * — `requestId` and `timestampMs` make it unique, `bodyDigest` (hex SHA-256 of the first leg's body
 * bytes) binds the whole body while `parameters` shows a readable,
 * secret-free summary. Challenges expire after {@link CHALLENGE_TTL_MS}.
 */
import { present } from './present.js';
import { createHash } from 'node:crypto';
import { json, type Reply, type RequestContext, type SandboxState } from './context.js';
import { notFound, unauthorized } from './errors.js';
import { checkParsedStamp, checkStamp, readStamp, REQUEST_ID_HEADER, SIGNATURE_HEADER, type StampCheck } from './stamp.js';
import { newId, type PendingRequest, type SignerRule } from './store.js';

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export interface ChallengeSpec {
  /** Action name, e.g. `UPDATE_INTERNAL_ACCOUNT` (payload type `ACTIVITY_TYPE_UPDATE_INTERNAL_ACCOUNT`). */
  type: string;
  /** The embedded wallet's organization id. */
  organizationId: string;
  /** Readable, secret-free parameters of the action (the body is bound by its digest anyway). */
  parameters: Record<string, unknown>;
  /** Who may sign the next leg. */
  signer: SignerRule;
  /** Label for multi-leg actions (default `leg2`). */
  stage?: string;
  /** Data handed to the handler on the verified retry. */
  context?: unknown;
  /** Exact payload to sign instead of the generated JSON (the OTP verification token). */
  payloadToSign?: string;
  /** Extra fields of the 202 body (auth endpoints add `type`). */
  extra?: Record<string, unknown>;
}

export interface VerifiedRetry extends StampCheck {
  request: PendingRequest;
  stage: string;
  context: unknown;
}

/** Hex SHA-256 of a request body as sent (`rawBody`). */
export function bodyDigest(rawBody: string): string {
  return createHash('sha256').update(rawBody, 'utf8').digest('hex');
}

/** Records a challenge for `ctx`'s method, path and body and answers `202`. */
export function issueChallenge(ctx: RequestContext, spec: ChallengeSpec): Reply {
  const { clock, store } = ctx.state;
  const now = clock.now();
  const id = newId('Request');
  const payloadToSign =
    spec.payloadToSign ??
    JSON.stringify({
      type: `ACTIVITY_TYPE_${spec.type}`,
      requestId: id,
      organizationId: spec.organizationId,
      timestampMs: String(now),
      parameters: spec.parameters,
      bodyDigest: bodyDigest(ctx.rawBody),
    });
  const request: PendingRequest = {
    id,
    method: ctx.method,
    path: ctx.path,
    rawBody: ctx.rawBody,
    payloadToSign,
    signer: spec.signer,
    stage: spec.stage ?? 'leg2',
    context: spec.context,
    createdAt: now,
    expiresAt: now + CHALLENGE_TTL_MS,
    used: false,
  };
  store.requests.set(id, request);
  return json(202, present('Challenge', { ...spec.extra, payloadToSign, requestId: id, expiresAt: new Date(request.expiresAt).toISOString() }));
}

/** The two signed-retry headers of a request (trimmed, empty counts as absent). */
export function retryHeaders(ctx: RequestContext): { stamp: string | undefined; requestId: string | undefined } {
  return { stamp: ctx.header(SIGNATURE_HEADER), requestId: ctx.header(REQUEST_ID_HEADER) };
}

/** Looks up a pending request for this call; 404 / 401 per rules 5–6 above. Does not consume it. */
export function pendingRequest(state: SandboxState, requestId: string, method: string, path: string): PendingRequest {
  const request = state.store.requests.get(requestId);
  if (request === undefined || request.method !== method || request.path !== path) {
    throw notFound('REQUEST_NOT_FOUND', 'No pending signed request with this Request-Id for this call');
  }
  if (request.used) throw unauthorized('WALLET_SIGNATURE_INVALID', 'This Request-Id was already used', { requestStatus: 'USED' });
  if (state.clock.now() >= request.expiresAt) {
    throw unauthorized('WALLET_SIGNATURE_INVALID', 'This Request-Id has expired: start again without signature headers', { requestStatus: 'EXPIRED' });
  }
  return request;
}

/**
 * Verifies a signed retry (rules above). Returns null on a first leg. On success the request id is
 * consumed. Synchronous: the handler may mutate state right after without re-checking races.
 */
export function verifyRetry(ctx: RequestContext): VerifiedRetry | null {
  const { stamp, requestId } = retryHeaders(ctx);
  if (stamp === undefined && requestId === undefined) return null;
  if (stamp === undefined) throw unauthorized('WALLET_SIGNATURE_MISSING', `${SIGNATURE_HEADER} is required on the signed retry`);
  if (requestId === undefined) throw unauthorized('REQUEST_ID_MISSING', `${REQUEST_ID_HEADER} is required with ${SIGNATURE_HEADER}`);
  const parsed = readStamp(stamp);
  const request = pendingRequest(ctx.state, requestId, ctx.method, ctx.path);
  if (request.rawBody !== ctx.rawBody) {
    throw unauthorized('WALLET_SIGNATURE_BODY_MISMATCH', 'The retry body differs from the body of the first call');
  }
  const check = checkParsedStamp(ctx.state, parsed, request.payloadToSign, request.signer);
  request.used = true;
  return { ...check, request, stage: request.stage, context: request.context };
}

/**
 * For actions signed without a 202 leg (quote execution, spec §4.3): the stamp must be present
 * (`401 WALLET_SIGNATURE_MISSING`) and valid over `payloadToSign` for `rule`.
 */
export function requireStamp(ctx: RequestContext, payloadToSign: string, rule: SignerRule): StampCheck {
  const stamp = ctx.header(SIGNATURE_HEADER);
  if (stamp === undefined) throw unauthorized('WALLET_SIGNATURE_MISSING', `${SIGNATURE_HEADER} is required`);
  return checkStamp(ctx.state, stamp, payloadToSign, rule);
}
