/**
 * @hpke/core set up as the second HPKE implementation our WebCrypto HPKE is checked against (wire
 * reference §7: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, aad = enc ‖ pkR), and the key
 * schedule of the otpSeal vector. Browser-safe (no Node imports): used by the node and the browser
 * HPKE tests alike.
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { HPKE_INFO, concatBytes, hexToBytes, utf8Encode } from '../../src/crypto/index.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { kemSharedSecret, keySchedule } from '../../src/crypto/hpke-schedule.js';

export const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
export const info = utf8Encode(HPKE_INFO);
export const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;

export async function rawPublic(pair: CryptoKeyPair): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
}

/** @hpke/core seal with our profile's aad (enc ‖ pkR): the context first, then one seal (sequence 0). */
export async function coreSeal(recipientPublic: Uint8Array<ArrayBuffer>, plaintext: Uint8Array<ArrayBuffer>, ekm?: CryptoKeyPair) {
  const recipientPublicKey = await crypto.subtle.importKey('raw', recipientPublic, ECDH, true, []);
  const sender = await suite.createSenderContext({ recipientPublicKey, info, ...(ekm ? { ekm } : {}) });
  const enc = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(plaintext, concatBytes(enc, recipientPublic)));
  return { enc, ciphertext };
}

/** @hpke/core open with our profile's aad (enc ‖ the recipient's uncompressed public key). */
export async function coreOpen(recipientKey: CryptoKeyPair, enc: Uint8Array<ArrayBuffer>, ciphertext: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const aad = concatBytes(enc, await rawPublic(recipientKey));
  return new Uint8Array(await suite.open({ recipientKey, enc, info }, ciphertext, aad));
}

/** The otpSeal vector's inputs run through our key schedule by hand: ECDH, KEM shared secret, key and base nonce. */
export async function otpSealSchedule(v: { ephemeralPrivateKey: string; recipientPublicKeyUncompressed: string }) {
  const ekm = await importHpkeRecipientKey(hexToBytes(v.ephemeralPrivateKey));
  const pkR = hexToBytes(v.recipientPublicKeyUncompressed);
  const enc = await rawPublic(ekm);
  const peer = await crypto.subtle.importKey('raw', pkR, ECDH, false, []);
  const dh = new Uint8Array(await crypto.subtle.deriveBits({ name: 'ECDH', public: peer }, ekm.privateKey, 256));
  const { key, baseNonce } = await keySchedule(await kemSharedSecret(dh, enc, pkR), info);
  return { ekm, pkR, enc, key, baseNonce };
}
