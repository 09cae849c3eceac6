/**
 * Byte encodings used on the wire: lowercase hex, unpadded base64url, strict UTF-8.
 * Every decoder validates fully and throws `WalletError('ENCODING_INVALID')` naming the argument.
 */
import { WalletError } from '../errors.js';

const HEX_DIGITS = '0123456789abcdef';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function encodingError(name: string, why: string): WalletError {
  return new WalletError('ENCODING_INVALID', `${name}: ${why}`);
}

function hexNibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/** Hex (either case) → bytes. Odd length, a non-hex character or a non-string → ENCODING_INVALID. */
export function hexToBytes(hex: string, name = 'hex'): Uint8Array<ArrayBuffer> {
  if (typeof hex !== 'string') throw encodingError(name, 'expected a hex string');
  if (hex.length % 2 !== 0) throw encodingError(name, `odd length ${hex.length}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = hexNibble(hex.charCodeAt(2 * i));
    const lo = hexNibble(hex.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) throw encodingError(name, `invalid hex character at ${hi < 0 ? 2 * i : 2 * i + 1}`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Bytes → lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += HEX_DIGITS[b >> 4]! + HEX_DIGITS[b & 15]!;
  return s;
}

/** Bytes → base64url without padding. */
export function base64urlEncode(bytes: Uint8Array): string {
  let s = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!;
  }
  return s;
}

function b64Value(code: number): number {
  if (code >= 65 && code <= 90) return code - 65; // A-Z
  if (code >= 97 && code <= 122) return code - 71; // a-z
  if (code >= 48 && code <= 57) return code + 4; // 0-9
  if (code === 45) return 62; // -
  if (code === 95) return 63; // _
  return -1;
}

/**
 * Strict base64url → bytes: only `A-Z a-z 0-9 - _`, no padding, no whitespace, a length that is not
 * 1 mod 4, and zero unused bits in the last character (so each byte string has exactly one encoding).
 */
export function base64urlDecode(s: string, name = 'base64url'): Uint8Array<ArrayBuffer> {
  if (typeof s !== 'string') throw encodingError(name, 'expected a base64url string');
  if (s.length % 4 === 1) throw encodingError(name, `impossible length ${s.length}`);
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const v = b64Value(s.charCodeAt(i));
    if (v < 0) throw encodingError(name, `invalid base64url character at ${i}`);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) throw encodingError(name, 'non-zero trailing bits');
  return out;
}

let sharedEncoder: TextEncoder | undefined;

/** The module's one TextEncoder (it holds no state between calls), created on first use, not at import. */
export function textEncoder(): TextEncoder {
  return (sharedEncoder ??= new TextEncoder());
}

/** String → UTF-8 bytes (lone surrogates become U+FFFD, as TextEncoder does). */
export function utf8Encode(s: string): Uint8Array<ArrayBuffer> {
  if (typeof s !== 'string') throw new WalletError('INVALID_ARGUMENT', 'utf8Encode expects a string');
  return textEncoder().encode(s);
}

/** UTF-8 bytes → string. Fatal: invalid UTF-8 → ENCODING_INVALID. A leading BOM is kept, not stripped. */
export function utf8Decode(bytes: Uint8Array, name = 'utf8'): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    throw new WalletError('ENCODING_INVALID', `${name}: invalid UTF-8`, { cause });
  }
}

/** Concatenate byte arrays into a new one. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Constant-shape byte equality (used to compare keys; not secret-dependent timing critical). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
