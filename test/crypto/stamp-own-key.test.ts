// stamp() with our own keys (signerFromKey signers and bare session keys) and with signers of every
// DER length: byte for byte JSON.stringify → UTF-8 → base64url of the DER hex, and verifying.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomInt } from 'node:crypto';
import {
  base64urlDecode,
  derFromP1363,
  generateSessionKey,
  signerFromKey,
  stamp,
  utf8Decode,
  utf8Encode,
  type SessionKey,
  type Signer,
} from '../../src/crypto/index.js';
import { asyncCodeOf, hex, nodeVerifies, vectors } from './helpers.js';
import { expectCanonicalStamp, referenceHeader } from './stamp-reference.js';

const v = vectors.stamp;
/** Checks one header: exact bytes against the reference built from its own signature, and node:crypto verifies it over `payload`. */
function expectValidStamp(header: string, key: Pick<SessionKey, 'publicKeyHex'>, payload: string): void {
  const { publicKey, der } = expectCanonicalStamp(header, key);
  if (!nodeVerifies(publicKey, utf8Encode(payload), der)) throw new Error(`node:crypto rejected the stamp of ${JSON.stringify(payload.slice(0, 40))}…`);
}

describe('stamp() formatting', () => {
  it('matches the reference for 2,000 signatures of every DER length (short r and s, high bits) and alternating keys', async () => {
    const keys = [await generateSessionKey(), await generateSessionKey()];
    for (let i = 0; i < 2000; i++) {
      const rs = crypto.getRandomValues(new Uint8Array(64));
      if (i % 3 === 0) rs.fill(0, 0, 1 + (i % 4));
      if (i % 5 === 0) rs.fill(0, 32, 33 + (i % 3));
      if (i % 2 === 0) rs[32]! |= 0x80;
      const der = derFromP1363(rs);
      const key = keys[i % 2]!;
      expect(await stamp('x', { publicKeyHex: key.publicKeyHex, sign: async () => der })).toBe(referenceHeader(key.publicKeyHex, der));
    }
  });
  it('an uncompressed or upper-case public key is stamped as lowercase compressed hex', async () => {
    const der = hex(v.derSignature);
    for (const publicKeyHex of [v.publicKeyUncompressed.toUpperCase(), v.publicKeyCompressed.toUpperCase()]) {
      expect(await stamp(v.payloadToSign, { publicKeyHex, sign: async () => der })).toBe(v.headerValue);
    }
  });
});

describe('stamp() with our own keys', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('a signer and the bare key give exact, verifying stamps (ASCII, non-ASCII, lone surrogates, large)', async () => {
    const key = await generateSessionKey();
    const signer = signerFromKey(key);
    const payloads = [
      '',
      'a',
      '{"requestId":"Request:1"}',
      'x'.repeat(4096),
      'é'.repeat(3000),
      'héllo – 日本語 🌍',
      'lone \ud800 high, lone \udc00 low, pair \ud83c\udf0d, trailing \ud800', // U+FFFD, as TextEncoder
      'z'.repeat(65_537),
      ' {"a": 1} ',
    ];
    for (const payload of payloads) {
      expectValidStamp(await stamp(payload, signer), key, payload);
      expectValidStamp(await stamp(payload, key), key, payload);
    }
  });

  it('overlapping stamps (started before the previous one settles) each sign their own payload', async () => {
    const keys = await Promise.all([generateSessionKey(), generateSessionKey(), generateSessionKey()]);
    for (let round = 0; round < 20; round++) {
      const jobs = Array.from({ length: 12 }, (_, i) => {
        const key = keys[(round + i) % keys.length]!;
        const payload = `${round}:${i}:` + (i % 3 === 0 ? '日本'.repeat(randomInt(0, 400)) : 'p'.repeat(randomInt(0, 3000)));
        return { key, payload, header: stamp(payload, i % 2 === 0 ? key : signerFromKey(key)) };
      });
      for (const job of jobs) expectValidStamp(await job.header, job.key, job.payload);
    }
  });

  it('a signer made by signerFromKey keeps working as a plain Signer (detached sign, DER output)', async () => {
    const key = await generateSessionKey();
    const { sign, publicKeyHex } = signerFromKey(key);
    const der = await sign(new Uint8Array([1, 2, 3]));
    expect(nodeVerifies(publicKeyHex, new Uint8Array([1, 2, 3]), der)).toBe(true);
    expect(Object.keys(signerFromKey(key)).sort()).toEqual(['publicKeyHex', 'sign']);
  });

  it('every signer\'s output goes through the DER check (a copy of ours passes, a lying one does not)', async () => {
    const key = await generateSessionKey();
    const copy: Signer = { ...signerFromKey(key) };
    expectValidStamp(await stamp('copied', copy), key, 'copied');
    const lying: Signer = { ...copy, sign: async () => crypto.getRandomValues(new Uint8Array(64)) };
    expect(await asyncCodeOf(() => stamp('x', lying))).toBe('SIGNATURE_MALFORMED');
  });

  it('a key that passed once is still refused when a different, unfit key comes with the same public key', async () => {
    const key = await generateSessionKey();
    await stamp('warm', key);
    expect(await asyncCodeOf(() => stamp('x', { privateKey: key.publicKey, publicKeyHex: key.publicKeyHex }))).toBe('INVALID_ARGUMENT');
  });

  it('a failure is a rejection, never a synchronous throw', async () => {
    const calls = [stamp(1 as unknown as string, {} as Signer), stamp('x', null as unknown as Signer), stamp('x', { privateKey: {} as CryptoKey, publicKeyHex: 'x' })];
    for (const call of calls) expect(call).toBeInstanceOf(Promise);
    const results = await Promise.allSettled(calls);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'fulfilled'))).toEqual(['INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
  });

  it('a public key changed between stamps is validated again', async () => {
    const key = await generateSessionKey();
    await stamp('warm', key);
    expect(await asyncCodeOf(() => stamp('x', { privateKey: key.privateKey, publicKeyHex: 'zz' }))).toBe('INVALID_ARGUMENT');
    expectValidStamp(await stamp('again', key), key, 'again');
  });

  it('importing the stamp module constructs nothing (no TextEncoder, no buffers at import time)', async () => {
    vi.stubGlobal(
      'TextEncoder',
      class {
        constructor() {
          throw new Error('TextEncoder constructed at import');
        }
      },
    );
    vi.resetModules();
    const fresh = await import('../../src/crypto/stamp.js');
    expect(typeof fresh.stamp).toBe('function');
    vi.unstubAllGlobals();
    const key = await generateSessionKey();
    const header = await fresh.stamp('after import', key);
    expect(utf8Decode(base64urlDecode(header)).startsWith(`{"publicKey":"${key.publicKeyHex}"`)).toBe(true);
  });
});
