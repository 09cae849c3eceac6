/**
 * Enclave bundles, reading them: the signed envelope {version, data, dataSignature,
 * enclaveQuorumPublic} and the OTP target bundle (wire reference §5.1). Verifying, sealing and
 * opening them (WebCrypto, HPKE) is in enclave.ts, loaded on first use.
 */
import { WalletError } from '../errors.js';
import { hexToBytes } from './encoding.js';
import { utf8Decode } from './bytes.js';
import { toUncompressedPublicKey } from './verify.js';

/** Keys trusted to sign bundles (hex, compressed or uncompressed), or an explicit opt-out. */
export type TrustedKeys = readonly string[] | 'skip-verification';

/** An enclave-signed bundle, parsed by {@link parseSignedBundle}: `data` and the signature over it. */
export interface SignedBundle {
  /** The bundle format's version, as sent. */
  version: string;
  /** The hex-decoded `data` bytes (what `dataSignature` signs). */
  data: Uint8Array<ArrayBuffer>;
  /** DER signature bytes; empty when the sender (e.g. the sandbox) sent an empty string. */
  dataSignature: Uint8Array<ArrayBuffer>;
  /** The signer's public key as lowercase hex, as sent (normally uncompressed); '' when absent. */
  enclaveQuorumPublic: string;
}

function malformed(why: string, cause?: unknown): WalletError {
  return new WalletError('MALFORMED_BUNDLE', why, cause === undefined ? {} : { cause });
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw malformed(`${what} is not JSON`, cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

export function stringField(obj: Record<string, unknown>, field: string, what: string): string {
  const v = obj[field];
  if (typeof v !== 'string') throw malformed(`${what}.${field} must be a string`);
  return v;
}

export function hexField(obj: Record<string, unknown>, field: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    return hexToBytes(stringField(obj, field, what), `${what}.${field}`);
  } catch (cause) {
    throw cause instanceof WalletError && cause.code === 'MALFORMED_BUNDLE' ? cause : malformed(`${what}.${field} is not hex`, cause);
  }
}

export function pointField(obj: Record<string, unknown>, field: string, what: string): Uint8Array<ArrayBuffer> {
  const bytes = hexField(obj, field, what);
  try {
    return toUncompressedPublicKey(bytes);
  } catch (cause) {
    throw malformed(`${what}.${field} is not a P-256 public key`, cause);
  }
}

/**
 * Parses the signed envelope. Tolerates surrounding whitespace and one pair of wrapping single quotes
 * (seen in examples in the wild). `data` must be non-empty hex; `dataSignature` and
 * `enclaveQuorumPublic` may be empty (the sandbox sends empty strings), otherwise they must be hex and
 * a P-256 point. Decision: `version` must be a string but is not pinned to "v1.0.0": the reference
 * shows no other version and does not say one would change the layout.
 */
export function parseSignedBundle(s: string): SignedBundle {
  if (typeof s !== 'string') throw malformed('bundle must be a string');
  let text = s.trim();
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) text = text.slice(1, -1);
  const obj = parseJsonObject(text, 'bundle');
  const version = stringField(obj, 'version', 'bundle');
  const data = hexField(obj, 'data', 'bundle');
  if (data.length === 0) throw malformed('bundle.data is empty');
  const dataSignature = hexField(obj, 'dataSignature', 'bundle');
  const signerHex = stringField(obj, 'enclaveQuorumPublic', 'bundle');
  if (signerHex !== '') pointField(obj, 'enclaveQuorumPublic', 'bundle');
  const enclaveQuorumPublic = signerHex.toLowerCase();
  return { version, data, dataSignature, enclaveQuorumPublic };
}

export function dataObject(b: SignedBundle, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = utf8Decode(b.data, `${what}.data`);
  } catch (cause) {
    throw malformed(`${what}.data is not UTF-8`, cause);
  }
  return parseJsonObject(text, `${what}.data`);
}

/** Parses an OTP target bundle: the signed envelope whose data is JSON holding `targetPublic`. */
export function parseOtpTargetBundle(s: string): SignedBundle & { targetPublic: Uint8Array<ArrayBuffer> } {
  const bundle = parseSignedBundle(s);
  const targetPublic = pointField(dataObject(bundle, 'otpTargetBundle'), 'targetPublic', 'otpTargetBundle.data');
  return { ...bundle, targetPublic };
}

