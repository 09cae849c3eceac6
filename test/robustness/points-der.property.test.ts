// Property tests of the byte-level decoders: P-256 points (decompress, compress, either form from
// hex), ECDSA DER ⇄ P1363, and the hex / base64url / UTF-8 codecs. 10,000 mutated and arbitrary
// inputs each: only WalletErrors with the documented code, and whatever is accepted is accepted by
// an independent implementation too (@noble/curves, the sandbox's DER check) and round-trips.
import fc from 'fast-check';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import {
  base64urlDecode,
  base64urlEncode,
  bytesToHex,
  compressPublicKey,
  decompressPublicKey,
  derFromP1363,
  hexToBytes,
  p1363FromDer,
  toUncompressedPublicKey,
  utf8Decode,
} from '../../src/crypto/index.js';
import { isStrictDerSignature } from '../../src/sandbox/crypto/p256.js';
import { arbitraryBytes, arbitraryText, mutateBytes, mutateHex, mutateString } from './helpers/mutate.js';
import { PROPERTY_TIMEOUT_MS, RUNS, Tally, outcome, report, vectors } from './helpers/outcome.js';

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const bytes = (hex: string): Uint8Array => Buffer.from(hex, 'hex');
const compressedSeeds = [...vectors.points.map((p) => p.compressed), vectors.stamp.publicKeyCompressed].map(bytes);
const uncompressedSeeds = [...vectors.points.map((p) => p.uncompressed), vectors.stamp.publicKeyUncompressed].map(bytes);

/** Whether @noble/curves accepts the SEC1 bytes as a P-256 point (the independent oracle). */
function nobleAccepts(b: Uint8Array): boolean {
  try {
    p256.Point.fromBytes(b).assertValidity();
    return true;
  } catch {
    return false;
  }
}

/** Valid points of random keys, in one form. */
function randomPoints(compressed: boolean): fc.Arbitrary<Uint8Array> {
  return fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .filter((d) => p256.utils.isValidSecretKey(d))
    .map((d) => p256.getPublicKey(d, compressed));
}

function corpus(seeds: Uint8Array[]): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    { weight: 7, arbitrary: fc.constantFrom(...seeds).chain(mutateBytes) },
    { weight: 1, arbitrary: randomPoints(seeds[0]!.length === 33) },
    { weight: 1, arbitrary: arbitraryBytes },
    // Right length, random content: mostly off-curve x (no square root) and y.
    { weight: 1, arbitrary: fc.constantFrom(...seeds).chain((s) => fc.uint8Array({ minLength: s.length, maxLength: s.length }).map((r) => Uint8Array.of(s[0]!, ...r.subarray(1)))) },
  );
}

describe('P-256 points', () => {
  it(`decompressPublicKey: ${RUNS} inputs → a valid point that compresses back, or INVALID_POINT`, () => {
    const tally = new Tally();
    fc.assert(
      fc.property(fc.oneof({ weight: 20, arbitrary: corpus(compressedSeeds) }, { weight: 1, arbitrary: fc.anything() }), (input) => {
        const result = outcome(() => decompressPublicKey(input as Uint8Array), ['INVALID_POINT', 'INVALID_ARGUMENT']);
        tally.add(result);
        if (!(input instanceof Uint8Array)) {
          expect(result.ok).toBe(false);
          return;
        }
        expect(result.ok).toBe(nobleAccepts(input) && input.length === 33);
        if (result.ok) {
          expect(result.value.length).toBe(65);
          expect(bytesToHex(compressPublicKey(result.value))).toBe(bytesToHex(input));
        }
      }),
      { numRuns: RUNS },
    );
    report('decompressPublicKey', tally);
    expect(tally.has('INVALID_POINT')).toBe(true);
    expect(tally.has('ok')).toBe(true);
  }, PROPERTY_TIMEOUT_MS);

  it(`compressPublicKey: ${RUNS} inputs → 33 bytes for an on-curve point, else INVALID_POINT`, () => {
    const tally = new Tally();
    fc.assert(
      fc.property(corpus(uncompressedSeeds), (input) => {
        const result = outcome(() => compressPublicKey(input), ['INVALID_POINT']);
        tally.add(result);
        expect(result.ok).toBe(input.length === 65 && nobleAccepts(input));
        if (result.ok) expect(bytesToHex(decompressPublicKey(result.value))).toBe(bytesToHex(input));
      }),
      { numRuns: RUNS },
    );
    report('compressPublicKey', tally);
    expect(tally.has('ok')).toBe(true);
  }, PROPERTY_TIMEOUT_MS);

  it(`toUncompressedPublicKey: ${RUNS} hex strings → the point, ENCODING_INVALID or INVALID_POINT`, () => {
    const tally = new Tally();
    const seeds = [...compressedSeeds, ...uncompressedSeeds].map((b) => bytesToHex(b));
    const input = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...seeds).chain(mutateHex) },
      { weight: 4, arbitrary: fc.constantFrom(...seeds).chain(mutateString) },
      { weight: 1, arbitrary: fc.constantFrom(...seeds).map((s) => s.toUpperCase()) },
      { weight: 1, arbitrary: arbitraryText },
    );
    fc.assert(
      fc.property(input, (hex) => {
        const result = outcome(() => toUncompressedPublicKey(hex), ['ENCODING_INVALID', 'INVALID_POINT']);
        tally.add(result);
        if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
          expect(result.ok ? 'ok' : result.code).toBe('ENCODING_INVALID');
          return;
        }
        const raw = bytes(hex);
        expect(result.ok).toBe((raw.length === 33 || raw.length === 65) && nobleAccepts(raw));
        if (result.ok) expect(bytesToHex(result.value)).toBe(p256.Point.fromBytes(raw).toHex(false));
      }),
      { numRuns: RUNS },
    );
    report('toUncompressedPublicKey', tally);
    expect(tally.has('ok') && tally.has('ENCODING_INVALID') && tally.has('INVALID_POINT')).toBe(true);
  }, PROPERTY_TIMEOUT_MS);
});

describe('ECDSA signature encodings', () => {
  const derSeeds = [
    ...vectors.derFromP1363.map((v) => v.der),
    vectors.stamp.derSignature,
    (JSON.parse(vectors.exportBundle.bundle) as { dataSignature: string }).dataSignature,
  ].map(bytes);

  it(`p1363FromDer: ${RUNS} inputs → strict DER only (re-encodes to the same bytes), else SIGNATURE_MALFORMED`, () => {
    const tally = new Tally();
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...derSeeds).chain(mutateBytes) }, { weight: 1, arbitrary: arbitraryBytes }), (der) => {
        const result = outcome(() => p1363FromDer(der), ['SIGNATURE_MALFORMED']);
        tally.add(result);
        if (result.ok) {
          expect(result.value.length).toBe(64);
          // Strict and minimal: the only encoding of that r‖s.
          expect(bytesToHex(derFromP1363(result.value))).toBe(bytesToHex(der));
          // The sandbox's independent check also bounds r, s below n: the library defers that to verification.
          const r = BigInt(`0x${bytesToHex(result.value.subarray(0, 32))}`);
          const s = BigInt(`0x${bytesToHex(result.value.subarray(32))}`);
          expect(isStrictDerSignature(der)).toBe(r < N && s < N);
        } else {
          expect(isStrictDerSignature(der)).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
    report('p1363FromDer', tally);
    expect(tally.has('ok') && tally.has('SIGNATURE_MALFORMED')).toBe(true);
  }, PROPERTY_TIMEOUT_MS);

  it(`derFromP1363: ${RUNS} inputs → minimal DER for 64 bytes, else SIGNATURE_MALFORMED`, () => {
    const tally = new Tally();
    const p1363Seeds = vectors.derFromP1363.map((v) => bytes(v.p1363));
    const input = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...p1363Seeds).chain(mutateBytes) },
      { weight: 4, arbitrary: fc.uint8Array({ minLength: 64, maxLength: 64 }) },
      // Scalars with leading zero bytes and top bits set: the minimal-encoding edge cases.
      { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 32 }), fc.nat({ max: 32 }), fc.uint8Array({ minLength: 64, maxLength: 64 })).map(([zr, zs, b]) => {
        const out = new Uint8Array(b);
        out.fill(0, 0, zr);
        out.fill(0, 32, 32 + zs);
        return out;
      }) },
      { weight: 1, arbitrary: arbitraryBytes },
    );
    fc.assert(
      fc.property(input, (rs) => {
        const result = outcome(() => derFromP1363(rs), ['SIGNATURE_MALFORMED']);
        tally.add(result);
        expect(result.ok).toBe(rs.length === 64);
        if (!result.ok) return;
        expect(result.value.length).toBeLessThanOrEqual(72);
        const zero = (half: Uint8Array): boolean => half.every((b) => b === 0);
        const back = outcome(() => p1363FromDer(result.value), ['SIGNATURE_MALFORMED']);
        if (zero(rs.subarray(0, 32)) || zero(rs.subarray(32))) expect(back.ok).toBe(false);
        else expect(back.ok && bytesToHex(back.value)).toBe(bytesToHex(rs));
      }),
      { numRuns: RUNS },
    );
    report('derFromP1363', tally);
  }, PROPERTY_TIMEOUT_MS);
});

/** The codecs are under every parser above; on their own they get fewer inputs. */
const CODEC_RUNS = Math.min(RUNS, 2_000);

describe('codecs', () => {
  it(`hexToBytes / base64urlDecode / utf8Decode: ${CODEC_RUNS} inputs each → canonical round trip, else ENCODING_INVALID`, () => {
    const hexTally = new Tally();
    const b64Tally = new Tally();
    const utfTally = new Tally();
    const hexSeed = vectors.stamp.derSignature;
    const b64Seed = vectors.stamp.headerValue;
    const input = fc.oneof(
      { weight: 3, arbitrary: mutateString(hexSeed) },
      { weight: 3, arbitrary: mutateString(b64Seed) },
      { weight: 2, arbitrary: arbitraryText },
      { weight: 1, arbitrary: fc.constant(b64Seed) },
      { weight: 1, arbitrary: fc.anything().map((v) => v as string) },
    );
    fc.assert(
      fc.property(input, arbitraryBytes, fc.constantFrom(hexSeed, b64Seed).chain((s) => mutateBytes(Buffer.from(s))), (text, raw, mutatedUtf8) => {
        const hex = outcome(() => hexToBytes(text), ['ENCODING_INVALID']);
        hexTally.add(hex);
        if (hex.ok) expect(bytesToHex(hex.value)).toBe(text.toLowerCase());
        const b64 = outcome(() => base64urlDecode(text), ['ENCODING_INVALID']);
        b64Tally.add(b64);
        if (b64.ok) expect(base64urlEncode(b64.value)).toBe(text);
        for (const b of [raw, mutatedUtf8]) {
          const utf = outcome(() => utf8Decode(b), ['ENCODING_INVALID']);
          utfTally.add(utf);
          if (utf.ok) expect(Buffer.from(utf.value, 'utf8').equals(Buffer.from(b))).toBe(true);
        }
      }),
      { numRuns: CODEC_RUNS },
    );
    report('hexToBytes', hexTally);
    report('base64urlDecode', b64Tally);
    report('utf8Decode', utfTally);
    for (const t of [hexTally, b64Tally, utfTally]) expect(t.has('ok') && t.has('ENCODING_INVALID')).toBe(true);
  }, PROPERTY_TIMEOUT_MS);
});
