/**
 * Passkeys (wire-reference §5.3), verified with @simplewebauthn/server against the configured
 * origin(s) and RP ID.
 *
 * - Registration: the client's own base64url `challenge` must be the one inside `clientDataJson`;
 *   attestation fields are base64url. Failures → `400 INVALID_INPUT` (`details.cause =
 *   "PASSKEY_ATTESTATION_INVALID"`). Any attestation format the library verifies is accepted
 *   ("none" included).
 * - Authentication: `challenge` = lowercase hex SHA-256 of the canonical session-creation body
 *   {@link canonicalSessionBody}, which binds `clientPublicKey`; the WebAuthn challenge is
 *   utf8(challenge) (64 ASCII bytes), so `clientDataJSON.challenge` = base64url(utf8(challenge)).
 *   Failures → `401 WALLET_SIGNATURE_INVALID` (`details.cause = "PASSKEY_ASSERTION_INVALID"`,
 *   spec §7.2: "failed cryptographic verification against the registered credential").
 * - Cross-origin ceremonies (a passkey used in a frame of another origin, e.g. the signer frame in
 *   the app's page; WebAuthn L3 §5.8.1 `crossOrigin`, `topOrigin`): decided here, as
 *   @simplewebauthn/server's `expectedTopOrigin` does, no stricter. `origin` must be one of the
 *   configured origins as for any ceremony; when `crossOrigin` is true and `topOrigin` is present
 *   it must be one of the configured top origins (`topOrigin` option; none by default, so a
 *   cross-origin ceremony naming its top is refused unless configured); a `topOrigin` without
 *   `crossOrigin: true` is refused (the spec sets it only for cross-origin calls). A cross-origin
 *   ceremony without `topOrigin` (the member is optional: browsers that do not send it) is judged
 *   by its `origin` alone. WebAuthn L3 §7.1 step 10 and §7.2 step 12 apply the rule to registration
 *   and authentication alike; @simplewebauthn/server 14 checks it for assertions only, so
 *   {@link crossOriginProblem} checks both ceremonies' client data first (and the assertion's
 *   `expectedTopOrigin` says the same). `crossOrigin` other than a boolean, or `topOrigin` other
 *   than a string, is malformed client data. Refusals as for any other bad client data.
 * - Decided here: user verification is not required (user presence is); the signature counter
 *   must increase when the authenticator keeps one.
 * - `userHandle` (WebAuthn §7.2 step 6: when present it must map to the credential's owner). The
 *   registration body carries no user handle, so the first assertion that sends one pins it to the
 *   credential; later assertions must send the same one (or none), and a handle pinned to a
 *   credential of another wallet names another user. Else `401 WALLET_SIGNATURE_INVALID`.
 */
import { createHash } from 'node:crypto';
import type { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { webauthnServer } from '../peers.js';
import { bytesToBase64url, utf8 } from '../crypto/encoding.js';
import { invalidInput, unauthorized } from '../errors.js';
import type { SandboxState } from '../context.js';
import type { AuthMethodRecord } from '../store.js';

export interface AttestationInput {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports?: string[];
}

export interface AssertionInput {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}

export interface RegisteredPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports?: string[];
}

/** `expectedTopOrigin` for @simplewebauthn/server (assertions): left out when none is configured (it then refuses any `topOrigin`). */
function topOrigins(state: SandboxState): { expectedTopOrigin?: string[] } {
  return state.config.topOrigins.length > 0 ? { expectedTopOrigin: [...state.config.topOrigins] } : {};
}

/** Why `clientDataJson` (base64url) breaks the cross-origin rule above, or undefined when it keeps it. */
export function crossOriginProblem(state: SandboxState, clientDataJson: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8'));
  } catch {
    return undefined; // not JSON: the library's own checks refuse it
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { crossOrigin, topOrigin } = data as { crossOrigin?: unknown; topOrigin?: unknown };
  if (crossOrigin !== undefined && typeof crossOrigin !== 'boolean') return 'clientDataJSON.crossOrigin is not a boolean';
  if (topOrigin === undefined) return undefined;
  if (typeof topOrigin !== 'string') return 'clientDataJSON.topOrigin is not a string';
  if (crossOrigin !== true) return 'clientDataJSON.topOrigin is set on a ceremony that is not cross-origin';
  if (!state.config.topOrigins.includes(topOrigin)) return `cross-origin ceremony from top origin "${topOrigin}", which is not an allowed top origin`;
  return undefined;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : 'verification failed';
}

export async function verifyPasskeyRegistration(state: SandboxState, challenge: string, attestation: AttestationInput): Promise<RegisteredPasskey> {
  const fail = (why: string): never => {
    throw invalidInput(`The passkey attestation was rejected: ${why}`, [{ field: 'attestation', constraint: 'FORMAT', message: why }], {
      cause: 'PASSKEY_ATTESTATION_INVALID',
    });
  };
  const crossOrigin = crossOriginProblem(state, attestation.clientDataJson);
  if (crossOrigin !== undefined) return fail(crossOrigin);
  const { verifyRegistrationResponse } = await webauthnServer();
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: attestation.clientDataJson,
          attestationObject: attestation.attestationObject,
          ...(attestation.transports !== undefined ? { transports: attestation.transports as never } : {}),
        },
        clientExtensionResults: {},
      },
      expectedChallenge: challenge,
      expectedOrigin: state.config.origins,
      expectedRPID: state.config.rpId,
      requireUserVerification: false,
    });
  } catch (e) {
    return fail(message(e));
  }
  if (!result.verified) return fail('not verified');
  const { credential } = result.registrationInfo;
  if (credential.id !== attestation.credentialId) return fail('credentialId does not match the attested credential');
  return {
    credentialId: credential.id,
    publicKey: new Uint8Array(credential.publicKey),
    counter: credential.counter,
    ...(attestation.transports !== undefined ? { transports: [...attestation.transports] } : {}),
  };
}

/** The canonical session-creation body whose SHA-256 (hex) is the passkey challenge. */
export function canonicalSessionBody(args: {
  organizationId: string;
  accountId: string;
  authMethodId: string;
  credentialId: string;
  clientPublicKey: string;
  requestId: string;
  timestampMs: number;
}): string {
  return JSON.stringify({
    type: 'ACTIVITY_TYPE_CREATE_SESSION',
    organizationId: args.organizationId,
    parameters: {
      accountId: args.accountId,
      authMethodId: args.authMethodId,
      credentialId: args.credentialId,
      clientPublicKey: args.clientPublicKey,
    },
    requestId: args.requestId,
    timestampMs: String(args.timestampMs),
  });
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Verifies an assertion for `method` over `challenge` (hex) and advances its counter. */
export async function verifyPasskeyAssertion(state: SandboxState, method: AuthMethodRecord, challenge: string, assertion: AssertionInput): Promise<void> {
  const fail = (why: string): never => {
    throw unauthorized('WALLET_SIGNATURE_INVALID', `The passkey assertion was rejected: ${why}`, { cause: 'PASSKEY_ASSERTION_INVALID' });
  };
  const passkey = method.passkey;
  if (passkey === undefined || method.credentialId === undefined) return fail('the credential is not a passkey');
  if (assertion.credentialId !== method.credentialId) return fail('credentialId is not this credential');
  const handle = assertion.userHandle;
  if (handle !== undefined) {
    if (passkey.userHandle !== undefined && passkey.userHandle !== handle) return fail('userHandle is not the user of this credential');
    for (const m of state.store.authMethods.values()) {
      if (m.accountId !== method.accountId && m.passkey?.userHandle === handle) return fail('userHandle names the user of another wallet');
    }
  }
  const crossOrigin = crossOriginProblem(state, assertion.clientDataJson);
  if (crossOrigin !== undefined) return fail(crossOrigin);
  const { verifyAuthenticationResponse } = await webauthnServer();
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: {
        id: assertion.credentialId,
        rawId: assertion.credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: assertion.clientDataJson,
          authenticatorData: assertion.authenticatorData,
          signature: assertion.signature,
          ...(assertion.userHandle !== undefined ? { userHandle: assertion.userHandle } : {}),
        },
        clientExtensionResults: {},
      },
      expectedChallenge: bytesToBase64url(utf8(challenge)),
      expectedOrigin: state.config.origins,
      expectedRPID: state.config.rpId,
      ...topOrigins(state),
      credential: {
        id: method.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        ...(passkey.transports !== undefined ? { transports: passkey.transports as never } : {}),
      },
      requireUserVerification: false,
    });
  } catch (e) {
    return fail(message(e));
  }
  if (!result.verified) return fail('not verified');
  passkey.counter = result.authenticationInfo.newCounter;
  if (handle !== undefined) passkey.userHandle ??= handle;
}
