// Runs in real Chromium, Firefox and WebKit (the `browser (…)` projects): stamp() with our own keys against the
// engine's WebCrypto and @noble/curves, and the vector through stamp().
import { describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import {
  generateSessionKey,
  hexToBytes,
  signerFromKey,
  stamp,
  verifySignature,
  type SessionKey,
} from '../../src/crypto/index.js';
import { expectCanonicalStamp } from './stamp-reference.js';

/** Checks one header: exact bytes against the reference, and the engine's WebCrypto and @noble/curves verify it over `payload`. */
async function expectValidStamp(header: string, key: SessionKey, payload: string): Promise<void> {
  const { publicKey, der } = expectCanonicalStamp(header, key);
  const data = new TextEncoder().encode(payload);
  expect(await verifySignature(publicKey, der, data)).toBe(true);
  expect(p256.verify(der, data, hexToBytes(publicKey), { lowS: false, format: 'der' })).toBe(true);
}

describe('stamp() with our own keys in the browser', () => {
  it('the vector signature, through stamp(), gives the vector headerValue', async () => {
    const der = hexToBytes(vectors.stamp.derSignature);
    expect(await stamp(vectors.stamp.payloadToSign, { publicKeyHex: vectors.stamp.publicKeyCompressed, sign: async () => der })).toBe(vectors.stamp.headerValue);
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

  it('empty, large and non-ASCII payloads, and lone surrogates, verify', async () => {
    const key = await generateSessionKey();
    const signer = signerFromKey(key);
    for (const payload of ['', 'x'.repeat(4097), 'ü'.repeat(5000), 'a\ud800b\udc00c', 'y'.repeat(65_536), 'z'.repeat(65_537)]) {
      await expectValidStamp(await stamp(payload, signer), key, payload);
    }
  });
});
