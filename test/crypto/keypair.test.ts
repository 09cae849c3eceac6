import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  compressPublicKey,
  generateRecipientKey,
  generateSessionKey,
  sessionKeyFromPair,
  type SignedBundle,
} from '../../src/crypto/index.js';
import { verifySignedBundle } from '../../src/crypto/enclave.js';
import { asyncCodeOf } from './helpers.js';

describe('generated keys (Node WebCrypto)', () => {
  it('session keys: ECDSA P-256, private non-extractable with usages [sign], hex forms consistent', async () => {
    const key = await generateSessionKey();
    expect(key.privateKey.extractable).toBe(false);
    expect(key.privateKey.usages).toEqual(['sign']);
    expect(key.privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    await expect(crypto.subtle.exportKey('pkcs8', key.privateKey)).rejects.toThrow();
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', key.publicKey));
    expect(key.publicKeyUncompressedHex).toBe(bytesToHex(raw));
    expect(key.publicKeyHex).toBe(bytesToHex(compressPublicKey(raw)));
    expect(key.publicKeyHex).toMatch(/^0[23][0-9a-f]{64}$/);
  });
  it('recipient keys: ECDH P-256, private non-extractable with usages [deriveBits]', async () => {
    const key = await generateRecipientKey();
    expect(key.privateKey.extractable).toBe(false);
    expect(key.privateKey.usages).toEqual(['deriveBits']);
    expect(key.privateKey.algorithm).toMatchObject({ name: 'ECDH', namedCurve: 'P-256' });
    expect(key.publicKeyUncompressedHex).toMatch(/^04[0-9a-f]{128}$/);
  });
});

describe('sessionKeyFromPair', () => {
  it('computes the hex forms of any P-256 pair', async () => {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
    const key = await sessionKeyFromPair(pair);
    const x = Buffer.from(jwk.x!, 'base64url').toString('hex');
    const y = Buffer.from(jwk.y!, 'base64url').toString('hex');
    expect(key.publicKeyUncompressedHex).toBe('04' + x + y);
    expect(key.publicKeyHex).toBe((BigInt('0x' + y) & 1n ? '03' : '02') + x);
  });
  it('rejects what is not a P-256 ECDSA/ECDH pair with INVALID_ARGUMENT', async () => {
    const p384 = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
    const ecdsa = await generateSessionKey();
    const ecdh = await generateRecipientKey();
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    for (const bad of [
      p384,
      { privateKey: ecdsa.privateKey, publicKey: ecdh.publicKey },
      { privateKey: ecdsa.publicKey, publicKey: ecdsa.publicKey },
      { privateKey: hmac, publicKey: hmac },
      null,
      {},
    ]) {
      expect(await asyncCodeOf(() => sessionKeyFromPair(bad as CryptoKeyPair))).toBe('INVALID_ARGUMENT');
    }
  });
});

it('verifySignedBundle rejects a value that is not a parsed bundle with INVALID_ARGUMENT', async () => {
  for (const bad of [null, {}, { data: 'aa', dataSignature: 'bb', enclaveQuorumPublic: '', version: 'v1.0.0' }]) {
    expect(await asyncCodeOf(() => verifySignedBundle(bad as unknown as SignedBundle, 'skip-verification'))).toBe('INVALID_ARGUMENT');
  }
});
