import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import {
  bytesToHex,
  compressPublicKey,
  decompressPublicKey,
  derFromP1363,
  p1363FromDer,
  toCompressedPublicKeyHex,
  toUncompressedPublicKey,
} from '../../src/crypto/index.js';
import { codeOf, hex, vectors } from './helpers.js';

const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;

function nodeUncompressedKey(): Uint8Array {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-65));
}

describe('P-256 point vectors', () => {
  it.each(vectors.points)('compresses and decompresses $compressed', ({ uncompressed, compressed }) => {
    expect(bytesToHex(compressPublicKey(hex(uncompressed)))).toBe(compressed);
    expect(bytesToHex(decompressPublicKey(hex(compressed)))).toBe(uncompressed);
    expect(bytesToHex(toUncompressedPublicKey(compressed))).toBe(uncompressed);
    expect(bytesToHex(toUncompressedPublicKey(uncompressed.toUpperCase()))).toBe(uncompressed);
    expect(bytesToHex(toUncompressedPublicKey(hex(compressed)))).toBe(uncompressed);
    expect(toCompressedPublicKeyHex(uncompressed)).toBe(compressed);
  });
  it.each(vectors.invalidPoints)('rejects the invalid point ($why)', ({ hex: h }) => {
    expect(codeOf(() => compressPublicKey(hex(h)))).toBe('INVALID_POINT');
    expect(codeOf(() => toUncompressedPublicKey(h))).toBe('INVALID_POINT');
  });
});

describe('P-256 points against Node and noble', () => {
  it('round-trips 100 random keys (both parities) and agrees with @noble/curves', () => {
    const parities = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const raw = nodeUncompressedKey();
      const compressed = compressPublicKey(raw);
      parities.add(compressed[0]!);
      expect(compressed).toEqual(p256.Point.fromBytes(raw).toBytes(true));
      expect(decompressPublicKey(compressed)).toEqual(raw);
    }
    expect(parities).toEqual(new Set([2, 3]));
  });
});

describe('P-256 point rejections', () => {
  const [good] = vectors.points;
  const u = hex(good!.uncompressed);
  const c = hex(good!.compressed);
  it.each([
    ['64 bytes', u.subarray(0, 64)],
    ['66 bytes', new Uint8Array([...u, 0])],
    ['empty', new Uint8Array(0)],
    ['prefix 02 on 65 bytes', new Uint8Array([2, ...u.subarray(1)])],
    ['prefix 06 (hybrid) on 65 bytes', new Uint8Array([6, ...u.subarray(1)])],
    ['x = p', new Uint8Array([4, ...hex(P.toString(16)), ...u.subarray(33)])],
  ])('compressPublicKey rejects %s with INVALID_POINT', (_why, bytes) => {
    expect(codeOf(() => compressPublicKey(bytes))).toBe('INVALID_POINT');
  });
  it.each([
    ['32 bytes', c.subarray(0, 32)],
    ['34 bytes', new Uint8Array([...c, 0])],
    ['prefix 04 on 33 bytes', new Uint8Array([4, ...c.subarray(1)])],
    ['prefix 00', new Uint8Array([0, ...c.subarray(1)])],
    ['prefix 05', new Uint8Array([5, ...c.subarray(1)])],
    ['x = p', new Uint8Array([2, ...hex(P.toString(16))])],
    ['x ≥ p (all ff)', new Uint8Array([3, ...new Uint8Array(32).fill(0xff)])],
  ])('decompressPublicKey rejects %s with INVALID_POINT', (_why, bytes) => {
    expect(codeOf(() => decompressPublicKey(bytes))).toBe('INVALID_POINT');
  });
  it('decompressPublicKey rejects an x with no point on the curve', () => {
    // Find small x values that noble also rejects, and check we agree on every x tried.
    let rejected = 0;
    for (let x = 1; x < 40; x++) {
      const bytes = new Uint8Array(33);
      bytes[0] = 2;
      bytes[32] = x;
      let nobleOk = true;
      try {
        p256.Point.fromBytes(bytes);
      } catch {
        nobleOk = false;
      }
      if (nobleOk) expect(decompressPublicKey(bytes)).toEqual(p256.Point.fromBytes(bytes).toBytes(false));
      else {
        rejected++;
        expect(codeOf(() => decompressPublicKey(bytes))).toBe('INVALID_POINT');
      }
    }
    expect(rejected).toBeGreaterThan(5);
  });
  it('toUncompressedPublicKey: bad hex → ENCODING_INVALID, bad length → INVALID_POINT, non-bytes → INVALID_ARGUMENT', () => {
    expect(codeOf(() => toUncompressedPublicKey('02zz'))).toBe('ENCODING_INVALID');
    expect(codeOf(() => toUncompressedPublicKey('0'))).toBe('ENCODING_INVALID');
    expect(codeOf(() => toUncompressedPublicKey('02' + '00'.repeat(20)))).toBe('INVALID_POINT');
    expect(codeOf(() => toUncompressedPublicKey([4, 1, 2] as unknown as Uint8Array))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => compressPublicKey('04' as unknown as Uint8Array))).toBe('INVALID_ARGUMENT');
  });
  it('returns a copy, never the caller’s buffer', () => {
    const copy = toUncompressedPublicKey(u);
    copy[5] = 0;
    expect(u[5]).not.toBe(0);
  });
});

describe('DER ⇄ P1363', () => {
  it.each(vectors.derFromP1363)('vector $der', ({ p1363, der }) => {
    expect(bytesToHex(derFromP1363(hex(p1363)))).toBe(der);
    expect(bytesToHex(p1363FromDer(hex(der)))).toBe(p1363);
  });
  it('the stamp vector signature parses and re-encodes identically', () => {
    const der = hex(vectors.stamp.derSignature);
    expect(derFromP1363(p1363FromDer(der))).toEqual(der);
  });
  it('500 random r‖s (with leading zero bytes) match @noble/curves DER and round-trip', () => {
    for (let i = 0; i < 500; i++) {
      const rs = new Uint8Array(randomBytes(64));
      rs[0]! &= 0x7f; // keep r below n so noble accepts it; top bit set cases come from s and the vectors
      if (i % 3 === 0) rs.fill(0, 0, 1 + (i % 5));
      if (i % 4 === 0) rs.fill(0, 32, 33 + (i % 3));
      rs[31] ||= 1;
      rs[63] ||= 1;
      if (rs[32]! >= 0xff) rs[32] = 0xfe;
      const der = derFromP1363(rs);
      expect(der).toEqual(p256.Signature.fromBytes(rs, 'compact').toBytes('der'));
      expect(p1363FromDer(der)).toEqual(rs);
    }
  });
  it.each([
    ['63 bytes', 63],
    ['65 bytes', 65],
    ['empty', 0],
  ])('derFromP1363 rejects %s with SIGNATURE_MALFORMED', (_why, n) => {
    expect(codeOf(() => derFromP1363(new Uint8Array(n)))).toBe('SIGNATURE_MALFORMED');
  });
  const good = vectors.stamp.derSignature;
  it.each([
    ['trailing byte after the sequence', good + '00'],
    ['sequence length too long', '3047' + good.slice(4)],
    ['sequence length too short', '3045' + good.slice(4)],
    ['long-form sequence length', '308146' + good.slice(4)],
    ['wrong outer tag', '31' + good.slice(2)],
    ['wrong integer tag', '3046032100' + good.slice(10)],
    ['non-minimal r (needless 00)', '3044022000' + '11'.repeat(31) + '0220' + '22'.repeat(32)],
    ['non-minimal s (needless 00 00)', '3047022100' + 'ab'.repeat(32) + '0222' + '0000' + '22'.repeat(32)],
    ['negative r', '30440220' + '81'.repeat(32) + '0220' + '22'.repeat(32)],
    ['zero r', '3025020100' + '0220' + '22'.repeat(32)],
    ['empty r', '30240200' + '0220' + '22'.repeat(32)],
    ['r longer than 32 bytes', '30470223' + '11'.repeat(35) + '0220' + '22'.repeat(32)],
    ['r = 00 ‖ 33 bytes', '3046022200' + 'ff'.repeat(33) + '0220' + '22'.repeat(32)],
    ['truncated s', good.slice(0, -2)],
    ['missing s', '3023022100' + 'ab'.repeat(32)],
    ['extra integer inside', '304902210' + good.slice(9) + '020101'],
    ['empty', ''],
    ['a bare integer', '020101'],
  ])('p1363FromDer rejects %s with SIGNATURE_MALFORMED', (_why, derHex) => {
    expect(codeOf(() => p1363FromDer(hex(derHex)))).toBe('SIGNATURE_MALFORMED');
  });
  it('p1363FromDer rejects a non-Uint8Array with SIGNATURE_MALFORMED', () => {
    expect(codeOf(() => p1363FromDer('3006020101020101' as unknown as Uint8Array))).toBe('SIGNATURE_MALFORMED');
  });
});
