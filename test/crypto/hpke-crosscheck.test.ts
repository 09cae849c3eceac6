// Our WebCrypto HPKE (src/crypto/hpke.ts) against a second implementation, @hpke/core, on the suite of
// wire reference §7, plus the vectors of shared/vectors/wire-vectors.json opened both ways.
import { describe, expect, it } from 'vitest';
import { randomBytes, randomInt } from 'node:crypto';
import bs58check from 'bs58check';
import {
  bytesToHex,
  concatBytes,
  decompressPublicKey,
  generateRecipientKey,
  utf8Decode,
  utf8Encode,
} from '../../src/crypto/index.js';
import { hpkeOpen, hpkeSeal } from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { ECDH, coreOpen, coreSeal, info, otpSealSchedule, rawPublic, suite } from './hpke-reference.js';
import { asyncCodeOf, hex, vectors } from './helpers.js';

/** Byte equality (vitest's deep equality is slow on 64 KB typed arrays). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** 200 plaintext lengths from 0 B to 64 KB: the edges, around the AES block, then random small and large. */
function lengths(): number[] {
  const fixed = [0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 1024, 4096, 65_535, 65_536];
  const out = [...fixed];
  while (out.length < 200) out.push(out.length % 2 ? randomInt(0, 257) : randomInt(0, 65_537));
  return out;
}

describe('HPKE: ours ↔ @hpke/core', () => {
  it('200 random plaintexts sealed by ours open with @hpke/core (and with ours)', async () => {
    const sizes = lengths();
    expect(sizes).toHaveLength(200);
    for (const n of sizes) {
      const recipient = await generateRecipientKey();
      const plaintext = new Uint8Array(randomBytes(n));
      const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hex(recipient.publicKeyUncompressedHex), plaintext });
      expect(enc).toHaveLength(65);
      expect(ciphertext).toHaveLength(n + 16);
      expect(same(await coreOpen(recipient, enc, ciphertext), plaintext)).toBe(true);
      expect(same(await hpkeOpen({ recipientKey: recipient, enc, ciphertext }), plaintext)).toBe(true);
    }
  });

  it('200 random plaintexts sealed by @hpke/core open with ours', async () => {
    for (const n of lengths()) {
      const recipient = await generateRecipientKey();
      const plaintext = new Uint8Array(randomBytes(n));
      const { enc, ciphertext } = await coreSeal(hex(recipient.publicKeyUncompressedHex), plaintext);
      expect(same(await hpkeOpen({ recipientKey: recipient, enc, ciphertext }), plaintext)).toBe(true);
    }
  });

  it('with the same ephemeral key both produce the same bytes (50 random keys and plaintexts)', async () => {
    for (let i = 0; i < 50; i++) {
      const recipient = await generateRecipientKey();
      const ekm = await crypto.subtle.generateKey(ECDH, true, ['deriveBits']);
      const plaintext = new Uint8Array(randomBytes(randomInt(0, 4097)));
      const ours = await hpkeSeal({ recipientPublicKey: hex(recipient.publicKeyUncompressedHex), plaintext, ekm });
      const theirs = await coreSeal(hex(recipient.publicKeyUncompressedHex), plaintext, ekm);
      expect(bytesToHex(ours.enc)).toBe(bytesToHex(theirs.enc));
      expect(bytesToHex(ours.ciphertext)).toBe(bytesToHex(theirs.ciphertext));
    }
  });

  it('a ciphertext @hpke/core sealed with another info, or with no aad, does not open with ours', async () => {
    const recipient = await generateRecipientKey();
    const pkR = hex(recipient.publicKeyUncompressedHex);
    const recipientPublicKey = await crypto.subtle.importKey('raw', pkR, ECDH, true, []);
    const sender = await suite.createSenderContext({ recipientPublicKey, info: utf8Encode('other_info') });
    const enc = new Uint8Array(sender.enc);
    const wrongInfo = new Uint8Array(await sender.seal(utf8Encode('x'), concatBytes(enc, pkR)));
    expect(await asyncCodeOf(() => hpkeOpen({ recipientKey: recipient, enc, ciphertext: wrongInfo }))).toBe('DECRYPTION_FAILED');
    const noAad = await suite.seal({ recipientPublicKey, info }, utf8Encode('x'));
    const opened = () => hpkeOpen({ recipientKey: recipient, enc: new Uint8Array(noAad.enc), ciphertext: new Uint8Array(noAad.ct) });
    expect(await asyncCodeOf(opened)).toBe('DECRYPTION_FAILED');
  });
});

describe('HPKE vectors', () => {
  const v = vectors.otpSeal;

  it('otpSeal: the key schedule gives the vector key and base nonce; enc and ciphertext match byte for byte', async () => {
    const { ekm, pkR, enc, key, baseNonce } = await otpSealSchedule(v);
    expect(bytesToHex(enc)).toBe(v.enc);
    expect(bytesToHex(key)).toBe(v.key);
    expect(bytesToHex(baseNonce)).toBe(v.baseNonce);
    const sealed = await hpkeSeal({ recipientPublicKey: pkR, plaintext: utf8Encode(v.plaintext), ekm });
    expect(bytesToHex(sealed.enc)).toBe(v.enc);
    expect(bytesToHex(sealed.ciphertext)).toBe(v.ciphertext);
    const core = await coreSeal(pkR, utf8Encode(v.plaintext), ekm);
    expect(bytesToHex(core.ciphertext)).toBe(v.ciphertext);
  });

  it('otpSeal: the recipient opens it with ours and with @hpke/core', async () => {
    const recipient = await importHpkeRecipientKey(hex(v.recipientPrivateKey));
    expect(utf8Decode(await hpkeOpen({ recipientKey: recipient, enc: hex(v.enc), ciphertext: hex(v.ciphertext) }))).toBe(v.plaintext);
    expect(utf8Decode(await coreOpen(recipient, hex(v.enc), hex(v.ciphertext)))).toBe(v.plaintext);
  });

  it('credentialBundle: base58check(compressed enc ‖ ciphertext) opens to the sealed scalar with both', async () => {
    const c = vectors.credentialBundle;
    const decoded = bs58check.decode(c.bundle);
    const enc = decompressPublicKey(decoded.subarray(0, 33));
    const ciphertext = decoded.slice(33);
    const recipient = await importHpkeRecipientKey(hex(c.recipientPrivateKey));
    expect(bytesToHex(await rawPublic(recipient))).toBe(c.recipientPublicKeyUncompressed);
    expect(bytesToHex(await hpkeOpen({ recipientKey: recipient, enc, ciphertext }))).toBe(c.plaintextPrivateKey);
    expect(bytesToHex(await coreOpen(recipient, enc, ciphertext))).toBe(c.plaintextPrivateKey);
  });

  it('exportBundle: the envelope data opens to the mnemonic with both', async () => {
    const e = vectors.exportBundle;
    const envelope = JSON.parse(e.bundle) as { data: string };
    const inner = JSON.parse(utf8Decode(hex(envelope.data))) as { encappedPublic: string; ciphertext: string; organizationId: string };
    expect(inner.organizationId).toBe(e.organizationId);
    const recipient = await importHpkeRecipientKey(hex(e.recipientPrivateKey));
    const enc = hex(inner.encappedPublic);
    const ciphertext = hex(inner.ciphertext);
    expect(utf8Decode(await hpkeOpen({ recipientKey: recipient, enc, ciphertext }))).toBe(e.mnemonic);
    expect(utf8Decode(await coreOpen(recipient, enc, ciphertext))).toBe(e.mnemonic);
  });
});

describe('HPKE argument edges', () => {
  it('a recipient public key that is not extractable → INVALID_ARGUMENT; an ekm without an ECDH public key → INVALID_ARGUMENT', async () => {
    const recipient = await generateRecipientKey();
    const pkR = hex(recipient.publicKeyUncompressedHex);
    const hiddenPublic = await crypto.subtle.importKey('raw', pkR, ECDH, false, []);
    const sealed = await hpkeSeal({ recipientPublicKey: pkR, plaintext: utf8Encode('x') });
    const open = () => hpkeOpen({ recipientKey: { privateKey: recipient.privateKey, publicKey: hiddenPublic }, ...sealed });
    expect(await asyncCodeOf(open)).toBe('INVALID_ARGUMENT');
    const ekm = await crypto.subtle.generateKey(ECDH, true, ['deriveBits']);
    const noPublic = { privateKey: ekm.privateKey, publicKey: recipient.privateKey };
    expect(await asyncCodeOf(() => hpkeSeal({ recipientPublicKey: pkR, plaintext: new Uint8Array(1), ekm: noPublic }))).toBe('INVALID_ARGUMENT');
  });
});
