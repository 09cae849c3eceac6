/**
 * Credentials (wire-reference §5, spec §4.5): add (signed retry), list, delete (signed retry by a
 * session of another credential), challenge.
 *
 * Limits: at most {@link MAX_CREDENTIALS} per account (the next add → `400 INVALID_INPUT`,
 * `details.cause = "CREDENTIAL_LIMIT"`), one EMAIL_OTP (`400 EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS`),
 * one SMS_OTP (`400 SMS_OTP_CREDENTIAL_ALREADY_EXISTS`), passkeys with a `credentialId` no wallet
 * holds yet (`400 PASSKEY_CREDENTIAL_ALREADY_EXISTS`); an OTP type whose contact the customer lacks →
 * `400 MISSING_MANDATORY_USER_INFO`, whose contact another wallet's OTP credential holds → `409
 * EMAIL_OTP_EMAIL_ALREADY_EXISTS / SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS` (domain/contacts.ts); an
 * OAUTH token that is malformed, expired or names none of the platform's OAuth client ids → `400
 * INVALID_INPUT` (domain/oidc.ts; no nonce, age or replay rule at registration). Decided here: the same OIDC identity (iss + sub) twice on an
 * account → `400 INVALID_INPUT` (no dedicated code exists). The checks run on the first leg and
 * again on the retry.
 *
 * Adding an OTP credential sends the first code on the retry: the `201` carries
 * `otpEncryptionTargetBundle` (it counts against the challenge rate limit). The credential becomes
 * usable for sessions through `/verify` like any OTP credential.
 *
 * Deleting: the last credential cannot go (`400 INVALID_INPUT`, `details.cause = "LAST_CREDENTIAL"`);
 * the retry must be signed by an active session of another credential of the account (else
 * `401 WALLET_SIGNATURE_INVALID`, `details.cause = "SAME_CREDENTIAL_SESSION"` or
 * `"NO_ACTIVE_SESSION"`); the credential's sessions end with it → `204`.
 *
 * Challenge: OTP → a new code and a fresh `otpEncryptionTargetBundle` (`200 AuthMethodResponse`);
 * PASSKEY `{ clientPublicKey }` → `200 PasskeyAuthChallenge`; OAUTH has no challenge step
 * (`400 INVALID_INPUT`); rate limit in domain/rate-limit.ts.
 */
import { json, noContent, type RequestContext, type SandboxState } from '../context.js';
import { assertContactFree } from '../domain/contacts.js';
import { boundAudience, checkOidcRegistration, parseOidcToken } from '../domain/oidc.js';
import { issueOtp } from '../domain/otp.js';
import { canonicalSessionBody, sha256Hex, verifyPasskeyRegistration, type RegisteredPasskey } from '../domain/passkeys.js';
import { takeChallengeSlot } from '../domain/rate-limit.js';
import { assertFreshClientKey, revokeSessionsOf } from '../domain/sessions.js';
import { badRequest, invalidInput } from '../errors.js';
import { requireAuthMethod, requireCustomer, requireProvisionedWallet, requireWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { CHALLENGE_TTL_MS, issueChallenge, verifyRetry } from '../signed-retry.js';
import { CREDENTIAL_TYPES, newId, type AuthMethodRecord, type InternalAccountRecord } from '../store.js';
import { BASE64URL_PATTERN, Fields, queryParam } from '../validate.js';
import { authMethodAnswer, authMethodView } from '../views.js';

export const MAX_CREDENTIALS = 5;

const B64URL = { pattern: BASE64URL_PATTERN, format: 'must be base64url without padding' } as const;

type AddRequest =
  | { type: 'EMAIL_OTP' | 'SMS_OTP'; accountId: string }
  | { type: 'OAUTH'; accountId: string; oidcToken: string }
  | {
      type: 'PASSKEY';
      accountId: string;
      nickname: string;
      challenge: string;
      attestation: { credentialId: string; clientDataJson: string; attestationObject: string; transports?: string[] };
    };

function parseAdd(body: unknown): AddRequest {
  const f = Fields.of(body);
  const type = f.enum('type', CREDENTIAL_TYPES, { required: true });
  const accountId = f.string('accountId', { required: true, max: 200 });
  if (type === 'OAUTH') {
    f.onlyKnown(['type', 'accountId', 'oidcToken']);
    const oidcToken = f.string('oidcToken', { required: true, max: 16_384 });
    f.done();
    return { type, accountId: f.req(accountId), oidcToken: f.req(oidcToken) };
  }
  if (type === 'PASSKEY') {
    f.onlyKnown(['type', 'accountId', 'nickname', 'challenge', 'attestation']);
    const nickname = f.string('nickname', { required: true, max: 100 });
    const challenge = f.string('challenge', { required: true, min: 16, max: 1024, ...B64URL });
    const att = f.object('attestation', { required: true });
    const credentialId = att?.string('credentialId', { required: true, max: 1024, ...B64URL });
    const clientDataJson = att?.string('clientDataJson', { required: true, max: 65_536, ...B64URL });
    const attestationObject = att?.string('attestationObject', { required: true, max: 262_144, ...B64URL });
    const transports = att?.stringArray('transports', { maxItems: 10, item: { max: 32 } });
    // Decided here (issue 25): unknown fields inside the attestation (authenticatorAttachment,
    // publicKeyAlgorithm, clientExtensionResults… that browsers send) are accepted and ignored;
    // the top-level body stays closed (those fields are ours, not the browser's).
    f.done();
    return {
      type,
      accountId: f.req(accountId),
      nickname: f.req(nickname),
      challenge: f.req(challenge),
      attestation: {
        credentialId: f.req(credentialId),
        clientDataJson: f.req(clientDataJson),
        attestationObject: f.req(attestationObject),
        ...(transports !== undefined ? { transports } : {}),
      },
    };
  }
  f.onlyKnown(['type', 'accountId']);
  f.done();
  return { type: f.req(type), accountId: f.req(accountId) };
}

/** State checks of an add, run on both legs. Returns the nickname the credential will carry. */
function checkAdd(state: SandboxState, account: InternalAccountRecord, req: AddRequest, passkeyId: string | undefined): string {
  const existing = state.store.authMethodsOf(account.id);
  if (existing.length >= MAX_CREDENTIALS) {
    throw invalidInput(`An account holds at most ${MAX_CREDENTIALS} credentials`, undefined, { cause: 'CREDENTIAL_LIMIT', limit: MAX_CREDENTIALS });
  }
  const customer = requireCustomer(state, account.customerId);
  switch (req.type) {
    case 'EMAIL_OTP':
      if (existing.some((m) => m.type === 'EMAIL_OTP')) throw badRequest('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an EMAIL_OTP credential');
      if (customer.email === undefined) throw badRequest('MISSING_MANDATORY_USER_INFO', 'The customer has no email');
      assertContactFree(state, customer.id, 'email', customer.email);
      return customer.email;
    case 'SMS_OTP':
      if (existing.some((m) => m.type === 'SMS_OTP')) throw badRequest('SMS_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an SMS_OTP credential');
      if (customer.phoneNumber === undefined) throw badRequest('MISSING_MANDATORY_USER_INFO', 'The customer has no phoneNumber');
      assertContactFree(state, customer.id, 'phoneNumber', customer.phoneNumber);
      return customer.phoneNumber;
    case 'OAUTH': {
      const claims = parseOidcToken(req.oidcToken);
      checkOidcRegistration(state, claims);
      if (existing.some((m) => m.oauth !== undefined && m.oauth.iss === claims.iss && m.oauth.sub === claims.sub)) {
        throw invalidInput('This OIDC identity is already a credential of this account', undefined, { cause: 'OAUTH_CREDENTIAL_ALREADY_EXISTS' });
      }
      return claims.email ?? claims.sub;
    }
    case 'PASSKEY':
      // A WebAuthn credential id names one authenticator key: it backs one credential, on one wallet.
      for (const m of state.store.authMethods.values()) {
        if (m.credentialId === passkeyId) throw badRequest('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'This passkey is already a credential (of this or another wallet)');
      }
      return req.nickname;
  }
}

async function addCredential(ctx: RequestContext) {
  const state = ctx.state;
  const retry = verifyRetry(ctx);
  const req = parseAdd(ctx.body);
  const account = requireProvisionedWallet(state, req.accountId);
  if (retry === null) {
    let passkey: RegisteredPasskey | undefined;
    if (req.type === 'PASSKEY') {
      checkAdd(state, account, req, req.attestation.credentialId);
      passkey = await verifyPasskeyRegistration(state, req.challenge, req.attestation);
    }
    checkAdd(state, account, req, passkey?.credentialId);
    return issueChallenge(ctx, {
      type: 'CREATE_AUTHENTICATORS',
      organizationId: account.organizationId,
      parameters: { accountId: account.id, credentialType: req.type, ...(req.type === 'PASSKEY' ? { nickname: req.nickname, credentialId: req.attestation.credentialId } : {}) },
      signer: { kind: 'session', accountIds: [account.id] },
      context: passkey,
      extra: { type: req.type },
    });
  }
  const passkey = retry.context as RegisteredPasskey | undefined;
  const nickname = checkAdd(state, account, req, passkey?.credentialId);
  const now = state.clock.now();
  const method: AuthMethodRecord = {
    id: newId('AuthMethod'),
    accountId: account.id,
    type: req.type,
    nickname,
    createdAt: now,
    updatedAt: now,
  };
  if (req.type === 'OAUTH') {
    const claims = parseOidcToken(req.oidcToken);
    method.oauth = { iss: claims.iss, sub: claims.sub, aud: boundAudience(state, claims) ?? '' };
  }
  if (passkey !== undefined) {
    method.credentialId = passkey.credentialId;
    method.passkey = { publicKey: passkey.publicKey, counter: passkey.counter, ...(passkey.transports !== undefined ? { transports: passkey.transports } : {}) };
  }
  if (method.type === 'EMAIL_OTP' || method.type === 'SMS_OTP') {
    state.store.authMethods.set(method.id, method);
    takeChallengeSlot(state, method.id);
    const bundle = await issueOtp(state, method, account.organizationId);
    return json(201, authMethodAnswer('AuthMethodResponse', method, { otpEncryptionTargetBundle: bundle }));
  }
  state.store.authMethods.set(method.id, method);
  return json(201, authMethodView(method));
}

function listCredentials(ctx: RequestContext) {
  const accountId = queryParam(ctx.query, 'accountId', { required: true, max: 200 }) as string;
  const account = requireWallet(ctx.state, accountId);
  return json(200, { data: ctx.state.store.authMethodsOf(account.id).map(authMethodView) });
}

function assertNotLast(state: SandboxState, method: AuthMethodRecord): void {
  if (state.store.authMethodsOf(method.accountId).length <= 1) {
    throw invalidInput('The last credential of an account cannot be deleted', undefined, { cause: 'LAST_CREDENTIAL' });
  }
}

function deleteCredential(ctx: RequestContext) {
  const state = ctx.state;
  const method = requireAuthMethod(state, ctx.param('id'));
  const account = requireWallet(state, method.accountId);
  const retry = verifyRetry(ctx);
  assertNotLast(state, method);
  if (retry === null) {
    return issueChallenge(ctx, {
      type: 'DELETE_AUTHENTICATORS',
      organizationId: account.organizationId,
      parameters: { accountId: account.id, authMethodId: method.id, credentialType: method.type },
      signer: { kind: 'session', accountIds: [account.id], excludeAuthMethodId: method.id },
      extra: { type: method.type },
    });
  }
  state.store.authMethods.delete(method.id);
  state.store.otpIssuances.delete(method.id);
  state.store.challengeTimes.delete(method.id);
  revokeSessionsOf(state, method.id);
  return noContent();
}

async function challengeCredential(ctx: RequestContext) {
  const state = ctx.state;
  const method = requireAuthMethod(state, ctx.param('id'));
  const account = requireWallet(state, method.accountId);
  const f = Fields.ofOptional(ctx.body);
  if (method.type === 'OAUTH') throw invalidInput('OAUTH credentials have no challenge step: call /verify with a fresh token');
  if (method.type === 'PASSKEY') {
    const parsed = f.publicKey('clientPublicKey', { required: true });
    f.done();
    const key = f.req(parsed);
    assertFreshClientKey(state, key);
    takeChallengeSlot(state, method.id);
    const now = state.clock.now();
    const requestId = newId('Request');
    const clientPublicKey = key.hex;
    const challenge = sha256Hex(
      canonicalSessionBody({
        organizationId: account.organizationId,
        accountId: account.id,
        authMethodId: method.id,
        credentialId: method.credentialId ?? '',
        clientPublicKey,
        requestId,
        timestampMs: now,
      }),
    );
    const expiresAt = now + CHALLENGE_TTL_MS;
    state.store.passkeyChallenges.set(requestId, { requestId, authMethodId: method.id, accountId: account.id, clientPublicKey, challenge, expiresAt, used: false });
    return json(200, authMethodAnswer('PasskeyAuthChallenge', method, { credentialId: method.credentialId, challenge, requestId, expiresAt: new Date(expiresAt).toISOString() }));
  }
  f.done();
  takeChallengeSlot(state, method.id);
  const bundle = await issueOtp(state, method, account.organizationId);
  return json(200, authMethodAnswer('OtpChallenge', method, { otpEncryptionTargetBundle: bundle }));
}

export function registerCredentialRoutes(router: Router): void {
  router.post('/auth/credentials', addCredential);
  router.get('/auth/credentials', listCredentials);
  router.delete('/auth/credentials/:id', deleteCredential);
  router.post('/auth/credentials/:id/challenge', challengeCredential);
}
