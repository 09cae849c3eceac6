/**
 * Checking what others send: a P-256 public key in any SEC1 form (decompressed with plain BigInt
 * arithmetic), ECDSA signatures verified with it, stamps parsed strictly. In the wallet only code
 * loaded on first use needs these (the enclave bundles of a login or an export; the legacy entry and
 * the public crypto API export them too); the session code at startup only compresses its own keys
 * and makes stamps (p256.ts, stamp.ts).
 */
import { WalletError, invalidArgument } from '../errors.js';
import { base64urlDecode } from './base64url.js';
import { bytesToHex, hexToBytes } from './encoding.js';
import { utf8Decode } from './bytes.js';
import { COMPRESSED_LENGTH, P, UNCOMPRESSED_LENGTH, checkUncompressed, compressPublicKey, curveRhs, mod, p1363FromDer, pointError, requireBytes, toBigInt } from './p256.js';
import { SIGNATURE_SCHEME } from './stamp.js';
import { ECDSA_P256, ECDSA_SHA256, buf, subtle } from './webcrypto.js';

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function toBytes32(n: bigint): Uint8Array {
  return hexToBytes(n.toString(16).padStart(64, '0'));
}

/** 33-byte compressed → 65-byte uncompressed. Wrong length or prefix, x ≥ p, or no square root → INVALID_POINT. */
export function decompressPublicKey(compressed: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = requireBytes(compressed, 'compressed');
  if (bytes.length !== COMPRESSED_LENGTH) throw pointError(`expected ${COMPRESSED_LENGTH} bytes, got ${bytes.length}`);
  const prefix = bytes[0];
  if (prefix !== 0x02 && prefix !== 0x03) throw pointError('compressed form must start with 0x02 or 0x03');
  const x = toBigInt(bytes.subarray(1));
  if (x >= P) throw pointError('x out of range');
  const rhs = curveRhs(x);
  // p ≡ 3 (mod 4), so a square root (when one exists) is rhs^((p+1)/4).
  let y = modPow(rhs, (P + 1n) >> 2n);
  if (mod(y * y) !== rhs) throw pointError('x is not on the curve');
  if ((y & 1n) !== BigInt(prefix & 1)) y = P - y;
  const out = new Uint8Array(UNCOMPRESSED_LENGTH);
  out[0] = 0x04;
  out.set(bytes.subarray(1), 1);
  out.set(toBytes32(y), 33);
  return out;
}

/**
 * Any SEC1 form (bytes, or hex of either case) → validated 65-byte uncompressed point.
 * Bad hex → ENCODING_INVALID; anything that is not a P-256 point → INVALID_POINT.
 */
export function toUncompressedPublicKey(key: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const bytes = typeof key === 'string' ? hexToBytes(key, 'publicKey') : requireBytes(key, 'publicKey');
  if (bytes.length === COMPRESSED_LENGTH) return decompressPublicKey(bytes);
  if (bytes.length === UNCOMPRESSED_LENGTH) {
    checkUncompressed(bytes);
    return bytes.slice();
  }
  throw pointError(`expected ${COMPRESSED_LENGTH} or ${UNCOMPRESSED_LENGTH} bytes, got ${bytes.length}`);
}

/** Any SEC1 form → lowercase compressed hex (66 characters). Validates like toUncompressedPublicKey. */
export function toCompressedPublicKeyHex(key: Uint8Array | string): string {
  return bytesToHex(compressPublicKey(toUncompressedPublicKey(key)));
}

/** Imports a SEC1 public key (either form, bytes or hex) for ECDSA verification. */
export async function importVerifyKey(publicKey: string | Uint8Array): Promise<CryptoKey> {
  // Decompress ourselves: Firefox and Safari cannot import compressed points.
  const raw = toUncompressedPublicKey(publicKey);
  return subtle().importKey('raw', buf(raw), ECDSA_P256, true, ['verify']);
}

/**
 * Verifies a DER ECDSA P-256/SHA-256 signature with WebCrypto. High-S signatures are accepted (never
 * normalised). Returns false when the signature does not verify; a signature that is not strict DER
 * throws SIGNATURE_MALFORMED and a key that is not a P-256 point throws INVALID_POINT, so callers can
 * tell "malformed" from "wrong" (the service distinguishes WALLET_SIGNATURE_MALFORMED from _INVALID).
 */
export async function verifySignature(publicKey: string | Uint8Array, derSignature: Uint8Array, data: Uint8Array): Promise<boolean> {
  if (!(data instanceof Uint8Array)) throw invalidArgument('data', 'a Uint8Array');
  const rs = p1363FromDer(derSignature);
  const key = await importVerifyKey(publicKey);
  return subtle().verify(ECDSA_SHA256, key, buf(rs), buf(data));
}

/** The three fields of a stamp, as {@link parseStamp} returns them (hex as sent). */
export interface ParsedStamp {
  /** The signer's compressed P-256 public key, hex. */
  publicKey: string;
  /** Always {@link SIGNATURE_SCHEME}. */
  scheme: string;
  /** The DER ECDSA signature, hex. */
  signature: string;
}

function malformedStamp(why: string, cause?: unknown): WalletError {
  return new WalletError('SIGNATURE_MALFORMED', `stamp: ${why}`, cause === undefined ? {} : { cause });
}

/**
 * Strict parse of a stamp header value: unpadded base64url of UTF-8 JSON that is an object with
 * exactly the string fields publicKey (compressed P-256 hex, on the curve), scheme (= SIGNATURE_SCHEME)
 * and signature (strict DER hex). Anything else → SIGNATURE_MALFORMED. Hex may be of either case and
 * is returned as sent. Decision: unknown extra fields are rejected — our stamps never carry any.
 */
export function parseStamp(headerValue: string): ParsedStamp {
  if (typeof headerValue !== 'string' || headerValue.length === 0) throw malformedStamp('empty or not a string');
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(base64urlDecode(headerValue, 'stamp')));
  } catch (cause) {
    throw malformedStamp('not base64url-encoded UTF-8 JSON', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformedStamp('not a JSON object');
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length !== 3) throw malformedStamp('expected exactly publicKey, scheme and signature');
  const { publicKey, scheme, signature } = fields;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    throw malformedStamp('publicKey, scheme and signature must be strings');
  }
  if (scheme !== SIGNATURE_SCHEME) throw malformedStamp(`unsupported scheme`);
  if (!/^0[23][0-9a-fA-F]{64}$/.test(publicKey)) throw malformedStamp('publicKey must be compressed P-256 hex');
  try {
    decompressPublicKey(hexToBytes(publicKey));
    p1363FromDer(hexToBytes(signature, 'signature'));
  } catch (cause) {
    throw malformedStamp(cause instanceof WalletError ? cause.message : 'bad publicKey or signature', cause);
  }
  return { publicKey, scheme, signature };
}
