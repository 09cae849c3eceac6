/**
 * Session and recipient key pairs: WebCrypto P-256 keys whose private half is never extractable.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { bytesToHex } from './encoding.js';
import { compressPublicKey } from './p256.js';
import { ECDH_P256, ECDSA_P256, isKey, subtle } from './webcrypto.js';

/** A P-256 key pair with its public key in both hex forms. */
export interface SessionKey {
  /** Non-extractable private key (ECDSA 'sign' for session keys, ECDH 'deriveBits' for recipient keys). */
  privateKey: CryptoKey;
  /** The public half, as a CryptoKey. */
  publicKey: CryptoKey;
  /** Compressed SEC1 public key, lowercase hex (66 characters). */
  publicKeyHex: string;
  /** Uncompressed SEC1 public key, lowercase hex (130 characters). */
  publicKeyUncompressedHex: string;
}

/** A fresh ECDSA P-256 signing key; the private key is non-extractable with usages ['sign']. */
export async function generateSessionKey(): Promise<SessionKey> {
  const pair = await subtle().generateKey(ECDSA_P256, false, ['sign', 'verify']);
  return sessionKeyFromPair(pair);
}

/** A fresh ECDH P-256 key for receiving HPKE bundles; the private key is non-extractable with usages ['deriveBits']. */
export async function generateRecipientKey(): Promise<SessionKey> {
  const pair = await subtle().generateKey(ECDH_P256, false, ['deriveBits']);
  return sessionKeyFromPair(pair);
}

/**
 * Wraps a WebCrypto P-256 key pair, computing the hex forms from the public key: the public key is
 * exported raw (65 bytes; public keys are always exportable) and compressed by y's parity.
 */
export async function sessionKeyFromPair(pair: CryptoKeyPair): Promise<SessionKey> {
  if (typeof pair !== 'object' || pair === null || typeof pair.privateKey !== 'object' || typeof pair.publicKey !== 'object') {
    throw invalidArgument('pair', 'a CryptoKeyPair');
  }
  const { privateKey, publicKey } = pair;
  const ecdsa = isKey(privateKey, 'private', 'ECDSA') && isKey(publicKey, 'public', 'ECDSA');
  const ecdh = isKey(privateKey, 'private', 'ECDH') && isKey(publicKey, 'public', 'ECDH');
  if (!ecdsa && !ecdh) throw invalidArgument('pair', 'a P-256 ECDSA or ECDH CryptoKeyPair');
  let raw: Uint8Array;
  try {
    raw = new Uint8Array(await subtle().exportKey('raw', publicKey));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'pair.publicKey must be an exportable P-256 public key', { cause });
  }
  const compressed = compressPublicKey(raw);
  return {
    privateKey,
    publicKey,
    publicKeyHex: bytesToHex(compressed),
    publicKeyUncompressedHex: bytesToHex(raw),
  };
}
