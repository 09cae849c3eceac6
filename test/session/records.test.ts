// records.ts on its own: parseStoredSession accepts exactly the well-formed stored records (and
// copies only their known fields), parseAuthSession accepts exactly the well-formed answers,
// lifetimeMs falls back to 15 minutes when createdAt is not before expiresAt. Oracle: a record is
// built field by field from a valid or an invalid choice; it must be accepted iff every choice is valid.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expiresAtMs, isoOrUndefined, lifetimeMs, parseAuthSession, parseStoredSession, type Session } from '../../src/session/records.js';
import { CREDENTIAL_TYPES } from '../../src/types.js';
import { isWalletError } from '../../src/errors.js';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const validKey = fc.tuple(fc.constantFrom('02', '03'), hex64).map(([p, h]) => p + h);
const badKey = fc.oneof(
  hex64.map((h) => `04${h}`),
  validKey.map((k) => `x${k}`), // junk before (the ^ anchor)
  validKey.map((k) => `${k}0`), // junk after (the $ anchor)
  validKey.map((k) => k.toUpperCase()),
  validKey.map((k) => k.slice(0, -1)),
  validKey.map((k) => [k] as unknown), // not a string, though String() of it would match
  fc.constant(12 as unknown),
  fc.constant(undefined as unknown),
);
const validIso = fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString());
const badIso = fc.constantFrom<unknown>('not a date', '', 1_700_000_000_000, null, undefined, {}, 'NaN');
const str = fc.string();
const badStr = fc.constantFrom<unknown>(1, null, undefined, {}, ['x'], true);

/** One field: [valid?, value]. */
const field = <T,>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: good.map((v) => [true, v] as const) }, { weight: 1, arbitrary: bad.map((v) => [false, v] as const) });

describe('parseStoredSession', () => {
  it('accepts exactly the records whose every field is well-formed, copying only the known fields', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: field(str, badStr),
          accountId: field(str, badStr),
          credentialId: field(str, badStr),
          credentialType: field(fc.constantFrom(...CREDENTIAL_TYPES), fc.constantFrom<unknown>('email_otp', '', 'PASSWORD', 3)),
          publicKeyHex: field(validKey, badKey),
          expiresAt: field(validIso, badIso),
          createdAt: field(validIso, badIso),
        }),
        fc.constantFrom<unknown>(true, false, 'true', 1, undefined),
        fc.boolean(),
        (fields, legacy, extra) => {
          const record: Record<string, unknown> = {};
          let ok = true;
          for (const [k, [valid, v]] of Object.entries(fields)) {
            record[k] = v;
            ok &&= valid;
          }
          if (legacy !== undefined) record.legacy = legacy;
          if (extra) record.foreign = 'kept out';
          const parsed = parseStoredSession(record);
          if (!ok) {
            expect(parsed).toBeUndefined();
            return;
          }
          const expected: Record<string, unknown> = {};
          for (const [k, [, v]] of Object.entries(fields)) expected[k] = v;
          if (legacy === true) expected.legacy = true;
          expect(parsed).toStrictEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('each single bad field alone makes the record rejected', () => {
    const good = { id: 'Session:1', accountId: 'InternalAccount:1', credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: `02${'a'.repeat(64)}`, expiresAt: '2026-01-01T00:15:00.000Z', createdAt: '2026-01-01T00:00:00.000Z' };
    expect(parseStoredSession(good)).toStrictEqual(good);
    const bad: Record<string, unknown[]> = {
      id: [1, undefined],
      accountId: [1, undefined],
      credentialId: [1, undefined],
      credentialType: ['X', undefined],
      publicKeyHex: [[`02${'a'.repeat(64)}`], `x02${'a'.repeat(64)}`, `02${'a'.repeat(64)}x`, `04${'a'.repeat(64)}`, 5],
      expiresAt: ['soon', undefined],
      createdAt: ['then', 7],
    };
    for (const [k, values] of Object.entries(bad)) for (const v of values) expect(parseStoredSession({ ...good, [k]: v }), `${k}=${String(v)}`).toBeUndefined();
    for (const v of [null, undefined, 'x', 3, [good]]) expect(parseStoredSession(v)).toBeUndefined();
  });
});

describe('isoOrUndefined', () => {
  it('returns the value exactly when it is a string Date.parse reads', () => {
    fc.assert(
      fc.property(fc.oneof(validIso, fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined)), (v) => {
        const ok = typeof v === 'string' && Number.isFinite(Date.parse(v));
        expect(isoOrUndefined(v)).toBe(ok ? v : undefined);
      }),
    );
    expect(isoOrUndefined(1_700_000_000_000)).toBeUndefined();
    expect(isoOrUndefined('garbage')).toBeUndefined();
  });
});

describe('parseAuthSession', () => {
  const isBad = (v: unknown): boolean => {
    try {
      parseAuthSession(v);
      return false;
    } catch (e) {
      expect(isWalletError(e) && e.code).toBe('BAD_RESPONSE');
      return true;
    }
  };
  it('accepts exactly {id: non-empty string, expiresAt: date string, …} and returns it as is', () => {
    fc.assert(
      fc.property(field(fc.string({ minLength: 1 }), fc.constantFrom<unknown>('', 1, undefined, null)), field(validIso, badIso), fc.boolean(), ([idOk, id], [expOk, expiresAt], record) => {
        const value = record ? { id, expiresAt, other: 1 } : [id, expiresAt];
        const ok = record && idOk && expOk;
        expect(isBad(value)).toBe(!ok);
        if (ok) expect(parseAuthSession(value)).toBe(value);
      }),
    );
    for (const v of [null, undefined, 'Session:1', 4]) expect(isBad(v)).toBe(true);
    expect(isBad({ id: '', expiresAt: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(isBad({ id: 'S', expiresAt: 'never' })).toBe(true);
    expect(isBad({ id: 5, expiresAt: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(isBad({ id: 'S', expiresAt: '2026-01-01T00:00:00Z' })).toBe(false);
  });
});

describe('lifetimeMs / expiresAtMs', () => {
  const at = (createdMs: number, expiresMs: number): Session => ({
    id: 's', accountId: 'a', credentialId: 'c', credentialType: 'EMAIL_OTP', publicKeyHex: `02${'0'.repeat(64)}`,
    createdAt: new Date(createdMs).toISOString(), expiresAt: new Date(expiresMs).toISOString(),
  });
  it('is expiresAt − createdAt when positive, else 15 minutes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: -1e9, max: 1e9 }), (created, span) => {
        const s = at(created, created + span);
        expect(expiresAtMs(s)).toBe(created + span);
        expect(lifetimeMs(s)).toBe(span > 0 ? span : 900_000);
      }),
    );
    expect(lifetimeMs(at(1000, 1000))).toBe(900_000);
    expect(lifetimeMs(at(1000, 1001))).toBe(1);
    expect(lifetimeMs(at(1000, 999))).toBe(900_000);
  });
});
