/**
 * P-256 encodings, as the session code at startup needs them, with plain BigInt arithmetic (no curve
 * library: the main entry must not contain @noble/curves):
 * - public keys, SEC1: uncompressed `04‖x‖y` (65 bytes) → compressed `02|03‖x` (33 bytes), the
 *   point checked; decompressing (any form → uncompressed) is verify.ts, which only code loaded on
 *   first use needs;
 * - ECDSA signatures: WebCrypto's r‖s (IEEE P1363, 64 bytes) and ASN.1 DER
 *   `SEQUENCE { INTEGER r, INTEGER s }`. Output DER is minimal; input DER is parsed strictly
 *   (short-form lengths only, minimal positive integers, no trailing bytes).
 * Decision: the DER code lives here, not in a file of its own. Startup code (the stamp) and the
 * lazily loaded verify.ts both use it; as a module of its own, Rolldown (Vite 8) gave it a reach set
 * of its own and split an app's startup code into 2-3 chunks (+0.4 KB gz); here it shares the reach
 * set of the other crypto modules and the startup code stays one chunk (`npm run size`).
 */
import { WalletError } from '../errors.js';
import { bytesToHex, hexToBytes } from './encoding.js';

/** Field prime p = 2^256 − 2^224 + 2^192 + 2^96 − 1. */
export const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
/** Curve coefficient b (a = −3). */
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

export const COMPRESSED_LENGTH = 33;
export const UNCOMPRESSED_LENGTH = 65;

// The point arithmetic verify.ts shares (not part of the public crypto API).
export function pointError(why: string): WalletError {
  return new WalletError('INVALID_POINT', `P-256 public key: ${why}`);
}

export function mod(a: bigint): bigint {
  const r = a % P;
  return r >= 0n ? r : r + P;
}

export function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + bytesToHex(bytes));
}

/** y² = x³ − 3x + b (mod p). */
export function curveRhs(x: bigint): bigint {
  return mod(x * x * x - 3n * x + B);
}

export function requireBytes(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new WalletError('INVALID_ARGUMENT', `${name} must be a Uint8Array`);
  return value;
}

/** Validates a 65-byte uncompressed point (prefix, coordinates below p, on the curve). */
export function checkUncompressed(bytes: Uint8Array): { x: bigint; y: bigint } {
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

// ---- ECDSA signatures: r‖s ↔ DER ----

const SCALAR_LENGTH = 32;

function malformed(why: string): WalletError {
  return new WalletError('SIGNATURE_MALFORMED', `ECDSA signature: ${why}`);
}

/** The largest minimal DER of a P-256 signature: 2 + 2 × (2 + 33) bytes. */
export const MAX_DER_SIGNATURE_LENGTH = 72;

/**
 * 64-byte r‖s → minimal DER, written into `out` from `offset` (room for MAX_DER_SIGNATURE_LENGTH);
 * returns the offset after the last byte. Lets the stamp reuse one buffer instead of allocating.
 * Any other length → SIGNATURE_MALFORMED.
 */
export function writeDerFromP1363(rs: Uint8Array, out: Uint8Array, offset: number): number {
  if (!(rs instanceof Uint8Array) || rs.length !== 2 * SCALAR_LENGTH) {
    throw malformed(`r||s must be ${2 * SCALAR_LENGTH} bytes`);
  }
  // Minimal INTEGERs: drop leading zero bytes (keeping one), then add one back where the top bit is set.
  let rStart = 0;
  while (rStart < SCALAR_LENGTH - 1 && rs[rStart] === 0) rStart++;
  let sStart = SCALAR_LENGTH;
  while (sStart < 2 * SCALAR_LENGTH - 1 && rs[sStart] === 0) sStart++;
  const rPad = rs[rStart]! >> 7;
  const sPad = rs[sStart]! >> 7;
  const rLength = SCALAR_LENGTH - rStart + rPad;
  const sLength = 2 * SCALAR_LENGTH - sStart + sPad;
  let o = offset;
  out[o++] = 0x30;
  out[o++] = 4 + rLength + sLength; // at most 70: the short length form always fits
  out[o++] = 0x02;
  out[o++] = rLength;
  if (rPad) out[o++] = 0;
  for (let i = rStart; i < SCALAR_LENGTH; i++) out[o++] = rs[i]!;
  out[o++] = 0x02;
  out[o++] = sLength;
  if (sPad) out[o++] = 0;
  for (let i = sStart; i < 2 * SCALAR_LENGTH; i++) out[o++] = rs[i]!;
  return o;
}

/** 64-byte r‖s → minimal DER. Any other length → SIGNATURE_MALFORMED. */
export function derFromP1363(rs: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(MAX_DER_SIGNATURE_LENGTH);
  return out.slice(0, writeDerFromP1363(rs, out, 0));
}

/** Reads one INTEGER at `offset`, writes it right-aligned into `out`; returns the next offset. */
function readInteger(der: Uint8Array, offset: number, out: Uint8Array, name: string): number {
  if (der[offset] !== 0x02) throw malformed(`${name} is not an INTEGER`);
  const length = der[offset + 1];
  if (length === undefined || length === 0 || length & 0x80) throw malformed(`${name} has a bad length`);
  const start = offset + 2;
  const end = start + length;
  if (end > der.length) throw malformed(`${name} is truncated`);
  const first = der[start]!;
  if (first & 0x80) throw malformed(`${name} is negative`);
  let body = der.subarray(start, end);
  if (first === 0) {
    if (length === 1) throw malformed(`${name} is zero`);
    if (!(der[start + 1]! & 0x80)) throw malformed(`${name} is not minimally encoded`);
    body = body.subarray(1);
  }
  if (body.length > SCALAR_LENGTH) throw malformed(`${name} is longer than ${SCALAR_LENGTH} bytes`);
  out.set(body, SCALAR_LENGTH - body.length);
  return end;
}

/** Strict DER → 64-byte r‖s. Anything else (long-form or wrong lengths, padding, negative or zero integers, trailing bytes) → SIGNATURE_MALFORMED. */
export function p1363FromDer(der: Uint8Array): Uint8Array<ArrayBuffer> {
  if (!(der instanceof Uint8Array)) throw malformed('must be a Uint8Array');
  if (der.length < 8 || der[0] !== 0x30) throw malformed('not a DER SEQUENCE');
  const length = der[1]!;
  if (length & 0x80) throw malformed('long-form length');
  if (length !== der.length - 2) throw malformed('sequence length does not match (trailing or missing bytes)');
  const r = new Uint8Array(SCALAR_LENGTH);
  const s = new Uint8Array(SCALAR_LENGTH);
  const afterR = readInteger(der, 2, r, 'r');
  const afterS = readInteger(der, afterR, s, 's');
  if (afterS !== der.length) throw malformed('trailing bytes inside the sequence');
  const out = new Uint8Array(2 * SCALAR_LENGTH);
  out.set(r, 0);
  out.set(s, SCALAR_LENGTH);
  return out;
}
