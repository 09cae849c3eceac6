/**
 * HPKE, profile of wire-reference §7: RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM, info = "turnkey_hpke", single shot,
 * aad = enc (65-byte uncompressed) ‖ recipient public key (65-byte uncompressed).
 *
 * Used by the sandbox for OTP bundles (open), sealed session keys and export bundles (seal).
 */
import type { CipherSuite } from '@hpke/core';
import { hpkeCore } from '../peers.js';
import { concat, utf8 } from './encoding.js';

export const HPKE_INFO = 'turnkey_hpke';

let suite: CipherSuite | undefined;

/** The suite, from @hpke/core (an optional peer: loaded on first use, see peers.ts). */
async function getSuite(): Promise<CipherSuite> {
  if (suite === undefined) {
    const { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } = await hpkeCore();
    suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  }
  return suite;
}

/** A fresh HPKE recipient key pair and its 65-byte uncompressed public key. */
export async function generateHpkeKey(): Promise<{ keyPair: CryptoKeyPair; publicKey: Uint8Array }> {
  const s = await getSuite();
  const keyPair = await s.kem.generateKeyPair();
  const publicKey = new Uint8Array(await s.kem.serializePublicKey(keyPair.publicKey));
  return { keyPair, publicKey };
}

/** Seals `plaintext` to a 65-byte uncompressed recipient key; returns enc (65 bytes) and ciphertext‖tag. */
export async function hpkeSeal(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Promise<{ enc: Uint8Array; ciphertext: Uint8Array }> {
  const s = await getSuite();
  const recipient = await s.kem.deserializePublicKey(recipientPublicKey);
  const ekm = await s.kem.generateKeyPair();
  const enc = new Uint8Array(await s.kem.serializePublicKey(ekm.publicKey));
  const sealed = await s.seal({ recipientPublicKey: recipient, info: utf8(HPKE_INFO), ekm }, plaintext, concat(enc, recipientPublicKey));
  return { enc, ciphertext: new Uint8Array(sealed.ct) };
}

/** Opens with a recipient key pair; `undefined` when the key, enc, aad or ciphertext do not match. */
export async function hpkeOpen(recipient: { keyPair: CryptoKeyPair; publicKey: Uint8Array }, enc: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array | undefined> {
  const s = await getSuite();
  try {
    const plain = await s.open({ recipientKey: recipient.keyPair, enc, info: utf8(HPKE_INFO) }, ciphertext, concat(enc, recipient.publicKey));
    return new Uint8Array(plain);
  } catch {
    return undefined;
  }
}
