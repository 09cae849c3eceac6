/** Byte helpers only code loaded on first use needs (HPKE, enclave bundles, OAuth, legacy). */
import { WalletError } from '../errors.js';

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
