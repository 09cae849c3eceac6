/**
 * Client side of the sandbox's bundles for tests, built directly on @hpke/core and node:crypto:
 * verify an enclave-signed bundle, seal an OTP bundle, open export bundles and sealed session keys.
 */
import { createPublicKey, verify } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import bs58check from 'bs58check';

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode('turnkey_hpke');

const hex = (b: Uint8Array | ArrayBuffer): string => Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b).toString('hex');
const unhex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const cat = (a: Uint8Array, b: Uint8Array): Uint8Array => new Uint8Array([...a, ...b]);

export interface SignedBundle {
  version: string;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/** Verifies dataSignature over the hex-decoded data with enclaveQuorumPublic (node:crypto, high-S ok). */
export function verifyBundle(bundle: SignedBundle): boolean {
  const pub = unhex(bundle.enclaveQuorumPublic);
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: Buffer.from(pub.subarray(1, 33)).toString('base64url'), y: Buffer.from(pub.subarray(33)).toString('base64url') },
    format: 'jwk',
  });
  return verify('sha256', unhex(bundle.data), { key, dsaEncoding: 'der' }, unhex(bundle.dataSignature));
}

export function bundleData(bundle: SignedBundle): Record<string, string> {
  return JSON.parse(Buffer.from(unhex(bundle.data)).toString('utf8')) as Record<string, string>;
}

/** The `encryptedOtpBundle` string for a target bundle, a code and a (compressed) public key. */
export async function sealOtp(targetBundle: string, otpCode: string, publicKey: string, plaintextJson?: string): Promise<string> {
  const bundle = JSON.parse(targetBundle) as SignedBundle;
  const targetPublic = unhex(bundleData(bundle).targetPublic as string);
  const recipient = await suite.kem.deserializePublicKey(targetPublic);
  const ekm = await suite.kem.generateKeyPair();
  const enc = new Uint8Array(await suite.kem.serializePublicKey(ekm.publicKey));
  const plaintext = new TextEncoder().encode(plaintextJson ?? JSON.stringify({ otp_code: otpCode, public_key: publicKey }));
  const sealed = await suite.seal({ recipientPublicKey: recipient, info: INFO, ekm }, plaintext, cat(enc, targetPublic));
  return JSON.stringify({ encappedPublic: hex(enc), ciphertext: hex(sealed.ct) });
}

/** An HPKE recipient key pair for export / legacy, with its uncompressed public key hex. */
export async function recipientKey(): Promise<{ keyPair: CryptoKeyPair; publicKey: Uint8Array; publicKeyHex: string }> {
  const keyPair = await suite.kem.generateKeyPair();
  const publicKey = new Uint8Array(await suite.kem.serializePublicKey(keyPair.publicKey));
  return { keyPair, publicKey, publicKeyHex: hex(publicKey) };
}

async function open(recipient: { keyPair: CryptoKeyPair; publicKey: Uint8Array }, enc: Uint8Array, ct: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await suite.open({ recipientKey: recipient.keyPair, enc, info: INFO }, ct, cat(enc, recipient.publicKey)));
}

/** Opens `encryptedWalletCredentials` → { mnemonic, organizationId }. */
export async function openExport(encrypted: string, recipient: { keyPair: CryptoKeyPair; publicKey: Uint8Array }): Promise<{ mnemonic: string; organizationId: string }> {
  const bundle = JSON.parse(encrypted) as SignedBundle;
  const inner = bundleData(bundle);
  const plain = await open(recipient, unhex(inner.encappedPublic as string), unhex(inner.ciphertext as string));
  return { mnemonic: new TextDecoder().decode(plain), organizationId: inner.organizationId as string };
}

/** Opens `encryptedSessionSigningKey` → the 32-byte scalar and its uncompressed public key. */
export async function openSealedKey(sealed: string, recipient: { keyPair: CryptoKeyPair; publicKey: Uint8Array }): Promise<{ scalar: Uint8Array; publicKey: Uint8Array }> {
  const raw = bs58check.decode(sealed);
  const encCompressed = raw.subarray(0, 33);
  const enc = p256.Point.fromBytes(encCompressed).toBytes(false);
  const scalar = await open(recipient, enc, raw.subarray(33));
  return { scalar, publicKey: p256.getPublicKey(scalar, false) };
}
