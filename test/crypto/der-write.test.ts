// writeDerFromP1363 (what derFromP1363 writes through): it must give exactly the
// bytes of derFromP1363 (which the vectors and @noble/curves pin in p256.test.ts), at any offset,
// touching nothing outside what it reports.
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, derFromP1363 } from '../../src/crypto/index.js';
import { MAX_DER_SIGNATURE_LENGTH, writeDerFromP1363 } from '../../src/crypto/p256.js';
import { codeOf, hex, vectors } from './helpers.js';

function written(rs: Uint8Array, offset = 0): Uint8Array {
  const out = new Uint8Array(offset + MAX_DER_SIGNATURE_LENGTH + 3).fill(0xee);
  const end = writeDerFromP1363(rs, out, offset);
  expect(out.subarray(0, offset).every((b) => b === 0xee)).toBe(true);
  expect(out.subarray(end).every((b) => b === 0xee)).toBe(true);
  return out.slice(offset, end);
}

describe('writeDerFromP1363', () => {
  it.each(vectors.derFromP1363)('vector $der', ({ p1363, der }) => {
    expect(bytesToHex(written(hex(p1363)))).toBe(der);
    expect(bytesToHex(written(hex(p1363), 5))).toBe(der);
  });

  it('20,000 random r‖s (leading zeros, high bits, zero and all-ff scalars) agree with derFromP1363; valid ones with @noble/curves', () => {
    const edge = [new Uint8Array(64), new Uint8Array(64).fill(0xff), Uint8Array.from({ length: 64 }, (_, i) => (i === 31 || i === 63 ? 1 : 0))];
    for (let i = 0; i < 20_000; i++) {
      const rs = i < edge.length ? edge[i]! : new Uint8Array(randomBytes(64));
      if (i >= edge.length) {
        if (i % 3 === 0) rs.fill(0, 0, 1 + (i % 7));
        if (i % 5 === 0) rs.fill(0, 32, 33 + (i % 4));
        if (i % 7 === 0) rs[32]! |= 0x80;
      }
      const der = written(rs, i % 4);
      expect(der.length).toBeLessThanOrEqual(MAX_DER_SIGNATURE_LENGTH);
      const reference = derFromP1363(rs);
      if (bytesToHex(der) !== bytesToHex(reference)) throw new Error(`r‖s ${bytesToHex(rs)}: ${bytesToHex(der)} ≠ ${bytesToHex(reference)}`);
      if (i % 10 === 0 && rs[0]! < 0x80 && rs.subarray(0, 32).some((b) => b) && rs.subarray(32).some((b) => b) && rs[32]! < 0xff) {
        expect(bytesToHex(der)).toBe(bytesToHex(p256.Signature.fromBytes(rs, 'compact').toBytes('der')));
      }
    }
  });

  it('derFromP1363 returns an array of exactly the DER length (its own buffer)', () => {
    const der = derFromP1363(hex(vectors.derFromP1363[0]!.p1363));
    expect(der.byteLength).toBe(der.buffer.byteLength);
  });

  it.each([
    ['63 bytes', 63],
    ['65 bytes', 65],
    ['empty', 0],
  ])('rejects %s with SIGNATURE_MALFORMED', (_why, n) => {
    expect(codeOf(() => writeDerFromP1363(new Uint8Array(n), new Uint8Array(100), 0))).toBe('SIGNATURE_MALFORMED');
  });
  it('rejects a non-Uint8Array with SIGNATURE_MALFORMED', () => {
    expect(codeOf(() => writeDerFromP1363('ab'.repeat(64) as unknown as Uint8Array, new Uint8Array(100), 0))).toBe('SIGNATURE_MALFORMED');
  });
});
