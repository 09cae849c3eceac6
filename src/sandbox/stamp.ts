/**
 * The `Service-Wallet-Signature` stamp (spec §5.4, wire-reference §3), as the sandbox reads and
 * checks it.
 *
 * Header value = base64url_nopad(utf8(JSON {publicKey, scheme, signature})), publicKey compressed
 * hex, scheme `SIGNATURE_SCHEME_TK_API_P256`, signature hex of a DER ECDSA P-256/SHA-256 signature
 * over utf8(payloadToSign). High-S is accepted.
 *
 * As strict as the spec, no stricter (issue 34). Spec §5.4 defines the value as "a JSON object with
 * three fields" whose key is "hex" and signature "as hex"; it fixes neither the key order nor the
 * hex case. The wire reference's "keep the key order above" and "lowercase hex" (wire §2, §3) tell a
 * client what to send; they are not among the "rules the service enforces" (wire §4), and where the
 * two documents differ the spec wins. So the sandbox accepts:
 * - the three fields in any order, with any JSON whitespace (a JSON object is unordered);
 * - `publicKey` and `signature` hex in any case (upper, lower, mixed): hex digits name the same bytes.
 *   The key is compared with session keys by its bytes (normalised to lowercase compressed hex).
 * And refuses (`401 WALLET_SIGNATURE_MALFORMED`): not base64url without padding, not UTF-8, not a
 * JSON object, a fourth field or a field twice ("three fields"; a duplicate would let two parsers
 * read different keys), a field not a string, another scheme, a key that is not a compressed P-256
 * point, a signature that is not hex of a minimal (strict) DER ECDSA signature.
 *
 * The literal `sandbox-valid-signature` is accepted "as the header for any signed account action
 * and no ECDSA check is made" (spec §5.4, wire §10): it stands in for a valid stamp by whichever key
 * the action needs, so no session is required (issue 34: a wallet without any session can still be
 * driven with it) and no signer rule (other credential, same session, same key) is applied. What a
 * request needs besides the stamp (the `Request-Id`, the body, the challenge's life) still holds.
 *
 * Classification of a real stamp (decided here, the reference only names the codes):
 * - cannot be parsed as above → `401 WALLET_SIGNATURE_MALFORMED`;
 * - well-formed but does not verify, or the key is not allowed to sign this request →
 *   `401 WALLET_SIGNATURE_INVALID` (`details.cause` says which).
 */
import { base64urlToBytes, fromUtf8, hexToBytes, parseJson, utf8 } from './crypto/encoding.js';
import { isStrictDerSignature, parsePublicKey, verifyDer, type ParsedPublicKey } from './crypto/p256.js';
import { unauthorized } from './errors.js';
import type { SandboxState } from './context.js';
import { isActive, type SessionRecord, type SignerRule } from './store.js';
import { isPlainObject } from './validate.js';
import { duplicateKey } from '../json-duplicate-key.js';

/** The stamp header the sandbox reads (the library's default name). */
export const SIGNATURE_HEADER = 'Service-Wallet-Signature';
/** The header that names the challenge a signed retry answers. */
export const REQUEST_ID_HEADER = 'Request-Id';
/** The stamp scheme the sandbox accepts. */
export const SIGNATURE_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';
/**
 * A stamp header value the sandbox accepts in place of a real stamp, for tests that exercise a
 * signed route without keys. A real stamp is always verified for real.
 */
export const SANDBOX_VALID_SIGNATURE = 'sandbox-valid-signature';

const MAX_STAMP_LENGTH = 4096;

export interface ParsedStamp {
  publicKey: ParsedPublicKey;
  signature: Uint8Array;
}

export interface StampCheck {
  /** True for the `sandbox-valid-signature` literal (no key is known then). */
  magic: boolean;
  /** Compressed hex of the signing key; null for the literal. */
  publicKey: string | null;
  /** The session whose key signed, for session rules; null for key rules and the literal. */
  session: SessionRecord | null;
}

/** Parses a stamp header value or throws `401 WALLET_SIGNATURE_MALFORMED`. */
export function parseStamp(value: string): ParsedStamp {
  const malformed = (why: string): never => {
    throw unauthorized('WALLET_SIGNATURE_MALFORMED', `The ${SIGNATURE_HEADER} header could not be parsed: ${why}`);
  };
  if (value.length > MAX_STAMP_LENGTH) return malformed('too long');
  const bytes = base64urlToBytes(value);
  if (bytes === undefined) return malformed('not base64url without padding');
  const text = fromUtf8(bytes);
  if (text === undefined) return malformed('not UTF-8');
  const parsed = parseJson(text);
  if (parsed === undefined || !isPlainObject(parsed.value)) return malformed('not a JSON object');
  if (duplicateKey(text) !== undefined) return malformed('a field appears twice');
  const fields = Object.keys(parsed.value);
  if (fields.length !== 3) return malformed('must have exactly the three fields publicKey, scheme and signature');
  const { publicKey, scheme, signature } = parsed.value;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    return malformed('publicKey, scheme and signature must be strings');
  }
  if (scheme !== SIGNATURE_SCHEME) return malformed(`scheme must be ${SIGNATURE_SCHEME}`);
  const key = parsePublicKey(publicKey.toLowerCase());
  if (key === undefined || key.form !== 'compressed') return malformed('publicKey must be a compressed P-256 public key in hex');
  const der = hexToBytes(signature.toLowerCase());
  if (der === undefined || !isStrictDerSignature(der)) return malformed('signature must be hex of a minimal DER ECDSA signature');
  return { publicKey: key, signature: der };
}

function keyNotAllowed(reason: string, cause: string): never {
  throw unauthorized('WALLET_SIGNATURE_INVALID', reason, { cause });
}

/**
 * Finds the session allowed to sign under `rule` with `publicKey` (any key for the sandbox literal:
 * `undefined`), or throws WALLET_SIGNATURE_INVALID.
 */
function authorizedSession(state: SandboxState, rule: Extract<SignerRule, { kind: 'session' }>, publicKey: string | undefined): SessionRecord {
  const now = state.clock.now();
  let sameCredential = false;
  for (const s of state.store.sessions.values()) {
    if ((publicKey !== undefined && s.publicKey !== publicKey) || !rule.accountIds.includes(s.accountId) || !isActive(s, now)) continue;
    if (rule.sessionId !== undefined && s.id !== rule.sessionId) continue;
    if (rule.excludeAuthMethodId !== undefined && s.authMethodId === rule.excludeAuthMethodId) {
      sameCredential = true;
      continue;
    }
    return s;
  }
  if (sameCredential) {
    return keyNotAllowed('This action must be signed by a session of a different credential', 'SAME_CREDENTIAL_SESSION');
  }
  if (rule.sessionId !== undefined) return keyNotAllowed('This action must be signed by the session it acts on', 'NOT_THE_SESSION_KEY');
  return keyNotAllowed('The signing key is not the key of an active session of this account', 'NO_ACTIVE_SESSION');
}

/**
 * Checks a stamp header over `payloadToSign` for `rule`: parse (MALFORMED), key allowed
 * (INVALID), signature verifies (INVALID). Synchronous, so callers can mutate right after.
 */
export function checkStamp(state: SandboxState, headerValue: string, payloadToSign: string, rule: SignerRule): StampCheck {
  return checkParsedStamp(state, readStamp(headerValue), payloadToSign, rule);
}

/** Parses a header value: the sandbox literal, or a stamp (throws MALFORMED). */
export function readStamp(headerValue: string): ParsedStamp | 'magic' {
  return headerValue === SANDBOX_VALID_SIGNATURE ? 'magic' : parseStamp(headerValue);
}

/** {@link checkStamp} for an already parsed header. */
export function checkParsedStamp(state: SandboxState, stamp: ParsedStamp | 'magic', payloadToSign: string, rule: SignerRule): StampCheck {
  // The literal: no key, no ECDSA check, no signer rule (see the header).
  if (stamp === 'magic') return { magic: true, publicKey: null, session: null };
  const key = stamp.publicKey.compressed;
  let session: SessionRecord | null = null;
  if (rule.kind === 'key') {
    if (rule.publicKey !== key) keyNotAllowed('The request must be signed with the key bound to the verification token', 'NOT_THE_BOUND_KEY');
  } else {
    if (rule.publicKey !== undefined && rule.publicKey !== key) keyNotAllowed('This leg must be signed with the same key as the previous leg', 'NOT_THE_SAME_KEY');
    session = authorizedSession(state, rule, key);
  }
  if (!verifyDer(stamp.publicKey.uncompressedBytes, stamp.signature, utf8(payloadToSign))) {
    keyNotAllowed('The signature does not verify over payloadToSign with the stamp public key', 'SIGNATURE_MISMATCH');
  }
  return { magic: false, publicKey: key, session };
}
