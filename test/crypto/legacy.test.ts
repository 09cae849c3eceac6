import { describe, expect, it } from 'vitest';
import bs58check from 'bs58check';
import { p256 } from '@noble/curves/nist.js';
import { openSealedSessionKey } from '../../src/legacy.js';
import {
  bytesToHex,
  compressPublicKey,
  concatBytes,
  generateRecipientKey,
  parseStamp,
  stamp,
  utf8Encode,
} from '../../src/crypto/index.js';
import { hpkeSeal } from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { asyncCodeOf, hex, nodeVerifies, vectors } from './helpers.js';

const v = vectors.credentialBundle;
const recipient = () => importHpkeRecipientKey(hex(v.recipientPrivateKey));

/** Seals `plaintext` to `recipientPublicHex` in the legacy format: base58check(compressed enc ‖ ct). */
async function legacyBundle(recipientPublicHex: string, plaintext: Uint8Array): Promise<string> {
  const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hex(recipientPublicHex), plaintext });
  return bs58check.encode(concatBytes(compressPublicKey(enc), ciphertext));
}

describe('legacy sealed session key', () => {
  it('opens the vector into a non-extractable signing key for the sealed scalar', async () => {
    expect(bs58check.decode(v.bundle).length).toBe(v.decodedLength);
    const key = await openSealedSessionKey({ bundle: v.bundle, recipientKey: await recipient() });
    const expectedPublic = p256.getPublicKey(hex(v.plaintextPrivateKey), false);
    expect(key.publicKeyUncompressedHex).toBe(bytesToHex(expectedPublic));
    expect(key.publicKeyHex).toBe(bytesToHex(compressPublicKey(expectedPublic)));
    expect(key.privateKey.extractable).toBe(false);
    expect(key.privateKey.usages).toEqual(['sign']);
    await expect(crypto.subtle.exportKey('pkcs8', key.privateKey)).rejects.toThrow();
    await expect(crypto.subtle.exportKey('jwk', key.privateKey)).rejects.toThrow();
  });
  it('the opened key stamps, and node:crypto verifies against the sealed scalar’s public key', async () => {
    const key = await openSealedSessionKey({ bundle: v.bundle, recipientKey: await recipient() });
    const parsed = parseStamp(await stamp('legacy payload', key));
    const publicFromScalar = bytesToHex(p256.getPublicKey(hex(v.plaintextPrivateKey), true));
    expect(parsed.publicKey).toBe(publicFromScalar);
    expect(nodeVerifies(publicFromScalar, utf8Encode('legacy payload'), hex(parsed.signature))).toBe(true);
  });
  it('round-trips a freshly sealed scalar to a generated recipient key', async () => {
    const recipientKey = await generateRecipientKey();
    const scalar = p256.utils.randomSecretKey();
    const bundle = await legacyBundle(recipientKey.publicKeyUncompressedHex, scalar);
    const key = await openSealedSessionKey({ bundle, recipientKey });
    expect(key.publicKeyHex).toBe(bytesToHex(p256.getPublicKey(scalar, true)));
  });
});

describe('legacy rejections', () => {
  it('bad base58 characters, a bad checksum, a too-short payload → MALFORMED_BUNDLE', async () => {
    const recipientKey = await recipient();
    const last = v.bundle.at(-1) === '2' ? '3' : '2';
    for (const bundle of [v.bundle.slice(0, 5) + '0' + v.bundle.slice(6), v.bundle.slice(0, -1) + last, '', bs58check.encode(new Uint8Array(49))]) {
      expect(await asyncCodeOf(() => openSealedSessionKey({ bundle, recipientKey }))).toBe('MALFORMED_BUNDLE');
    }
    expect(await asyncCodeOf(() => openSealedSessionKey({ bundle: 7 as unknown as string, recipientKey }))).toBe('MALFORMED_BUNDLE');
  });
  it('an enc with a wrong prefix or off the curve → MALFORMED_BUNDLE', async () => {
    const recipientKey = await recipient();
    const decoded = bs58check.decode(v.bundle);
    const badPrefix = decoded.slice();
    badPrefix[0] = 0x04;
    const offCurve = decoded.slice();
    offCurve.fill(0xff, 1, 33);
    for (const bytes of [badPrefix, offCurve]) {
      expect(await asyncCodeOf(() => openSealedSessionKey({ bundle: bs58check.encode(bytes), recipientKey }))).toBe('MALFORMED_BUNDLE');
    }
  });
  it('tampered ciphertext or tag, or the wrong recipient → DECRYPTION_FAILED', async () => {
    const decoded = bs58check.decode(v.bundle);
    for (const index of [40, decoded.length - 1]) {
      const tampered = decoded.slice();
      tampered[index]! ^= 1;
      expect(await asyncCodeOf(async () => openSealedSessionKey({ bundle: bs58check.encode(tampered), recipientKey: await recipient() }))).toBe(
        'DECRYPTION_FAILED',
      );
    }
    const other = await generateRecipientKey();
    expect(await asyncCodeOf(() => openSealedSessionKey({ bundle: v.bundle, recipientKey: other }))).toBe('DECRYPTION_FAILED');
  });
  it('a plaintext that is not a valid 32-byte scalar → MALFORMED_BUNDLE', async () => {
    const recipientKey = await generateRecipientKey();
    const n = hex('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
    for (const plaintext of [new Uint8Array(31).fill(1), new Uint8Array(33).fill(1), new Uint8Array(32), n]) {
      const bundle = await legacyBundle(recipientKey.publicKeyUncompressedHex, plaintext);
      expect(await asyncCodeOf(() => openSealedSessionKey({ bundle, recipientKey }))).toBe('MALFORMED_BUNDLE');
    }
  });
  it('a recipient key that is not an ECDH pair → INVALID_ARGUMENT', async () => {
    expect(await asyncCodeOf(() => openSealedSessionKey({ bundle: v.bundle, recipientKey: {} as CryptoKeyPair }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => openSealedSessionKey(null as unknown as { bundle: string; recipientKey: CryptoKeyPair }))).toBe('INVALID_ARGUMENT');
  });
});
