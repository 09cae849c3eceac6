/**
 * Email and SMS OTP (wire-reference §5.1).
 *
 * Issuance: a fresh HPKE target key per issuance (the previous issuance of the credential is
 * forgotten, so a bundle sealed to it is refused), an `otpEncryptionTargetBundle` signed by the
 * enclave whose `data` is hex of `{"targetPublic","organizationId"}`. No message is sent; the code
 * is `000000`.
 *
 * Verification, decided here where the reference is open:
 * - an issuance lives {@link OTP_TTL_MS} (5 minutes); after it → `400 INVALID_INPUT`,
 *   `details.cause = "OTP_EXPIRED"` (sandbox profile);
 * - a wrong code → `400 INVALID_INPUT`, `details.cause = "OTP_CODE_INVALID"`, `details.attemptsLeft`
 *   (sandbox profile). Decided here: spec §7.1 lists "an OTP bundle rejected" under 400
 *   INVALID_INPUT and §7.2 keeps 401 UNAUTHORIZED for the API credentials, so every refusal of a
 *   bundle is 400 INVALID_INPUT (the wire reference's "401 for a wrong code" yields to the spec);
 *   after {@link OTP_MAX_ATTEMPTS} wrong codes the issuance is burnt (then `OTP_EXPIRED`);
 * - a right code consumes the issuance (a code works once);
 * - an undecryptable or malformed bundle, a plaintext that is not `{otp_code, public_key}`, or an
 *   uncompressed / invalid `public_key` → `400 INVALID_INPUT` (spec §7.1: "an OTP bundle rejected").
 * - as strict as the spec, no stricter (issue 34): spec §4.5 describes the bundle as "JSON of
 *   encappedPublic, ciphertext" and the plaintext as "a JSON object with otp_code and public_key"
 *   (66 hex characters): the fields may come in any order and the hex in any case (normalised to
 *   lowercase; the verification token binds the key's lowercase compressed hex, and a stamp's key
 *   is compared by its bytes, stamp.ts). A field given twice is refused (two parsers could read
 *   different values); other fields are ignored;
 * - no issuance at all (never challenged) → `400 INVALID_INPUT`; a `public_key` that backed a session
 *   before → `400 INVALID_INPUT` (one key, one session), checked before the code so it costs no try.
 */
import { randomUUID } from 'node:crypto';
import { fromUtf8, hexToBytes, parseJson } from '../crypto/encoding.js';
import { generateHpkeKey, hpkeOpen } from '../crypto/hpke.js';
import { parsePublicKey, type ParsedPublicKey } from '../crypto/p256.js';
import { jsonBytes } from '../enclave.js';
import { assertFreshKey } from './sessions.js';
import { invalidField, invalidInput } from '../errors.js';
import type { SandboxState } from '../context.js';
import type { AuthMethodRecord, OtpIssuance } from '../store.js';
import { isPlainObject } from '../validate.js';
import { duplicateKey } from '../../json-duplicate-key.js';

/** The one-time code every OTP login of the sandbox accepts (no email or SMS is sent). */
export const SANDBOX_OTP_CODE = '000000';
export const OTP_TTL_MS = 5 * 60 * 1000;
export const OTP_MAX_ATTEMPTS = 5;
/** Lifetime of the verification token (the OTP verify payloadToSign). */
export const VERIFICATION_TOKEN_TTL_MS = 5 * 60 * 1000;

/** Issues a new OTP for the credential and returns its signed target bundle. The caller rate-limits. */
export async function issueOtp(state: SandboxState, method: AuthMethodRecord, organizationId: string): Promise<string> {
  const { keyPair, publicKey } = await generateHpkeKey();
  const now = state.clock.now();
  const issuance: OtpIssuance = {
    id: randomUUID(),
    authMethodId: method.id,
    targetKey: keyPair,
    targetPublic: publicKey,
    issuedAt: now,
    expiresAt: now + OTP_TTL_MS,
    failedAttempts: 0,
    consumed: false,
  };
  state.store.otpIssuances.set(method.id, issuance);
  return state.enclave.signedBundle(jsonBytes({ targetPublic: Buffer.from(publicKey).toString('hex'), organizationId }));
}

function rejectBundle(message: string): never {
  throw invalidField('encryptedOtpBundle', 'FORMAT', message);
}

function currentIssuance(state: SandboxState, method: AuthMethodRecord): OtpIssuance {
  const issuance = state.store.otpIssuances.get(method.id);
  if (issuance === undefined) return rejectBundle('no code was issued for this credential: call /challenge first');
  if (issuance.consumed || state.clock.now() >= issuance.expiresAt) {
    throw invalidInput('The code has expired or was already used: request a new one', undefined, { cause: 'OTP_EXPIRED' });
  }
  return issuance;
}

/**
 * Opens an `encryptedOtpBundle`, checks the code and consumes the issuance. Returns the session
 * public key the client bound (compressed).
 */
export async function verifyOtpBundle(state: SandboxState, method: AuthMethodRecord, encryptedOtpBundle: string): Promise<ParsedPublicKey> {
  const parsed = parseJson(encryptedOtpBundle);
  if (parsed === undefined || !isPlainObject(parsed.value)) return rejectBundle('must be a JSON string {"encappedPublic","ciphertext"}');
  if (duplicateKey(encryptedOtpBundle) !== undefined) return rejectBundle('a field appears twice');
  const { encappedPublic, ciphertext } = parsed.value;
  const enc = typeof encappedPublic === 'string' ? parsePublicKey(encappedPublic.toLowerCase()) : undefined;
  if (enc === undefined || enc.form !== 'uncompressed') return rejectBundle('encappedPublic must be an uncompressed P-256 key in hex');
  const ct = typeof ciphertext === 'string' ? hexToBytes(ciphertext.toLowerCase()) : undefined;
  if (ct === undefined || ct.length < 17 || ct.length > 4096) return rejectBundle('ciphertext must be hex of ciphertext‖tag');

  const issuance = currentIssuance(state, method);
  const plain = await hpkeOpen({ keyPair: issuance.targetKey, publicKey: issuance.targetPublic }, enc.uncompressedBytes, ct);
  if (plain === undefined) return rejectBundle('could not be decrypted with the current target key (was it sealed to an older bundle?)');
  const text = fromUtf8(plain);
  const inner = text === undefined ? undefined : parseJson(text);
  if (inner === undefined || !isPlainObject(inner.value) || duplicateKey(text as string) !== undefined) return rejectBundle('plaintext must be JSON {"otp_code","public_key"}, each field once');
  const { otp_code: code, public_key: publicKeyHex } = inner.value;
  if (typeof code !== 'string' || code.length === 0 || code.length > 64) return rejectBundle('otp_code must be a non-empty string');
  const key = typeof publicKeyHex === 'string' ? parsePublicKey(publicKeyHex.toLowerCase()) : undefined;
  if (key === undefined || key.form !== 'compressed') {
    throw invalidField('encryptedOtpBundle.public_key', 'FORMAT', 'must be a compressed P-256 public key (66 hex characters, 02/03 prefix)');
  }
  assertFreshKey(state, key.compressed, 'encryptedOtpBundle.public_key');

  // Re-check after the await: another request may have consumed or replaced the issuance.
  const still = currentIssuance(state, method);
  if (still !== issuance) return rejectBundle('a newer code was issued meanwhile: use the latest bundle');
  if (code !== SANDBOX_OTP_CODE) {
    issuance.failedAttempts += 1;
    const attemptsLeft = Math.max(0, OTP_MAX_ATTEMPTS - issuance.failedAttempts);
    if (attemptsLeft === 0) issuance.consumed = true;
    throw invalidInput('The code is wrong', undefined, { cause: 'OTP_CODE_INVALID', attemptsLeft });
  }
  issuance.consumed = true;
  return key;
}

/** The verification token (ES256 JWT by the enclave) binding the session public key. */
export function verificationToken(state: SandboxState, method: AuthMethodRecord, publicKey: string): { token: string; expiresAt: number } {
  const now = state.clock.now();
  const expiresAt = now + VERIFICATION_TOKEN_TTL_MS;
  const token = state.enclave.signToken({
    id: randomUUID(),
    verification_type: method.type === 'SMS_OTP' ? 'OTP_TYPE_SMS' : 'OTP_TYPE_EMAIL',
    auth_method_id: method.id,
    public_key: publicKey,
    iat: Math.floor(now / 1000),
    exp: Math.floor(expiresAt / 1000),
  });
  return { token, expiresAt };
}
