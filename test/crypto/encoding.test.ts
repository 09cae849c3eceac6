import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  base64urlDecode,
  base64urlEncode,
  bytesToHex,
  concatBytes,
  hexToBytes,
  utf8Decode,
  utf8Encode,
} from '../../src/crypto/index.js';
import { codeOf } from './helpers.js';

describe('hex', () => {
  it('round-trips and outputs lowercase', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = randomBytes(n);
      const h = bytesToHex(bytes);
      expect(h).toBe(Buffer.from(bytes).toString('hex'));
      expect(hexToBytes(h)).toEqual(new Uint8Array(bytes));
    }
  });
  it('accepts either case on input', () => {
    expect(bytesToHex(hexToBytes('00AbCdEf'))).toBe('00abcdef');
    expect(hexToBytes('')).toEqual(new Uint8Array(0));
  });
  it.each([
    ['odd length', 'abc'],
    ['non-hex character', 'zz'],
    ['0x prefix', '0x00'],
    ['space', 'ab cd'],
    ['non-ASCII digit', '\u0661\u0662'],
  ])('rejects %s with ENCODING_INVALID', (_why, input) => {
    expect(codeOf(() => hexToBytes(input))).toBe('ENCODING_INVALID');
  });
  it('rejects a non-string with ENCODING_INVALID', () => {
    expect(codeOf(() => hexToBytes(42 as unknown as string))).toBe('ENCODING_INVALID');
    expect(codeOf(() => hexToBytes(null as unknown as string))).toBe('ENCODING_INVALID');
  });
  it('names the argument in the message', () => {
    expect(() => hexToBytes('0', 'targetPublic')).toThrow(/targetPublic/);
  });
});

describe('base64url', () => {
  it('matches RFC 4648 test vectors without padding', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['f', 'Zg'],
      ['fo', 'Zm8'],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg'],
      ['fooba', 'Zm9vYmE'],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [text, encoded] of cases) {
      expect(base64urlEncode(utf8Encode(text))).toBe(encoded);
      expect(utf8Decode(base64urlDecode(encoded))).toBe(text);
    }
  });
  it('uses the URL alphabet and round-trips random bytes against Node', () => {
    expect(base64urlEncode(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    for (let n = 0; n < 100; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      const encoded = base64urlEncode(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString('base64url'));
      expect(base64urlDecode(encoded)).toEqual(bytes);
    }
  });
  it.each([
    ['padding', 'Zg=='],
    ['single padding', 'Zm8='],
    ["standard alphabet '+'", '+/+/'],
    ["standard alphabet '/'", 'ab/c'],
    ['whitespace', 'Zm9v Zg'],
    ['newline', 'Zm9v\nZg'],
    ['impossible length (1 mod 4)', 'Zm9vY'],
    ['non-zero trailing bits', 'Zh'],
    ['non-zero trailing bits (2 bytes)', 'Zm9'],
  ])('rejects %s with ENCODING_INVALID', (_why, input) => {
    expect(codeOf(() => base64urlDecode(input))).toBe('ENCODING_INVALID');
  });
  it('rejects a non-string', () => {
    expect(codeOf(() => base64urlDecode(undefined as unknown as string))).toBe('ENCODING_INVALID');
  });
});

describe('utf8', () => {
  it('round-trips non-ASCII text', () => {
    const s = 'héllo wörld – 日本語 🌍';
    expect(utf8Decode(utf8Encode(s))).toBe(s);
    expect(utf8Encode('€')).toEqual(new Uint8Array([0xe2, 0x82, 0xac]));
  });
  it('keeps a leading byte-order mark', () => {
    expect(utf8Decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('\ufeffa');
  });
  it.each([
    ['invalid byte', [0xff]],
    ['overlong encoding', [0xc0, 0x80]],
    ['encoded surrogate', [0xed, 0xa0, 0x80]],
    ['truncated sequence', [0xe2, 0x82]],
  ])('decoding rejects %s with ENCODING_INVALID', (_why, bytes) => {
    expect(codeOf(() => utf8Decode(new Uint8Array(bytes)))).toBe('ENCODING_INVALID');
  });
  it('encoding rejects a non-string with INVALID_ARGUMENT', () => {
    expect(codeOf(() => utf8Encode(1 as unknown as string))).toBe('INVALID_ARGUMENT');
  });
});

it('concatBytes joins in order', () => {
  expect(concatBytes(new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2, 3]))).toEqual(new Uint8Array([1, 2, 3]));
  expect(concatBytes()).toEqual(new Uint8Array(0));
});
