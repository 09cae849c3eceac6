/**
 * Byte encodings for the sandbox (its own, independent of src/crypto): strict parsers return
 * `undefined` on bad input so callers choose the error code.
 */
/** Lowercase only: the wire reference's hex is lowercase everywhere (§2, §3), so the sandbox refuses other case. */
const HEX = /^(?:[0-9a-f]{2})*$/;
const B64URL = /^[A-Za-z0-9_-]*$/;

export function hexToBytes(hex: string): Uint8Array | undefined {
  if (!HEX.test(hex)) return undefined;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Strict base64url without padding; `undefined` for '=', '+', '/', other characters or a bad length. */
export function base64urlToBytes(s: string): Uint8Array | undefined {
  if (!B64URL.test(s) || s.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Buffer.from(s, 'base64url'));
  // Reject non-canonical trailing bits (e.g. "AB" vs "AA"): re-encoding must give the same string.
  if (Buffer.from(bytes).toString('base64url') !== s) return undefined;
  return bytes;
}

export function bytesToBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Fatal UTF-8 decoding; `undefined` for invalid sequences. */
export function fromUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** JSON.parse that returns `undefined` instead of throwing. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
