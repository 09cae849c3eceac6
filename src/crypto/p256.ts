/**
 * P-256 public-key encodings with plain BigInt arithmetic (no curve library: the main entry must not
 * contain @noble/curves). SEC1: uncompressed `04‖x‖y` (65 bytes), compressed `02|03‖x` (33 bytes).
 */
import { WalletError } from '../errors.js';
import { bytesToHex, hexToBytes } from './encoding.js';

/** Field prime p = 2^256 − 2^224 + 2^192 + 2^96 − 1. */
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
/** Curve coefficient b (a = −3). */
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

export const COMPRESSED_LENGTH = 33;
export const UNCOMPRESSED_LENGTH = 65;

function pointError(why: string): WalletError {
  return new WalletError('INVALID_POINT', `P-256 public key: ${why}`);
}

function mod(a: bigint): bigint {
  const r = a % P;
  return r >= 0n ? r : r + P;
}

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

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + bytesToHex(bytes));
}

function toBytes32(n: bigint): Uint8Array {
  return hexToBytes(n.toString(16).padStart(64, '0'));
}

/** y² = x³ − 3x + b (mod p). */
function curveRhs(x: bigint): bigint {
  return mod(x * x * x - 3n * x + B);
}

function requireBytes(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new WalletError('INVALID_ARGUMENT', `${name} must be a Uint8Array`);
  return value;
}

/** Validates a 65-byte uncompressed point (prefix, coordinates below p, on the curve). */
function checkUncompressed(bytes: Uint8Array): { x: bigint; y: bigint } {
  if (bytes.length !== UNCOMPRESSED_LENGTH) throw pointError(`expected ${UNCOMPRESSED_LENGTH} bytes, got ${bytes.length}`);
  if (bytes[0] !== 0x04) throw pointError('uncompressed form must start with 0x04');
  const x = toBigInt(bytes.subarray(1, 33));
  const y = toBigInt(bytes.subarray(33, 65));
  if (x >= P || y >= P) throw pointError('coordinate out of range');
  if (mod(y * y) !== curveRhs(x)) throw pointError('not on the curve');
  return { x, y };
}

/** 65-byte uncompressed → 33-byte compressed. Validates the point (INVALID_POINT). */
export function compressPublicKey(uncompressed: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = requireBytes(uncompressed, 'uncompressed');
  const { y } = checkUncompressed(bytes);
  const out = new Uint8Array(COMPRESSED_LENGTH);
  out[0] = y & 1n ? 0x03 : 0x02;
  out.set(bytes.subarray(1, 33), 1);
  return out;
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
