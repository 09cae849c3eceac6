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

/** One 32-byte big-endian scalar → the content bytes of a minimal DER INTEGER. */
function minimalInteger(scalar: Uint8Array): Uint8Array {
  let start = 0;
  while (start < scalar.length - 1 && scalar[start] === 0) start++;
  const body = scalar.subarray(start);
  if (body[0]! & 0x80) {
    const padded = new Uint8Array(body.length + 1);
    padded.set(body, 1);
    return padded;
  }
  return body;
}

/** 64-byte r‖s → minimal DER. Any other length → SIGNATURE_MALFORMED. */
export function derFromP1363(rs: Uint8Array): Uint8Array<ArrayBuffer> {
  if (!(rs instanceof Uint8Array) || rs.length !== 2 * SCALAR_LENGTH) {
    throw malformed(`r||s must be ${2 * SCALAR_LENGTH} bytes`);
  }
  const r = minimalInteger(rs.subarray(0, SCALAR_LENGTH));
  const s = minimalInteger(rs.subarray(SCALAR_LENGTH));
  const length = 2 + r.length + 2 + s.length; // at most 70: the short length form always fits
  const out = new Uint8Array(2 + length);
  out.set([0x30, length, 0x02, r.length], 0);
  out.set(r, 4);
  out.set([0x02, s.length], 4 + r.length);
  out.set(s, 6 + r.length);
  return out;
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
