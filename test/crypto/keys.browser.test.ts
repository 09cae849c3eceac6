// Runs in real Chromium, Firefox and WebKit (the `browser (…)` projects): WebCrypto as each engine implements it.
import { describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import {
  bytesToHex,
  generateRecipientKey,
  generateSessionKey,
  hexToBytes,
  hpkeSeal,
  openExportBundle,
  parseStamp,
  stamp,
  utf8Encode,
  verifySignature,
} from '../../src/index.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { openSealedSessionKey } from '../../src/legacy.js';

describe('keys in the browser', () => {
  it('generated session and recipient private keys are non-extractable and cannot be exported', async () => {
    for (const key of [await generateSessionKey(), await generateRecipientKey()]) {
      expect(key.privateKey.extractable).toBe(false);
      for (const format of ['pkcs8', 'jwk'] as const) {
        await expect(crypto.subtle.exportKey(format, key.privateKey)).rejects.toThrow();
      }
      expect(key.publicKeyHex).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(key.publicKeyUncompressedHex).toMatch(/^04[0-9a-f]{128}$/);
    }
    const session = await generateSessionKey();
    expect(session.privateKey.usages).toEqual(['sign']);
  });

  it('the vector stamp verifies through the parse-and-verify path', async () => {
    const parsed = parseStamp(vectors.stamp.headerValue);
    expect(parsed.publicKey).toBe(vectors.stamp.publicKeyCompressed);
    const ok = await verifySignature(parsed.publicKey, hexToBytes(parsed.signature), utf8Encode(vectors.stamp.payloadToSign));
    expect(ok).toBe(true);
  });

  it('a stamp made in the page verifies with WebCrypto and with a second implementation (@noble/curves)', async () => {
    const key = await generateSessionKey();
    for (const payload of ['', '{"requestId":"Request:1"}', 'héllo 🌍 日本語', 'x'.repeat(100_000)]) {
      const parsed = parseStamp(await stamp(payload, key));
      expect(parsed.publicKey).toBe(key.publicKeyHex);
      const data = utf8Encode(payload);
      const der = hexToBytes(parsed.signature);
      expect(await verifySignature(parsed.publicKey, der, data)).toBe(true);
      expect(p256.verify(der, data, hexToBytes(parsed.publicKey), { lowS: false, format: 'der' })).toBe(true);
      expect(p256.verify(der, utf8Encode(payload + ' '), hexToBytes(parsed.publicKey), { lowS: false, format: 'der' })).toBe(false);
    }
  });

  it('the OTP seal vector is reproduced byte for byte', async () => {
    const v = vectors.otpSeal;
    const ekm = await importHpkeRecipientKey(hexToBytes(v.ephemeralPrivateKey));
    const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hexToBytes(v.recipientPublicKeyUncompressed), plaintext: utf8Encode(v.plaintext), ekm });
    expect(bytesToHex(enc)).toBe(v.enc);
    expect(bytesToHex(ciphertext)).toBe(v.ciphertext);
  });

  it('the export vector opens to the mnemonic', async () => {
    const v = vectors.exportBundle;
    const recipientKey = await importHpkeRecipientKey(hexToBytes(v.recipientPrivateKey));
    const signer = (JSON.parse(v.bundle) as { enclaveQuorumPublic: string }).enclaveQuorumPublic;
    expect((await openExportBundle({ bundle: v.bundle, recipientKey, trustedKeys: [signer] })).mnemonic).toBe(v.mnemonic);
  });

  it('the legacy sealed key imports as a non-extractable signing key', async () => {
    const v = vectors.credentialBundle;
    const key = await openSealedSessionKey({ bundle: v.bundle, recipientKey: await importHpkeRecipientKey(hexToBytes(v.recipientPrivateKey)) });
    expect(key.privateKey.extractable).toBe(false);
    expect(key.publicKeyHex).toBe(bytesToHex(p256.getPublicKey(hexToBytes(v.plaintextPrivateKey), true)));
    const parsed = parseStamp(await stamp('legacy', key));
    expect(p256.verify(hexToBytes(parsed.signature), utf8Encode('legacy'), hexToBytes(parsed.publicKey), { lowS: false, format: 'der' })).toBe(true);
  });
});
