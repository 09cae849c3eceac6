/**
 * Session and recipient key pairs: WebCrypto P-256 keys whose private half is never extractable.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { bytesToHex } from './encoding.js';
import { compressPublicKey, toUncompressedPublicKey } from './p256.js';
import { p1363FromDer } from './der.js';
import { ECDH_P256, ECDSA_P256, ECDSA_SHA256, buf, isKey, subtle } from './webcrypto.js';

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

/** Imports a SEC1 public key (either form, bytes or hex) for ECDSA verification. */
export async function importVerifyKey(publicKey: string | Uint8Array): Promise<CryptoKey> {
  // Decompress ourselves: Firefox and Safari cannot import compressed points.
  const raw = toUncompressedPublicKey(publicKey);
  return subtle().importKey('raw', buf(raw), ECDSA_P256, true, ['verify']);
}

/**
 * Verifies a DER ECDSA P-256/SHA-256 signature with WebCrypto. High-S signatures are accepted (never
 * normalised). Returns false when the signature does not verify; a signature that is not strict DER
 * throws SIGNATURE_MALFORMED and a key that is not a P-256 point throws INVALID_POINT, so callers can
 * tell "malformed" from "wrong" (the service distinguishes WALLET_SIGNATURE_MALFORMED from _INVALID).
 */
export async function verifySignature(publicKey: string | Uint8Array, derSignature: Uint8Array, data: Uint8Array): Promise<boolean> {
  if (!(data instanceof Uint8Array)) throw invalidArgument('data', 'a Uint8Array');
  const rs = p1363FromDer(derSignature);
  const key = await importVerifyKey(publicKey);
  return subtle().verify(ECDSA_SHA256, key, buf(rs), buf(data));
}
