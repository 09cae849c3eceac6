/**
 * P-256 for the sandbox: public-key parsing (both SEC1 forms, on-curve check via @noble/curves),
 * strict DER signature parsing, and ECDSA verification with node:crypto (high-S accepted, as
 * wire-reference §3 requires: OpenSSL does not enforce low-S).
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { bytesToBase64url, bytesToHex, hexToBytes } from './encoding.js';

export interface ParsedPublicKey {
  form: 'compressed' | 'uncompressed';
  /** 66 lowercase hex chars, 02/03 prefix. */
  compressed: string;
  /** 130 lowercase hex chars, 04 prefix. */
  uncompressed: string;
  uncompressedBytes: Uint8Array;
}

// Lowercase hex only (wire-reference §2).
const COMPRESSED = /^0[23][0-9a-f]{64}$/;
const UNCOMPRESSED = /^04[0-9a-f]{128}$/;

// SubjectPublicKeyInfo prefix for an id-ecPublicKey / prime256v1 key with a 33-byte compressed point.
const SPKI_COMPRESSED_PREFIX = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');
const parsedCache = new Map<string, ParsedPublicKey>();

function decode(hex: string, form: ParsedPublicKey['form']): ParsedPublicKey | undefined {
  const bytes = hexToBytes(hex);
  if (bytes === undefined) return undefined;
  try {
    if (form === 'compressed') {
      // OpenSSL decompresses and checks the point (much faster than BigInt square roots).
      const jwk = createPublicKey({ key: Buffer.concat([SPKI_COMPRESSED_PREFIX, bytes]), format: 'der', type: 'spki' }).export({ format: 'jwk' });
      const x = Buffer.from(jwk.x ?? '', 'base64url');
      const y = Buffer.from(jwk.y ?? '', 'base64url');
      if (x.length !== 32 || y.length !== 32) return undefined;
      const uncompressedBytes = new Uint8Array(Buffer.concat([Buffer.from([4]), x, y]));
      return { form, compressed: hex.toLowerCase(), uncompressed: bytesToHex(uncompressedBytes), uncompressedBytes };
    }
    const point = p256.Point.fromBytes(bytes);
    point.assertValidity();
    return { form, compressed: bytesToHex(point.toBytes(true)), uncompressed: hex.toLowerCase(), uncompressedBytes: bytes };
  } catch {
    return undefined;
  }
}

/** Parses a hex SEC1 P-256 public key; `undefined` unless well-formed and on the curve. Cached. */
export function parsePublicKey(hex: unknown): ParsedPublicKey | undefined {
  if (typeof hex !== 'string') return undefined;
  let form: ParsedPublicKey['form'];
  if (COMPRESSED.test(hex)) form = 'compressed';
  else if (UNCOMPRESSED.test(hex)) form = 'uncompressed';
  else return undefined;
  const cached = parsedCache.get(hex);
  if (cached !== undefined) return cached;
  const parsed = decode(hex, form);
  if (parsed !== undefined) {
    if (parsedCache.size > 10_000) parsedCache.clear();
    parsedCache.set(hex, parsed);
  }
  return parsed;
}

export function compressPoint(uncompressed: Uint8Array): Uint8Array {
  return p256.Point.fromBytes(uncompressed).toBytes(true);
}

const keyCache = new Map<string, KeyObject>();

/** A node:crypto public KeyObject for an uncompressed point (cached: the same keys sign repeatedly). */
export function nodePublicKey(uncompressed: Uint8Array): KeyObject {
  const id = bytesToHex(uncompressed);
  let key = keyCache.get(id);
  if (key === undefined) {
    key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: bytesToBase64url(uncompressed.subarray(1, 33)), y: bytesToBase64url(uncompressed.subarray(33, 65)) },
      format: 'jwk',
    });
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/**
 * True when `der` is a strict, minimal DER ECDSA signature (SEQUENCE of two positive INTEGERs in
 * [1, n-1], short-form lengths, no trailing bytes).
 */
export function isStrictDerSignature(der: Uint8Array): boolean {
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return false;
  let at = 2;
  for (let i = 0; i < 2; i += 1) {
    if (der[at] !== 0x02) return false;
    const len = der[at + 1];
    if (len === undefined || len < 1 || len > 33) return false;
    const start = at + 2;
    const end = start + len;
    if (end > der.length) return false;
    const first = der[start] as number;
    if (first & 0x80) return false; // negative
    if (first === 0 && (len === 1 || ((der[start + 1] as number) & 0x80) === 0)) return false; // non-minimal
    const value = BigInt(`0x${bytesToHex(der.subarray(start, end))}`);
    if (value < 1n || value >= N) return false;
    at = end;
  }
  return at === der.length;
}

/** ECDSA P-256 / SHA-256 verification of a DER signature. */
export function verifyDer(uncompressedPublicKey: Uint8Array, der: Uint8Array, data: Uint8Array): boolean {
  try {
    return nodeVerify('sha256', data, { key: nodePublicKey(uncompressedPublicKey), dsaEncoding: 'der' }, der);
  } catch {
    return false;
  }
}
