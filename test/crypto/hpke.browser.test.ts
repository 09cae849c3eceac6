// Runs in real Chromium, Firefox and WebKit (the `browser (…)` projects): our WebCrypto HPKE against
// @hpke/core and the vectors with the browser's own ECDH, HMAC and AES-GCM.
import { describe, expect, it } from 'vitest';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import {
  bytesToHex,
  generateRecipientKey,
  hexToBytes,
  hpkeOpen,
  hpkeSeal,
  utf8Decode,
  utf8Encode,
} from '../../src/index.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { coreOpen, coreSeal, otpSealSchedule } from './hpke-reference.js';

/** getRandomValues fills at most 65,536 bytes per call. */
function randomPlaintext(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65_536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65_536)));
  return out;
}

function lengths(count: number): number[] {
  const out = [0, 1, 16, 17, 65_536];
  while (out.length < count) out.push(Math.floor(Math.random() * (out.length % 2 ? 257 : 65_537)));
  return out;
}

describe('HPKE in the browser', () => {
  it('otpSeal: key, base nonce, enc and ciphertext match the vector byte for byte', async () => {
    const v = vectors.otpSeal;
    const { ekm, pkR, key, baseNonce } = await otpSealSchedule(v);
    expect(bytesToHex(key)).toBe(v.key);
    expect(bytesToHex(baseNonce)).toBe(v.baseNonce);
    const sealed = await hpkeSeal({ recipientPublicKey: pkR, plaintext: utf8Encode(v.plaintext), ekm });
    expect(bytesToHex(sealed.enc)).toBe(v.enc);
    expect(bytesToHex(sealed.ciphertext)).toBe(v.ciphertext);
    const recipient = await importHpkeRecipientKey(hexToBytes(v.recipientPrivateKey));
    expect(utf8Decode(await hpkeOpen({ recipientKey: recipient, enc: sealed.enc, ciphertext: sealed.ciphertext }))).toBe(v.plaintext);
  });

  it('200 random plaintexts each way between ours and @hpke/core (0 B to 64 KB)', async () => {
    for (const n of lengths(200)) {
      const recipient = await generateRecipientKey();
      const pkR = hexToBytes(recipient.publicKeyUncompressedHex);
      const plaintext = randomPlaintext(n);

      const ours = await hpkeSeal({ recipientPublicKey: pkR, plaintext });
      expect(bytesToHex(await coreOpen(recipient, ours.enc, ours.ciphertext))).toBe(bytesToHex(plaintext));

      const { enc, ciphertext } = await coreSeal(pkR, plaintext);
      expect(bytesToHex(await hpkeOpen({ recipientKey: recipient, enc, ciphertext }))).toBe(bytesToHex(plaintext));
    }
    // 800 HPKE operations: ~3 s in Chromium and Firefox, ~17 s in WebKitGTK (its WebCrypto is much
    // slower), past 30 s there when the machine is busy.
  }, 120_000);

  it('a tampered tag fails with DECRYPTION_FAILED', async () => {
    const recipient = await generateRecipientKey();
    const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hexToBytes(recipient.publicKeyHex), plaintext: utf8Encode('x') });
    ciphertext[ciphertext.length - 1]! ^= 1;
    await expect(hpkeOpen({ recipientKey: recipient, enc, ciphertext })).rejects.toMatchObject({ code: 'DECRYPTION_FAILED' });
  });
});
