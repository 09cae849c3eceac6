/**
 * Generators of bad input for the property tests: valid vectors mutated by byte (or character)
 * edits — bit flips, overwrites, truncation, extension, insertion, deletion, duplication — plus
 * arbitrary strings and bytes. Every mutated value differs from its seed.
 */
import fc from 'fast-check';

/** One edit of a sequence of code units (bytes, or UTF-16 code units for strings). */
type Edit = (units: number[]) => number[];

/** Code units worth inserting into text formats: JSON and encoding punctuation, odd characters. */
const NASTY_CHARS = [...'"\\{}[],:0fFgxyz=+/-_.\' \n\t\r'].map((c) => c.charCodeAt(0)).concat([0x00, 0x7f, 0xe9, 0x2028, 0xd83d, 0xdc00, 0xfeff]);

function editArbitrary(unitBits: number, filler: fc.Arbitrary<number[]>): fc.Arbitrary<Edit> {
  const position = fc.nat({ max: 1 << 16 });
  const at = (units: number[], p: number, extra = 0): number => p % (units.length + extra || 1);
  return fc.oneof(
    // Flip one bit.
    { weight: 4, arbitrary: fc.tuple(position, fc.nat({ max: unitBits - 1 })).map(([p, bit]): Edit => (u) => {
      if (u.length === 0) return [1 << bit];
      const out = u.slice();
      const i = at(u, p);
      out[i] = (out[i]! ^ (1 << bit)) >>> 0;
      return out;
    }) },
    // Overwrite one unit.
    { weight: 3, arbitrary: fc.tuple(position, filler.filter((f) => f.length > 0)).map(([p, f]): Edit => (u) => {
      if (u.length === 0) return f.slice(0, 1);
      const out = u.slice();
      out[at(u, p)] = f[0]!;
      return out;
    }) },
    // Truncate (keep a prefix), or drop a prefix.
    { weight: 3, arbitrary: position.map((p): Edit => (u) => u.slice(0, at(u, p))) },
    { weight: 1, arbitrary: position.map((p): Edit => (u) => u.slice(at(u, p) + 1)) },
    // Extend at the end, insert in the middle.
    { weight: 2, arbitrary: filler.map((f): Edit => (u) => u.concat(f)) },
    { weight: 2, arbitrary: fc.tuple(position, filler).map(([p, f]): Edit => (u) => {
      const i = at(u, p, 1);
      return [...u.slice(0, i), ...f, ...u.slice(i)];
    }) },
    // Delete a run.
    { weight: 2, arbitrary: fc.tuple(position, fc.integer({ min: 1, max: 16 })).map(([p, n]): Edit => (u) => {
      const i = at(u, p);
      return [...u.slice(0, i), ...u.slice(i + n)];
    }) },
    // Duplicate a run.
    { weight: 1, arbitrary: fc.tuple(position, fc.integer({ min: 1, max: 16 })).map(([p, n]): Edit => (u) => {
      const i = at(u, p);
      return [...u.slice(0, i + n), ...u.slice(i, i + n), ...u.slice(i + n)];
    }) },
  );
}

const byteFiller = fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 24 });
const charFiller = fc.oneof(
  fc.array(fc.constantFrom(...NASTY_CHARS), { minLength: 1, maxLength: 8 }),
  fc.string({ minLength: 1, maxLength: 16 }).map((s) => [...s].map((c) => c.charCodeAt(0))),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }).map((s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i))),
);

const byteEdits = fc.array(editArbitrary(8, byteFiller), { minLength: 1, maxLength: 3 });
const charEdits = fc.array(editArbitrary(16, charFiller), { minLength: 1, maxLength: 3 });

function equalUnits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `seed` after 1–3 byte edits; never equal to `seed`. */
export function mutateBytes(seed: Uint8Array): fc.Arbitrary<Uint8Array<ArrayBuffer>> {
  const units = Array.from(seed);
  return byteEdits
    .map((edits) => new Uint8Array(edits.reduce((u, edit) => edit(u), units).map((b) => b & 0xff)))
    .filter((out) => !equalUnits(out, seed));
}

/** `seed` after 1–3 character edits (lone surrogates and control characters included); never equal to `seed`. */
export function mutateString(seed: string): fc.Arbitrary<string> {
  const units = Array.from({ length: seed.length }, (_, i) => seed.charCodeAt(i));
  return charEdits
    .map((edits) => String.fromCharCode(...edits.reduce((u, edit) => edit(u), units).map((c) => c & 0xffff)))
    .filter((out) => out !== seed);
}

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** A hex string whose bytes are mutated: stays valid hex, so the parse goes one layer deeper. */
export function mutateHex(seedHex: string): fc.Arbitrary<string> {
  return mutateBytes(Buffer.from(seedHex, 'hex')).map(toHex);
}

/** Arbitrary text: short strings of every kind, hex-looking strings, JSON texts. */
export const arbitraryText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.stringMatching(/^[0-9a-fA-F]{0,140}$/),
  fc.json({ maxDepth: 3 }),
);

/** Arbitrary bytes, up to 200. */
export const arbitraryBytes: fc.Arbitrary<Uint8Array<ArrayBuffer>> = fc.uint8Array({ maxLength: 200 }).map((b) => new Uint8Array(b));

/**
 * A JSON object text with one field changed: the field's string value mutated (hex fields by their
 * bytes), replaced by arbitrary JSON, removed, or an extra field added.
 */
export function mutateJsonObject(seed: Record<string, unknown>, hexFields: readonly string[] = []): fc.Arbitrary<string> {
  const keys = Object.keys(seed);
  const change = fc.constantFrom(...keys).chain((key) => {
    const value = seed[key];
    const options: fc.Arbitrary<Record<string, unknown>>[] = [
      fc.jsonValue({ maxDepth: 2 }).map((v) => ({ ...seed, [key]: v })),
      fc.constant(Object.fromEntries(Object.entries(seed).filter(([k]) => k !== key))),
      fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => ({ ...seed, [k]: v })),
    ];
    if (typeof value === 'string') {
      options.push(mutateString(value).map((v) => ({ ...seed, [key]: v })));
      if (hexFields.includes(key)) options.push(mutateHex(value).map((v) => ({ ...seed, [key]: v })));
    }
    return fc.oneof(...options);
  });
  return change.map((obj) => JSON.stringify(obj)).filter((text) => text !== JSON.stringify(seed));
}
