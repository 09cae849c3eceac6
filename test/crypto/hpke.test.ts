import { describe, expect, it } from 'vitest';
import { createDecipheriv, randomBytes } from 'node:crypto';
import {
  HPKE_INFO,
  bytesToHex,
  concatBytes,
  compressPublicKey,
  generateRecipientKey,
  generateSessionKey,
  utf8Decode,
  utf8Encode,
} from '../../src/crypto/index.js';
import { hpkeOpen, hpkeSeal } from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { asyncCodeOf, hex, vectors } from './helpers.js';
import { suite } from './hpke-reference.js';

const v = vectors.otpSeal;

/** Opens with @hpke/core directly (an implementation path that does not go through hpkeOpen). */
async function openWithHpkeCore(recipientKey: CryptoKeyPair, recipientPublic: Uint8Array, enc: Uint8Array, ct: Uint8Array) {
  const pt = await suite.open({ recipientKey, enc, info: utf8Encode('turnkey_hpke') }, ct, concatBytes(enc, recipientPublic));
  return new Uint8Array(pt);
}

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const copy = bytes.slice();
  copy[index]! ^= 0x01;
  return copy;
}

describe('HPKE OTP seal vector', () => {
  it('imports the vector keys; private halves are non-extractable', async () => {
    const recipient = await importHpkeRecipientKey(hex(v.recipientPrivateKey));
    expect(recipient.privateKey.extractable).toBe(false);
    expect(bytesToHex(new Uint8Array(await crypto.subtle.exportKey('raw', recipient.publicKey)))).toBe(v.recipientPublicKeyUncompressed);
    await expect(crypto.subtle.exportKey('pkcs8', recipient.privateKey)).rejects.toThrow();
  });
  it('seals byte for byte with the vector ephemeral key (ekm)', async () => {
    const ekm = await importHpkeRecipientKey(hex(v.ephemeralPrivateKey));
    const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hex(v.recipientPublicKeyUncompressed), plaintext: utf8Encode(v.plaintext), ekm });
    expect(bytesToHex(enc)).toBe(v.enc);
    expect(bytesToHex(ciphertext)).toBe(v.ciphertext);
  });
  it('a compressed recipient key gives the same bytes (aad uses the uncompressed form)', async () => {
    const ekm = await importHpkeRecipientKey(hex(v.ephemeralPrivateKey));
    const compressed = compressPublicKey(hex(v.recipientPublicKeyUncompressed));
    const { ciphertext } = await hpkeSeal({ recipientPublicKey: compressed, plaintext: utf8Encode(v.plaintext), ekm });
    expect(bytesToHex(ciphertext)).toBe(v.ciphertext);
  });
  it('the vector opens with @hpke/core directly and with hpkeOpen', async () => {
    const recipient = await importHpkeRecipientKey(hex(v.recipientPrivateKey));
    const direct = await openWithHpkeCore(recipient, hex(v.recipientPublicKeyUncompressed), hex(v.enc), hex(v.ciphertext));
    expect(utf8Decode(direct)).toBe(v.plaintext);
    expect(utf8Decode(await hpkeOpen({ recipientKey: recipient, enc: hex(v.enc), ciphertext: hex(v.ciphertext) }))).toBe(v.plaintext);
  });
  it('the vector key and base nonce decrypt it with plain AES-256-GCM and aad = enc ‖ pkR (sequence 0)', () => {
    const ct = hex(v.ciphertext);
    const decipher = createDecipheriv('aes-256-gcm', hex(v.key), hex(v.baseNonce));
    decipher.setAAD(concatBytes(hex(v.enc), hex(v.recipientPublicKeyUncompressed)));
    decipher.setAuthTag(ct.subarray(-16));
    const pt = Buffer.concat([decipher.update(ct.subarray(0, -16)), decipher.final()]);
    expect(pt.toString('utf8')).toBe(v.plaintext);
    expect(HPKE_INFO).toBe('turnkey_hpke');
  });
});

describe('HPKE round trips', () => {
  it('random seals open with hpkeOpen and with @hpke/core directly', async () => {
    const recipient = await generateRecipientKey();
    const recipientPublic = hex(recipient.publicKeyUncompressedHex);
    for (const n of [0, 1, 32, 1000, 70_000]) {
      const plaintext = new Uint8Array(randomBytes(n));
      const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: recipientPublic, plaintext });
      expect(enc.length).toBe(65);
      expect(ciphertext.length).toBe(n + 16);
      expect(await hpkeOpen({ recipientKey: recipient, enc, ciphertext })).toEqual(plaintext);
      expect(await openWithHpkeCore(recipient, recipientPublic, enc, ciphertext)).toEqual(plaintext);
    }
  });
  it('hpkeOpen accepts a compressed enc', async () => {
    const recipient = await generateRecipientKey();
    const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hex(recipient.publicKeyHex), plaintext: utf8Encode('hi') });
    expect(utf8Decode(await hpkeOpen({ recipientKey: recipient, enc: compressPublicKey(enc), ciphertext }))).toBe('hi');
  });
});

describe('HPKE rejections', () => {
  async function sealed() {
    const recipient = await generateRecipientKey();
    const s = await hpkeSeal({ recipientPublicKey: hex(recipient.publicKeyUncompressedHex), plaintext: utf8Encode('mnemonic words here') });
    return { recipient, ...s };
  }
  it('tampered ciphertext body, tag, truncation → DECRYPTION_FAILED', async () => {
    const { recipient, enc, ciphertext } = await sealed();
    for (const bad of [flip(ciphertext, 0), flip(ciphertext, ciphertext.length - 1), ciphertext.subarray(0, -1), new Uint8Array(0)]) {
      expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc, ciphertext: bad }))).toBe('DECRYPTION_FAILED');
    }
  });
  it('wrong recipient key → DECRYPTION_FAILED', async () => {
    const { enc, ciphertext } = await sealed();
    const other = await generateRecipientKey();
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: other, enc, ciphertext }))).toBe('DECRYPTION_FAILED');
  });
  it('another valid enc → DECRYPTION_FAILED; an enc off the curve → INVALID_POINT', async () => {
    const { recipient, ciphertext } = await sealed();
    const otherEnc = hex((await generateRecipientKey()).publicKeyUncompressedHex);
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc: otherEnc, ciphertext }))).toBe('DECRYPTION_FAILED');
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc: hex(vectors.invalidPoints[0]!.hex), ciphertext }))).toBe(
      'INVALID_POINT',
    );
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc: new Uint8Array(64), ciphertext }))).toBe('INVALID_POINT');
  });
  it('a ciphertext sealed without our aad → DECRYPTION_FAILED (the aad is really bound)', async () => {
    const recipient = await generateRecipientKey();
    const raw = new Uint8Array(hex(recipient.publicKeyUncompressedHex));
    const recipientPublicKey = await crypto.subtle.importKey('raw', raw, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
    const { enc, ct } = await suite.seal({ recipientPublicKey, info: utf8Encode(HPKE_INFO) }, utf8Encode('x'));
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc: new Uint8Array(enc), ciphertext: new Uint8Array(ct) }))).toBe(
      'DECRYPTION_FAILED',
    );
  });
  it('bad arguments → INVALID_ARGUMENT / INVALID_POINT', async () => {
    const recipient = await generateRecipientKey();
    const session = await generateSessionKey();
    const pub = hex(recipient.publicKeyUncompressedHex);
    expect(await asyncCodeOf(() => hpkeSeal({ recipientPublicKey: hex(vectors.invalidPoints[0]!.hex), plaintext: new Uint8Array(1) }))).toBe('INVALID_POINT');
    expect(await asyncCodeOf(() => hpkeSeal({ recipientPublicKey: pub, plaintext: 'x' as unknown as Uint8Array }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => hpkeSeal({ recipientPublicKey: pub, plaintext: new Uint8Array(1), ekm: session }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: session, enc: pub, ciphertext: new Uint8Array(17) }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc: pub, ciphertext: 'x' as unknown as Uint8Array }))).toBe('INVALID_ARGUMENT');
  });
  it('importHpkeRecipientKey rejects what is not a scalar in [1, n−1]', async () => {
    const n = hex('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
    for (const bad of [new Uint8Array(31), new Uint8Array(33), new Uint8Array(32), n, new Uint8Array(32).fill(0xff)]) {
      expect(await asyncCodeOf(() => importHpkeRecipientKey(bad))).toBe('INVALID_ARGUMENT');
    }
    expect(await asyncCodeOf(() => importHpkeRecipientKey('00' as unknown as Uint8Array))).toBe('INVALID_ARGUMENT');
  });
});
