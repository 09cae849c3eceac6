/**
 * Unpadded base64url (RFC 4648 §5), strict both ways. Only code loaded on first use needs it (the
 * passkey and OAuth flows, parseStamp): a stamp's own base64url comes from btoa (stamp.ts).
 */
import { encodingError } from './encoding.js';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

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
