/**
 * Telling an evicted key from an expired session. When a browser evicts our IndexedDB (storage
 * pressure, "clear site data" for one store, ITP), session metadata kept elsewhere can survive while
 * the private key is gone. That is KEY_EVICTED: the app should say "your browser removed this
 * device's key" rather than "your session timed out".
 */
import { WalletError } from '../errors.js';
import type { KeyStore } from './key-store.js';
import type { StoredKey } from './types.js';

/** The part of session metadata that names a key. */
export interface KeyBinding {
  publicKeyHex: string;
  /** When the session ends: ISO-8601 string, epoch milliseconds or a Date. Absent = no expiry check. */
  expiresAt?: string | number | Date;
}

function expiryMs(expiresAt: string | number | Date): number {
  const ms = expiresAt instanceof Date ? expiresAt.getTime() : typeof expiresAt === 'number' ? expiresAt : Date.parse(expiresAt);
  if (!Number.isFinite(ms)) throw new WalletError('INVALID_ARGUMENT', 'binding.expiresAt must be a date');
  return ms;
}

/**
 * The key named by session metadata. Expiry is checked first (an expired session is expired, whatever
 * happened to its key) → SESSION_EXPIRED; then a missing key → KEY_EVICTED.
 * `now` is the caller's idea of the current time (e.g. corrected for server clock skew).
 */
export async function loadBoundKey(store: KeyStore, binding: KeyBinding, now: number = Date.now()): Promise<StoredKey> {
  if (typeof binding !== 'object' || binding === null || typeof binding.publicKeyHex !== 'string') {
    throw new WalletError('INVALID_ARGUMENT', 'binding must be an object with publicKeyHex');
  }
  if (binding.expiresAt !== undefined && expiryMs(binding.expiresAt) <= now) {
    throw new WalletError('SESSION_EXPIRED');
  }
  const key = await store.get(binding.publicKeyHex);
  if (key === undefined) {
    throw new WalletError('KEY_EVICTED', `the key ${binding.publicKeyHex.slice(0, 10)}… named by the session is no longer in the key store`, {
      details: { publicKeyHex: binding.publicKeyHex, storage: store.status },
    });
  }
  return key;
}
