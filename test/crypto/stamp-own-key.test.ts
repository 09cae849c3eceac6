// stamp()'s path for our own keys (signerFromKey signers and session keys): it signs with WebCrypto
// directly, encodes the payload into a reused buffer and formats the stamp from r‖s with a cached
// per-key prefix. Its output must be byte for byte what the general path (JSON.stringify → UTF-8 →
// base64url of the DER hex) gives.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomInt } from 'node:crypto';
import {
  SIGNATURE_SCHEME,
  base64urlDecode,
  base64urlEncode,
  derFromP1363,
  generateSessionKey,
  p1363FromDer,
  signerFromKey,
  stamp,
  utf8Decode,
  utf8Encode,
  type SessionKey,
  type Signer,
} from '../../src/crypto/index.js';
import { stampFromP1363 } from '../../src/crypto/stamp.js';
import { asyncCodeOf, hex, nodeVerifies, vectors } from './helpers.js';
import { ECDSA_SHA256, expectCanonicalStamp, referenceHeader } from './stamp-reference.js';

const v = vectors.stamp;
/** Checks one header: exact bytes against the reference built from its own signature, and node:crypto verifies it over `payload`. */
function expectValidStamp(header: string, key: Pick<SessionKey, 'publicKeyHex'>, payload: string): void {
  const { publicKey, der } = expectCanonicalStamp(header, key);
  if (!nodeVerifies(publicKey, utf8Encode(payload), der)) throw new Error(`node:crypto rejected the stamp of ${JSON.stringify(payload.slice(0, 40))}…`);
}

describe('stampFromP1363 (the formatting of the own-key path)', () => {
  it('reproduces the vector headerValue from the vector signature as r‖s', () => {
    const rs = p1363FromDer(hex(v.derSignature));
    expect(stampFromP1363(v.publicKeyCompressed, rs)).toBe(v.headerValue);
    // An uncompressed, upper-case key is compressed for the stamp, and the per-key prefix follows the key.
    expect(stampFromP1363(v.publicKeyUncompressed.toUpperCase(), rs)).toBe(v.headerValue);
    expect(stampFromP1363(v.publicKeyCompressed.toUpperCase(), rs)).toBe(v.headerValue);
  });
  it('the prefix is a whole number of base64 blocks (135 bytes), so it can be encoded once per key', () => {
    const prefix = `{"publicKey":"${v.publicKeyCompressed}","scheme":"${SIGNATURE_SCHEME}","signature":"`;
    expect(utf8Encode(prefix).length).toBe(135);
    expect(v.headerValue.startsWith(base64urlEncode(utf8Encode(prefix)))).toBe(true);
  });
  it('matches the general path for 2,000 random r‖s and alternating keys', async () => {
    const keys = [await generateSessionKey(), await generateSessionKey()];
    for (let i = 0; i < 2000; i++) {
      const rs = crypto.getRandomValues(new Uint8Array(64));
      if (i % 3 === 0) rs.fill(0, 0, 1 + (i % 4));
      if (i % 5 === 0) rs.fill(0, 32, 33 + (i % 3));
      if (i % 2 === 0) rs[32]! |= 0x80;
      const key = keys[i % 2]!;
      expect(stampFromP1363(key.publicKeyHex, rs)).toBe(referenceHeader(key.publicKeyHex, derFromP1363(rs)));
    }
  });
  it('rejects a bad public key or a signature that is not 64 bytes', () => {
    expect(() => stampFromP1363('nothex', new Uint8Array(64))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => stampFromP1363(v.publicKeyCompressed, new Uint8Array(63))).toThrow(expect.objectContaining({ code: 'SIGNATURE_MALFORMED' }));
  });
});

describe('stamp() with our own keys', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('a signer and the bare key give exact, verifying stamps (ASCII, non-ASCII, lone surrogates, sizes around the buffer)', async () => {
    const key = await generateSessionKey();
    const signer = signerFromKey(key);
    const payloads = [
      '',
      'a',
      '{"requestId":"Request:1"}',
      'x'.repeat(4096),
      'x'.repeat(4097), // grows the buffer
      'é'.repeat(3000), // non-ASCII longer than the buffer holds at one byte per unit: retried at 3
      'héllo – 日本語 🌍',
      'lone \ud800 high, lone \udc00 low, pair \ud83c\udf0d, trailing \ud800', // U+FFFD, as TextEncoder
      'y'.repeat(65_536), // the largest payload that uses the buffer
      'z'.repeat(65_537), // a fresh array
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

  it('the platform copies sign() input before returning (what reusing the buffer relies on)', async () => {
    const key = await generateSessionKey();
    const data = utf8Encode('the bytes that must be signed');
    const pending = crypto.subtle.sign(ECDSA_SHA256, key.privateKey, data);
    data.fill(0x41);
    const der = derFromP1363(new Uint8Array(await pending));
    expect(nodeVerifies(key.publicKeyHex, utf8Encode('the bytes that must be signed'), der)).toBe(true);
  });

  it('a signer made by signerFromKey keeps working as a plain Signer (detached sign, DER output)', async () => {
    const key = await generateSessionKey();
    const { sign, publicKeyHex } = signerFromKey(key);
    const der = await sign(new Uint8Array([1, 2, 3]));
    expect(nodeVerifies(publicKeyHex, new Uint8Array([1, 2, 3]), der)).toBe(true);
    expect(Object.keys(signerFromKey(key)).sort()).toEqual(['publicKeyHex', 'sign']);
  });

  it('a copy of our signer is a custom Signer: its output goes through the DER re-check', async () => {
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

  it('a public key changed between stamps is validated again, not served from the prefix cache', async () => {
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
