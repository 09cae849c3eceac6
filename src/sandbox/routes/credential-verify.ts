/**
 * `POST /auth/credentials/{id}/verify` (wire-reference §5.1–5.3): verifies a credential and creates
 * a session (domain/sessions.ts).
 *
 * - EMAIL_OTP / SMS_OTP `{ type, encryptedOtpBundle }`: first leg opens the bundle (domain/otp.ts)
 *   and answers `202 { type, payloadToSign: <verification token>, requestId, expiresAt }`; the
 *   retry, stamped with the key bound in the token (or the sandbox literal), answers
 *   `200 AuthSession`. The session key is that compressed key (no sealed key).
 * - OAUTH `{ type, oidcToken, clientPublicKey }` → `200 AuthSession` at once (domain/oidc.ts rules).
 * - PASSKEY `{ type, assertion }` + `Request-Id` of the passkey challenge → `200 AuthSession`.
 *   Missing `Request-Id` → `401 REQUEST_ID_MISSING`; unknown (or another credential's) →
 *   `404 REQUEST_NOT_FOUND`; used or expired → `401 WALLET_SIGNATURE_INVALID` with
 *   `details.requestStatus`. A failed assertion does not consume the challenge.
 * - `type` is optional (issue 34): spec §4.5 lists the verify body's fields per credential type
 *   (`encryptedOtpBundle`; `oidcToken` and `clientPublicKey`; the assertion) without a `type`; the
 *   wire reference's bodies carry one. The credential in the path says which type it is; a `type`
 *   that is sent must be that type (`400 INVALID_INPUT`, a body for another credential). An uncompressed `clientPublicKey`
 *   (OAuth, passkey challenge) gives a legacy session with `encryptedSessionSigningKey`.
 */
import { json, type RequestContext } from '../context.js';
import { parsePublicKey } from '../crypto/p256.js';
import { checkOidcLogin, parseOidcToken, spendOidcToken } from '../domain/oidc.js';
import { verificationToken, verifyOtpBundle } from '../domain/otp.js';
import { verifyPasskeyAssertion, type AssertionInput } from '../domain/passkeys.js';
import { assertFreshClientKey, createSession, insertSession } from '../domain/sessions.js';
import { invalidField, notFound, unauthorized } from '../errors.js';
import { requireAuthMethod, requireWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { issueChallenge, verifyRetry } from '../signed-retry.js';
import { REQUEST_ID_HEADER } from '../stamp.js';
import type { AuthMethodRecord } from '../store.js';
import { BASE64URL_PATTERN, Fields } from '../validate.js';

const B64URL = { pattern: BASE64URL_PATTERN, format: 'must be base64url without padding' } as const;

function checkType(f: Fields, method: AuthMethodRecord): void {
  const type = f.string('type', { max: 32 });
  if (type !== undefined && type !== method.type) f.add('type', 'ENUM', `must be ${method.type} for this credential`);
}

async function verifyOtp(ctx: RequestContext, method: AuthMethodRecord, organizationId: string) {
  const retry = verifyRetry(ctx);
  const f = Fields.of(ctx.body);
  f.onlyKnown(['type', 'encryptedOtpBundle']);
  checkType(f, method);
  const bundle = f.string('encryptedOtpBundle', { required: true, max: 8192 });
  f.done();
  if (retry === null) {
    const key = await verifyOtpBundle(ctx.state, method, f.req(bundle));
    const { token } = verificationToken(ctx.state, method, key.compressed);
    return issueChallenge(ctx, {
      type: 'OTP_LOGIN',
      organizationId,
      parameters: {},
      payloadToSign: token,
      signer: { kind: 'key', publicKey: key.compressed },
      context: key.compressed,
      extra: { type: method.type },
    });
  }
  const session = insertSession(ctx.state, method, retry.context as string);
  return json(200, session.view);
}

async function verifyOauth(ctx: RequestContext, method: AuthMethodRecord) {
  const f = Fields.of(ctx.body);
  f.onlyKnown(['type', 'oidcToken', 'clientPublicKey']);
  checkType(f, method);
  const token = f.string('oidcToken', { required: true, max: 16_384 });
  const parsed = f.publicKey('clientPublicKey', { required: true });
  f.done();
  const key = f.req(parsed);
  const claims = parseOidcToken(token);
  if (method.oauth === undefined) throw invalidField('type', 'ENUM', 'the credential is not an OAUTH credential');
  checkOidcLogin(ctx.state, claims, method.oauth, key.hex);
  assertFreshClientKey(ctx.state, key);
  spendOidcToken(ctx.state, claims);
  const session = await createSession(ctx.state, method, key);
  return json(200, session.view);
}

function parseAssertion(ctx: RequestContext, method: AuthMethodRecord): AssertionInput {
  const f = Fields.of(ctx.body);
  f.onlyKnown(['type', 'assertion']);
  checkType(f, method);
  const a = f.object('assertion', { required: true });
  // Decided here (issue 25): unknown fields inside the assertion are accepted and ignored, as the
  // service must: browsers' PublicKeyCredential JSON carries more (authenticatorAttachment,
  // clientExtensionResults, type…), and what is verified is the signed bytes, not the wrapper.
  const credentialId = a?.string('credentialId', { required: true, max: 1024, ...B64URL });
  const clientDataJson = a?.string('clientDataJson', { required: true, max: 65_536, ...B64URL });
  const authenticatorData = a?.string('authenticatorData', { required: true, max: 65_536, ...B64URL });
  const signature = a?.string('signature', { required: true, max: 1024, ...B64URL });
  const userHandle = a?.string('userHandle', { max: 1024, ...B64URL });
  f.done();
  return {
    credentialId: f.req(credentialId),
    clientDataJson: f.req(clientDataJson),
    authenticatorData: f.req(authenticatorData),
    signature: f.req(signature),
    ...(userHandle !== undefined && userHandle !== '' ? { userHandle } : {}),
  };
}

async function verifyPasskey(ctx: RequestContext, method: AuthMethodRecord) {
  const state = ctx.state;
  const assertion = parseAssertion(ctx, method);
  const requestId = ctx.header(REQUEST_ID_HEADER);
  if (requestId === undefined) throw unauthorized('REQUEST_ID_MISSING', `${REQUEST_ID_HEADER} (the passkey challenge's requestId) is required`);
  const check = () => {
    const c = state.store.passkeyChallenges.get(requestId);
    if (c === undefined || c.authMethodId !== method.id) throw notFound('REQUEST_NOT_FOUND', 'No passkey challenge with this Request-Id for this credential');
    if (c.used) throw unauthorized('WALLET_SIGNATURE_INVALID', 'This passkey challenge was already used', { requestStatus: 'USED' });
    if (state.clock.now() >= c.expiresAt) throw unauthorized('WALLET_SIGNATURE_INVALID', 'This passkey challenge has expired', { requestStatus: 'EXPIRED' });
    return c;
  };
  const challenge = check();
  await verifyPasskeyAssertion(state, method, challenge.challenge, assertion);
  check().used = true;
  const key = parsePublicKey(challenge.clientPublicKey);
  if (key === undefined) throw invalidField('clientPublicKey', 'FORMAT', 'is not a P-256 public key');
  const session = await createSession(state, method, key);
  return json(200, session.view);
}

async function verifyCredential(ctx: RequestContext) {
  const method = requireAuthMethod(ctx.state, ctx.param('id'));
  const account = requireWallet(ctx.state, method.accountId);
  switch (method.type) {
    case 'EMAIL_OTP':
    case 'SMS_OTP':
      return verifyOtp(ctx, method, account.organizationId);
    case 'OAUTH':
      return verifyOauth(ctx, method);
    case 'PASSKEY':
      return verifyPasskey(ctx, method);
  }
}

export function registerCredentialVerifyRoutes(router: Router): void {
  router.post('/auth/credentials/:id/verify', verifyCredential);
}
