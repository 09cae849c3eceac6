/**
 * Byte encodings used on the wire: lowercase hex, strict UTF-8 (unpadded base64url is base64url.ts).
 * Every decoder validates fully and throws `WalletError('ENCODING_INVALID')` naming the argument.
 */
import { WalletError } from '../errors.js';

const HEX_DIGITS = '0123456789abcdef';

export function encodingError(name: string, why: string): WalletError {
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

