/**
 * The HPKE profile of wire reference §7: RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM, info = utf8("turnkey_hpke"), single shot,
 * aad = enc (65 bytes) ‖ recipient public key (65 bytes, uncompressed).
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { WalletError, invalidArgument } from '../errors.js';
import { base64urlEncode, concatBytes, hexToBytes, utf8Encode } from './encoding.js';
import { toUncompressedPublicKey } from './p256.js';
import { ECDH_P256, buf, isKey, subtle } from './webcrypto.js';

export const HPKE_INFO = 'turnkey_hpke';

let suite: CipherSuite | undefined;

/** Built on first use, never at import. */
function cipherSuite(): CipherSuite {
  subtle(); // CRYPTO_UNAVAILABLE before @hpke/core reports its own error
  suite ??= new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  return suite;
}

function isKeyPair(value: unknown): value is CryptoKeyPair {
  return typeof value === 'object' && value !== null && 'privateKey' in value && 'publicKey' in value;
}

/** Seals `plaintext` to a P-256 recipient. `ekm` fixes the ephemeral key pair (known-answer tests only). */
export async function hpkeSeal(args: {
  recipientPublicKey: Uint8Array;
  plaintext: Uint8Array;
  ekm?: CryptoKeyPair;
}): Promise<{ enc: Uint8Array<ArrayBuffer>; ciphertext: Uint8Array<ArrayBuffer> }> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  if (!(args.plaintext instanceof Uint8Array)) throw invalidArgument('plaintext', 'a Uint8Array');
  if (args.ekm !== undefined && !(isKeyPair(args.ekm) && isKey(args.ekm.privateKey, 'private', 'ECDH'))) {
    throw invalidArgument('ekm', 'an ECDH P-256 CryptoKeyPair');
  }
  const recipientRaw = toUncompressedPublicKey(args.recipientPublicKey);
  const s = cipherSuite();
  const recipientPublicKey = await subtle().importKey('raw', buf(recipientRaw), ECDH_P256, true, []);
  const params = { recipientPublicKey, info: utf8Encode(HPKE_INFO), ...(args.ekm ? { ekm: args.ekm } : {}) };
  // The aad needs enc before sealing, so set up the context first and seal once (sequence 0).
  let sender;
  try {
    sender = await s.createSenderContext(params);
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'HPKE encapsulation failed', { cause });
  }
  const enc = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(buf(args.plaintext), buf(concatBytes(enc, recipientRaw))));
  return { enc, ciphertext };
}

/** Opens a single-shot HPKE ciphertext. A wrong key, a tampered enc, ciphertext or tag → DECRYPTION_FAILED. */
export async function hpkeOpen(args: { recipientKey: CryptoKeyPair; enc: Uint8Array; ciphertext: Uint8Array }): Promise<Uint8Array<ArrayBuffer>> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const { recipientKey, enc, ciphertext } = args;
  if (!isKeyPair(recipientKey) || !isKey(recipientKey.privateKey, 'private', 'ECDH') || !isKey(recipientKey.publicKey, 'public', 'ECDH')) {
    throw invalidArgument('recipientKey', 'an ECDH P-256 CryptoKeyPair');
  }
  if (!(ciphertext instanceof Uint8Array)) throw invalidArgument('ciphertext', 'a Uint8Array');
  // Decompress ourselves (a caller may hold a compressed enc) and reject non-points up front: INVALID_POINT.
  const encRaw = toUncompressedPublicKey(enc);
  const s = cipherSuite();
  const recipientRaw = new Uint8Array(await subtle().exportKey('raw', recipientKey.publicKey));
  try {
    const plaintext = await s.open(
      { recipientKey, enc: buf(encRaw), info: utf8Encode(HPKE_INFO) },
      buf(ciphertext),
      buf(concatBytes(encRaw, recipientRaw)),
    );
    return new Uint8Array(plaintext);
  } catch (cause) {
    throw new WalletError('DECRYPTION_FAILED', undefined, { cause });
  }
}

/**
 * A raw 32-byte P-256 scalar → an ECDH key pair for HPKE (tests, the sandbox's enclave keys, `ekm`).
 * The scalar goes in as JWK; its public point is learned from one extractable import that is then
 * dropped, so the returned private key is non-extractable. Not a scalar in [1, n−1] → INVALID_ARGUMENT.
 */
export async function importHpkeRecipientKey(privateKeyBytes: Uint8Array): Promise<CryptoKeyPair> {
  if (!(privateKeyBytes instanceof Uint8Array) || privateKeyBytes.length !== 32) {
    throw invalidArgument('privateKeyBytes', 'a 32-byte P-256 private scalar');
  }
  const api = subtle();
  // PKCS#8 PrivateKeyInfo for P-256 without the optional public key (RFC 5915), then the scalar.
  const pkcs8 = concatBytes(hexToBytes('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420'), privateKeyBytes);
  try {
    const temporary = await api.importKey('pkcs8', buf(pkcs8), ECDH_P256, true, ['deriveBits']);
    const jwk = await api.exportKey('jwk', temporary);
    const { x, y } = jwk;
    if (typeof x !== 'string' || typeof y !== 'string') throw new Error('no public point');
    const d = base64urlEncode(privateKeyBytes);
    const privateKey = await api.importKey('jwk', { kty: 'EC', crv: 'P-256', d, x, y }, ECDH_P256, false, ['deriveBits']);
    const publicKey = await api.importKey('jwk', { kty: 'EC', crv: 'P-256', x, y }, ECDH_P256, true, []);
    return { privateKey, publicKey };
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'privateKeyBytes is not a valid P-256 private scalar', { cause });
  } finally {
    pkcs8.fill(0);
  }
}
