// Runs in real Chromium, Firefox and WebKit (the `browser (…)` projects): stamp()'s own-key path (WebCrypto sign into a
// reused payload buffer, stamp formatted from r‖s) against the engine's WebCrypto and @noble/curves.
import { describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import {
  derFromP1363,
  generateSessionKey,
  hexToBytes,
  p1363FromDer,
  signerFromKey,
  stamp,
  utf8Encode,
  verifySignature,
  type SessionKey,
} from '../../src/crypto/index.js';
import { stampFromP1363 } from '../../src/crypto/stamp.js';
import { ECDSA_SHA256, expectCanonicalStamp } from './stamp-reference.js';

/** Checks one header: exact bytes against the reference, and the engine's WebCrypto and @noble/curves verify it over `payload`. */
async function expectValidStamp(header: string, key: SessionKey, payload: string): Promise<void> {
  const { publicKey, der } = expectCanonicalStamp(header, key);
  const data = new TextEncoder().encode(payload);
  expect(await verifySignature(publicKey, der, data)).toBe(true);
  expect(p256.verify(der, data, hexToBytes(publicKey), { lowS: false, format: 'der' })).toBe(true);
}

describe('stamp() with our own keys in the browser', () => {
  it('the vector signature, as r‖s, formats to the vector headerValue', () => {
    const rs = p1363FromDer(hexToBytes(vectors.stamp.derSignature));
    expect(stampFromP1363(vectors.stamp.publicKeyCompressed, rs)).toBe(vectors.stamp.headerValue);
  });

  it('the engine copies sign() input before returning (what reusing the payload buffer relies on)', async () => {
    const key = await generateSessionKey();
    const data = utf8Encode('the bytes that must be signed');
    const pending = crypto.subtle.sign(ECDSA_SHA256, key.privateKey, data);
    data.fill(0x41);
    const der = derFromP1363(new Uint8Array(await pending));
    expect(await verifySignature(key.publicKeyHex, der, utf8Encode('the bytes that must be signed'))).toBe(true);
  });

  it('overlapping stamps each sign their own payload (ASCII, non-ASCII, growing sizes)', async () => {
    const keys = await Promise.all([generateSessionKey(), generateSessionKey()]);
    for (let round = 0; round < 10; round++) {
      const jobs = Array.from({ length: 10 }, (_, i) => {
        const key = keys[i % 2]!;
        const payload = `${round}/${i} ` + (i % 3 === 0 ? 'é🌍'.repeat(50 * i) : 'q'.repeat(500 * i + round));
        return { key, payload, header: stamp(payload, i % 4 < 2 ? key : signerFromKey(key)) };
      });
      for (const job of jobs) await expectValidStamp(await job.header, job.key, job.payload);
    }
  });

  it('payloads around the reused buffer’s limits, and lone surrogates, verify', async () => {
    const key = await generateSessionKey();
    const signer = signerFromKey(key);
    for (const payload of ['', 'x'.repeat(4097), 'ü'.repeat(5000), 'a\ud800b\udc00c', 'y'.repeat(65_536), 'z'.repeat(65_537)]) {
      await expectValidStamp(await stamp(payload, signer), key, payload);
    }
  });
});
