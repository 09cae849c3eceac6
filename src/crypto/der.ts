/**
 * ECDSA P-256 signature encodings: WebCrypto's r‖s (IEEE P1363, 64 bytes) and ASN.1 DER
 * `SEQUENCE { INTEGER r, INTEGER s }`. Output DER is minimal; input DER is parsed strictly
 * (short-form lengths only, minimal positive integers, no trailing bytes).
 */
import { WalletError } from '../errors.js';

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
