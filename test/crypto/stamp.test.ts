import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomInt } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import {
  SIGNATURE_SCHEME,
  base64urlDecode,
  base64urlEncode,
  bytesToHex,
  generateRecipientKey,
  generateSessionKey,
  hexToBytes,
  parseStamp,
  signerFromKey,
  stamp,
  utf8Decode,
  utf8Encode,
  verifySignature,
  type Signer,
} from '../../src/crypto/index.js';
import { asyncCodeOf, codeOf, hex, nodeVerifies, vectors } from './helpers.js';

const v = vectors.stamp;
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** RFC 6979 signer over the vector's private key (noble; node and WebCrypto only sign randomised). */
const deterministicSigner: Signer = {
  publicKeyHex: v.publicKeyCompressed,
  async sign(data) {
    return p256.sign(data, hex(v.privateKey), { lowS: false, format: 'der' });
  },
};

function randomPayload(i: number): string {
  if (i === 0) return '';
  if (i === 1) return 'héllo – 日本語 🌍 \u0000 "quoted" \\ \n';
  if (i === 2) return 'x'.repeat(1024 * 1024);
  if (i === 3) return ' {"a": 1} '; // surrounding spaces must not be trimmed
  const length = randomInt(0, 300);
  let s = '';
  for (let j = 0; j < length; j++) {
    const pick = randomInt(0, 4);
    if (pick === 0) s += String.fromCharCode(randomInt(0x20, 0x7f));
    else if (pick === 1) s += String.fromCharCode(randomInt(0xa0, 0xd7ff));
    else if (pick === 2) s += String.fromCodePoint(randomInt(0x10000, 0x10ffff));
    else s += String.fromCharCode(randomInt(0, 0x20));
  }
  return s;
}

describe('stamp vector', () => {
  it('the vector signature verifies (WebCrypto, node:crypto, compressed and uncompressed key)', async () => {
    const data = utf8Encode(v.payloadToSign);
    const der = hex(v.derSignature);
    expect(await verifySignature(v.publicKeyCompressed, der, data)).toBe(true);
    expect(await verifySignature(hex(v.publicKeyUncompressed), der, data)).toBe(true);
    expect(nodeVerifies(v.publicKeyCompressed, data, der)).toBe(true);
  });
  it('the vector signature is high-S and its low-S twin verifies too (no normalisation either way)', async () => {
    const rs = p256.Signature.fromBytes(hex(v.derSignature), 'der');
    expect(rs.s > N / 2n).toBe(true);
    const lowS = new p256.Signature(rs.r, N - rs.s).toBytes('der');
    expect(await verifySignature(v.publicKeyCompressed, lowS, utf8Encode(v.payloadToSign))).toBe(true);
  });
  it('reproduces headerValue byte for byte with a deterministic signer', async () => {
    expect(bytesToHex(await deterministicSigner.sign(utf8Encode(v.payloadToSign)))).toBe(v.derSignature);
    const header = await stamp(v.payloadToSign, deterministicSigner);
    expect(header).toBe(v.headerValue);
    expect(utf8Decode(base64urlDecode(header))).toBe(v.stampJson);
    expect(parseStamp(header)).toEqual({ publicKey: v.publicKeyCompressed, scheme: SIGNATURE_SCHEME, signature: v.derSignature });
  });
  it('compresses an uncompressed signer public key for the stamp', async () => {
    const header = await stamp(v.payloadToSign, { ...deterministicSigner, publicKeyHex: v.publicKeyUncompressed.toUpperCase() });
    expect(header).toBe(v.headerValue);
  });
});

describe('stamps made by the library', () => {
  it('1,000 random payloads (empty, non-ASCII, 1 MB included) verify with node:crypto', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => generateSessionKey()));
    for (let i = 0; i < 1000; i++) {
      const payload = randomPayload(i);
      const key = keys[i % keys.length]!;
      const header = await stamp(payload, key);
      const parsed = parseStamp(header);
      expect(parsed.publicKey).toBe(key.publicKeyHex);
      expect(Object.keys(JSON.parse(utf8Decode(base64urlDecode(header))))).toEqual(['publicKey', 'scheme', 'signature']);
      const ok = nodeVerifies(parsed.publicKey, utf8Encode(payload), hexToBytes(parsed.signature));
      if (!ok) throw new Error(`node:crypto rejected the stamp of payload #${i}`);
    }
  });
  it('signs the exact bytes: a different payload does not verify', async () => {
    const key = await generateSessionKey();
    const { signature } = parseStamp(await stamp('{"a":1}', key));
    expect(await verifySignature(key.publicKeyHex, hexToBytes(signature), utf8Encode('{"a": 1}'))).toBe(false);
    expect(await verifySignature(key.publicKeyHex, hexToBytes(signature), utf8Encode('{"a":1}'))).toBe(true);
  });
  it('signerFromKey produces minimal DER that verifies', async () => {
    const key = await generateSessionKey();
    const signer = signerFromKey(key);
    expect(signer.publicKeyHex).toBe(key.publicKeyHex);
    const der = await signer.sign(new Uint8Array([1, 2, 3]));
    expect(nodeVerifies(key.publicKeyHex, new Uint8Array([1, 2, 3]), der)).toBe(true);
  });
});

describe('verifySignature', () => {
  const data = utf8Encode(v.payloadToSign);
  it('returns false for a wrong key or tampered data', async () => {
    const other = await generateSessionKey();
    expect(await verifySignature(other.publicKeyHex, hex(v.derSignature), data)).toBe(false);
    expect(await verifySignature(v.publicKeyCompressed, hex(v.derSignature), utf8Encode('hello from TKHQ?'))).toBe(false);
  });
  it('throws SIGNATURE_MALFORMED for non-DER and INVALID_POINT for a bad key', async () => {
    expect(await asyncCodeOf(() => verifySignature(v.publicKeyCompressed, hex(v.derSignature + '00'), data))).toBe('SIGNATURE_MALFORMED');
    expect(await asyncCodeOf(() => verifySignature(vectors.invalidPoints[0]!.hex, hex(v.derSignature), data))).toBe('INVALID_POINT');
    expect(await asyncCodeOf(() => verifySignature(v.publicKeyCompressed, hex(v.derSignature), 'x' as unknown as Uint8Array))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('parseStamp rejections', () => {
  const json = (o: unknown) => base64urlEncode(utf8Encode(JSON.stringify(o)));
  const good = { publicKey: v.publicKeyCompressed, scheme: SIGNATURE_SCHEME, signature: v.derSignature };
  it('accepts hex of either case and returns it as sent', () => {
    const upper = { ...good, signature: v.derSignature.toUpperCase() };
    expect(parseStamp(json(upper))).toEqual(upper);
  });
  it.each([
    ['empty', ''],
    ['the sandbox magic value', 'sandbox-valid-signature'],
    ['padding', v.headerValue + '='],
    ['standard base64 alphabet', Buffer.from(v.stampJson).toString('base64')],
    ['not JSON', base64urlEncode(utf8Encode('publicKey=02…'))],
    ['invalid UTF-8', base64urlEncode(new Uint8Array([0xff, 0xfe]))],
    ['a JSON array', json([good.publicKey, good.scheme, good.signature])],
    ['a JSON string', json('x')],
    ['null', json(null)],
    ['missing signature', json({ publicKey: good.publicKey, scheme: good.scheme })],
    ['an extra field', json({ ...good, extra: 1 })],
    ['a numeric field', json({ ...good, signature: 1 })],
    ['another scheme', json({ ...good, scheme: 'SIGNATURE_SCHEME_TK_API_ED25519' })],
    ['an uncompressed publicKey', json({ ...good, publicKey: v.publicKeyUncompressed })],
    ['an off-curve publicKey', json({ ...good, publicKey: '02' + 'ff'.repeat(32) })],
    ['a signature that is not hex', json({ ...good, signature: 'zz' })],
    ['a signature that is P1363, not DER', json({ ...good, signature: 'aa'.repeat(64) })],
    ['a non-minimal DER signature', json({ ...good, signature: '3044022000' + '11'.repeat(31) + '0220' + '22'.repeat(32) })],
  ])('%s → SIGNATURE_MALFORMED', (_why, header) => {
    expect(codeOf(() => parseStamp(header))).toBe('SIGNATURE_MALFORMED');
  });
  it('a non-string → SIGNATURE_MALFORMED', () => {
    expect(codeOf(() => parseStamp(undefined as unknown as string))).toBe('SIGNATURE_MALFORMED');
  });
});

describe('stamp rejections', () => {
  afterEach(() => vi.unstubAllGlobals());
  it('payload that is not a string → INVALID_ARGUMENT', async () => {
    const key = await generateSessionKey();
    expect(await asyncCodeOf(() => stamp({ a: 1 } as unknown as string, key))).toBe('INVALID_ARGUMENT');
  });
  it('an ECDH key, a public key or a non-key → INVALID_ARGUMENT', async () => {
    const ecdh = await generateRecipientKey();
    const ecdsa = await generateSessionKey();
    expect(await asyncCodeOf(() => stamp('x', ecdh))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => stamp('x', { privateKey: ecdsa.publicKey, publicKeyHex: ecdsa.publicKeyHex }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => stamp('x', null as unknown as Signer))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => signerFromKey({ privateKey: ecdsa.privateKey, publicKeyHex: 3 as unknown as string }))).toBe('INVALID_ARGUMENT');
  });
  it('a signer with a bad public key → INVALID_ARGUMENT', async () => {
    expect(await asyncCodeOf(() => stamp('x', { ...deterministicSigner, publicKeyHex: 'nothex' }))).toBe('INVALID_ARGUMENT');
    expect(await asyncCodeOf(() => stamp('x', { ...deterministicSigner, publicKeyHex: vectors.invalidPoints[0]!.hex }))).toBe(
      'INVALID_ARGUMENT',
    );
  });
  it('a signer returning non-DER → SIGNATURE_MALFORMED (never on the wire)', async () => {
    const p1363Signer: Signer = { publicKeyHex: v.publicKeyCompressed, sign: async () => new Uint8Array(randomBytes(64)) };
    expect(await asyncCodeOf(() => stamp('x', p1363Signer))).toBe('SIGNATURE_MALFORMED');
  });
  it('without WebCrypto → CRYPTO_UNAVAILABLE', async () => {
    const key = await generateSessionKey();
    vi.stubGlobal('crypto', undefined);
    expect(await asyncCodeOf(() => stamp('x', key))).toBe('CRYPTO_UNAVAILABLE');
    expect(await asyncCodeOf(() => generateSessionKey())).toBe('CRYPTO_UNAVAILABLE');
  });
});
