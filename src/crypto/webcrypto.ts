/** Lazy access to WebCrypto: nothing is touched at import time (the package must import during SSR). */
import { WalletError } from '../errors.js';

/** `globalThis.crypto.subtle`, or WalletError('CRYPTO_UNAVAILABLE') (e.g. an insecure http: origin). */
export function subtle(): SubtleCrypto {
  const s = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!s) throw new WalletError('CRYPTO_UNAVAILABLE');
  return s;
}

/** A Uint8Array view WebCrypto accepts under TypeScript's ArrayBuffer-backed BufferSource typing. */
export function buf(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

export const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const ECDH_P256 = { name: 'ECDH', namedCurve: 'P-256' } as const;
export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** True when `value` looks like a CryptoKey of the given type and algorithm (works across realms). */
export function isKey(value: unknown, type: KeyType, algorithm: 'ECDSA' | 'ECDH'): value is CryptoKey {
  if (typeof value !== 'object' || value === null) return false;
  const k = value as Partial<CryptoKey>;
  const alg = k.algorithm as Partial<EcKeyAlgorithm> | undefined;
  return k.type === type && alg?.name === algorithm && alg.namedCurve === 'P-256';
}
