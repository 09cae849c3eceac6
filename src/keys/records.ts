/**
 * The key store's records: checking what a caller hands it (public key hex, a non-extractable key
 * pair that matches it), making the frozen record it keeps, and reading one back from the backend.
 */
import { bytesToHex, compressPublicKey } from '../crypto/index.js';
import { WalletError, invalidArgument } from '../errors.js';
import { KEY_PURPOSES, type KeyFilter, type KeyPurpose, type KeyRecordInput, type StoredKey } from './types.js';

const COMPRESSED_HEX = /^0[23][0-9a-fA-F]{64}$/;

export function normaliseHex(publicKeyHex: unknown, name = 'publicKeyHex'): string {
  if (typeof publicKeyHex !== 'string' || !COMPRESSED_HEX.test(publicKeyHex)) {
    throw invalidArgument(name, 'a compressed P-256 public key in hex (66 characters, 02/03 prefix)');
  }
  return publicKeyHex.toLowerCase();
}

export function isCryptoKey(value: unknown, type: KeyType): value is CryptoKey {
  return typeof value === 'object' && value !== null && (value as Partial<CryptoKey>).type === type
    && typeof (value as Partial<CryptoKey>).extractable === 'boolean';
}

export function algorithmFor(purpose: KeyPurpose): 'ECDSA' | 'ECDH' {
  return purpose === 'session' || purpose === 'otp' ? 'ECDSA' : 'ECDH';
}

export function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw invalidArgument(name, 'a non-empty string');
  return value;
}

/** A frozen record of exactly these fields (an absent accountId / sessionId is left out, not undefined). */
export function makeRecord({ accountId, sessionId, ...fields }: {
  publicKeyHex: string; privateKey: CryptoKey; publicKey: CryptoKey; purpose: KeyPurpose;
  accountId: string | undefined; sessionId: string | undefined; createdAt: number;
}): StoredKey {
  return Object.freeze({ ...fields, ...(accountId !== undefined && { accountId }), ...(sessionId !== undefined && { sessionId }) });
}

/** A record read from the backend, or undefined when it is not a key record we wrote. */
export function parseRecord(value: unknown): StoredKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.publicKeyHex !== 'string' || !COMPRESSED_HEX.test(v.publicKeyHex)) return undefined;
  if (!isCryptoKey(v.privateKey, 'private') || !isCryptoKey(v.publicKey, 'public')) return undefined;
  if (!KEY_PURPOSES.includes(v.purpose as KeyPurpose) || typeof v.createdAt !== 'number') return undefined;
  return makeRecord({
    publicKeyHex: v.publicKeyHex,
    privateKey: v.privateKey,
    publicKey: v.publicKey,
    purpose: v.purpose as KeyPurpose,
    accountId: typeof v.accountId === 'string' ? v.accountId : undefined,
    sessionId: typeof v.sessionId === 'string' ? v.sessionId : undefined,
    createdAt: v.createdAt,
  });
}

export function matches(record: StoredKey, filter: KeyFilter): boolean {
  return (filter.purpose === undefined || record.purpose === filter.purpose)
    && (filter.accountId === undefined || record.accountId === filter.accountId)
    && (filter.sessionId === undefined || record.sessionId === filter.sessionId);
}

export async function checkKeyPair(record: KeyRecordInput, publicKeyHex: string): Promise<void> {
  const algorithm = algorithmFor(record.purpose);
  if (!isCryptoKey(record.privateKey, 'private') || (record.privateKey.algorithm as { name?: unknown }).name !== algorithm) {
    throw invalidArgument('record.privateKey', `a private ${algorithm} P-256 CryptoKey (purpose ${record.purpose})`);
  }
  if (record.privateKey.extractable) throw invalidArgument('record.privateKey', 'non-extractable');
  if (!isCryptoKey(record.publicKey, 'public')) throw invalidArgument('record.publicKey', 'a public CryptoKey');
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) throw new WalletError('CRYPTO_UNAVAILABLE');
  let actual: string;
  try {
    const raw = new Uint8Array(await subtle.exportKey('raw', record.publicKey));
    actual = bytesToHex(compressPublicKey(raw));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'record.publicKey must be an exportable P-256 public key', { cause });
  }
  if (actual !== publicKeyHex) throw invalidArgument('record.publicKeyHex', 'the compressed hex of record.publicKey');
}
