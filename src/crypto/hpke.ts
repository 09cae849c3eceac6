/**
 * The HPKE profile of wire reference §7: RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM, info = utf8("turnkey_hpke"), single shot (sequence 0, so the nonce is
 * base_nonce), aad = enc (65 bytes) ‖ recipient public key (65 bytes, uncompressed).
 * WebCrypto only (ECDH, HMAC, AES-GCM): no HPKE library in the browser bundle.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { utf8Encode } from './encoding.js';
import { concatBytes } from './bytes.js';
import { keySchedule, kemSharedSecret } from './hpke-schedule.js';
import { HPKE_INFO } from './hpke-info.js';
import { toUncompressedPublicKey } from './verify.js';
import { ECDH_P256, buf, isKey, subtle } from './webcrypto.js';


function isKeyPair(value: unknown): value is CryptoKeyPair {
  return typeof value === 'object' && value !== null && 'privateKey' in value && 'publicKey' in value;
}

function isEcdhPair(value: unknown): value is CryptoKeyPair {
  return isKeyPair(value) && isKey(value.privateKey, 'private', 'ECDH') && isKey(value.publicKey, 'public', 'ECDH');
}

/**
 * The AES-256-GCM key and nonce for one message: DH (the 32-byte x-coordinate of ECDH), the DHKEM
 * shared secret over enc ‖ pkR, then the base-mode key schedule. Intermediate secrets are zeroed.
 */
async function messageKey(
  privateKey: CryptoKey,
  peerRaw: Uint8Array,
  enc: Uint8Array,
  recipientRaw: Uint8Array,
  usage: KeyUsage,
): Promise<{ key: CryptoKey; nonce: Uint8Array<ArrayBuffer> }> {
  const api = subtle();
  const peer = await api.importKey('raw', buf(peerRaw), ECDH_P256, false, []);
  const dh = new Uint8Array(await api.deriveBits({ name: 'ECDH', public: peer }, privateKey, 256));
  const shared = await kemSharedSecret(dh, enc, recipientRaw);
  dh.fill(0);
  const { key, baseNonce } = await keySchedule(shared, utf8Encode(HPKE_INFO));
  shared.fill(0);
  try {
    return { key: await api.importKey('raw', key, 'AES-GCM', false, [usage]), nonce: baseNonce };
  } finally {
    key.fill(0);
  }
}

/** Seals `plaintext` to a P-256 recipient. `ekm` fixes the ephemeral key pair (known-answer tests only); enc is its publicKey. */
export async function hpkeSeal(args: {
  recipientPublicKey: Uint8Array;
  plaintext: Uint8Array;
  ekm?: CryptoKeyPair;
}): Promise<{ enc: Uint8Array<ArrayBuffer>; ciphertext: Uint8Array<ArrayBuffer> }> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  if (!(args.plaintext instanceof Uint8Array)) throw invalidArgument('plaintext', 'a Uint8Array');
  if (args.ekm !== undefined && !isEcdhPair(args.ekm)) throw invalidArgument('ekm', 'an ECDH P-256 CryptoKeyPair');
  const recipientRaw = toUncompressedPublicKey(args.recipientPublicKey);
  const api = subtle();
  let enc: Uint8Array<ArrayBuffer>;
  let sealing: { key: CryptoKey; nonce: Uint8Array<ArrayBuffer> };
  try {
    const ephemeral = args.ekm ?? (await api.generateKey(ECDH_P256, false, ['deriveBits']));
    enc = new Uint8Array(await api.exportKey('raw', ephemeral.publicKey));
    sealing = await messageKey(ephemeral.privateKey, recipientRaw, enc, recipientRaw, 'encrypt');
  } catch (cause) {
    // e.g. an ekm whose public key is not extractable or whose private key lacks 'deriveBits'.
    throw new WalletError('INVALID_ARGUMENT', 'HPKE encapsulation failed', { cause });
  }
  const ciphertext = new Uint8Array(
    await api.encrypt({ name: 'AES-GCM', iv: sealing.nonce, additionalData: concatBytes(enc, recipientRaw) }, sealing.key, buf(args.plaintext)),
  );
  return { enc, ciphertext };
}

/** Opens a single-shot HPKE ciphertext. A wrong key, a tampered enc, ciphertext or tag → DECRYPTION_FAILED. */
export async function hpkeOpen(args: { recipientKey: CryptoKeyPair; enc: Uint8Array; ciphertext: Uint8Array }): Promise<Uint8Array<ArrayBuffer>> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const { recipientKey, enc, ciphertext } = args;
  if (!isEcdhPair(recipientKey)) throw invalidArgument('recipientKey', 'an ECDH P-256 CryptoKeyPair');
  if (!(ciphertext instanceof Uint8Array)) throw invalidArgument('ciphertext', 'a Uint8Array');
  // Decompress ourselves (a caller may hold a compressed enc) and reject non-points up front: INVALID_POINT.
  const encRaw = toUncompressedPublicKey(enc);
  const api = subtle();
  let recipientRaw: Uint8Array<ArrayBuffer>;
  try {
    recipientRaw = new Uint8Array(await api.exportKey('raw', recipientKey.publicKey));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'recipientKey.publicKey must be extractable (pkR is part of the aad)', { cause });
  }
  try {
    const { key, nonce } = await messageKey(recipientKey.privateKey, encRaw, encRaw, recipientRaw, 'decrypt');
    const aad = concatBytes(encRaw, recipientRaw);
    return new Uint8Array(await api.decrypt({ name: 'AES-GCM', iv: nonce, additionalData: aad }, key, buf(ciphertext)));
  } catch (cause) {
    throw new WalletError('DECRYPTION_FAILED', undefined, { cause });
  }
}
