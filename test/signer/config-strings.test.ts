/**
 * The host's wording and locale in its configuration (src/signer/frame/config.ts `strings`,
 * `locale`, `timeZone`): overrides of the strings table are checked at load against an oracle —
 * every key one of the table's, every value a non-empty string holding exactly the placeholders of
 * the default — and refused with an error naming the first bad key; the locale is a BCP 47 tag.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSignerConfig } from '../../src/signer/frame/config.js';
import { DEFAULT_STRINGS, describeSignedRequest, toApprovalLines, type StringKey } from '../../src/signer/words/index.js';
import { placeholders } from '../../src/signer/words/strings.js';

const GOOD = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api', trustedKeys: ['04ab'], name: 'Acme' };
const KEYS = Object.keys(DEFAULT_STRINGS) as StringKey[];
const NAMES = [...new Set(KEYS.flatMap((k) => placeholders(DEFAULT_STRINGS[k])))];

/** Text with no placeholder in it. */
const words = fc.string({ minLength: 1, maxLength: 12 }).map((s) => s.replace(/[{}]/g, '·'));

/** One entry of an override: a key (the table's or not) and a value (right placeholders or not, a string or not). */
const entry = fc.oneof(
  { weight: 6, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), parts: fc.array(words, { minLength: 1, maxLength: 4 }), drop: fc.boolean(), add: fc.option(fc.constantFrom(...NAMES, 'extra'), { nil: undefined }) }).map(({ key, parts, drop, add }) => {
      const wanted = placeholders(DEFAULT_STRINGS[key]);
      const kept = drop ? wanted.slice(1) : wanted;
      const names = add === undefined || kept.includes(add) ? kept : [...kept, add];
      const value = [...parts, ...names.map((n) => `{${n}}`)].reverse().join(' ');
      return { key: key as string, value: value as unknown };
    }) },
  { weight: 1, arbitrary: fc.record({ key: fc.stringMatching(/^[a-zA-Z]{1,16}$/), value: words as fc.Arbitrary<unknown> }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...KEYS) as fc.Arbitrary<string>, value: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant(''), fc.constant('   '), fc.array(words)) as fc.Arbitrary<unknown> }) },
);

/** Why the oracle refuses `key: value`, or undefined when it accepts it. */
function oracle(key: string, value: unknown): string | undefined {
  if (!Object.hasOwn(DEFAULT_STRINGS, key)) return 'unknown';
  if (typeof value !== 'string' || value.trim() === '') return 'not a text';
  const want = placeholders(DEFAULT_STRINGS[key as StringKey]).join();
  return placeholders(value).join() === want ? undefined : 'placeholders';
}

describe('the host configuration: strings', () => {
  it('accepts exactly the overrides the oracle accepts; refuses the others naming the first bad key', () => {
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.key, maxLength: 6 }), (entries) => {
        const strings = Object.fromEntries(entries.map((e) => [e.key, e.value]));
        const firstBad = entries.find((e) => oracle(e.key, e.value) !== undefined);
        if (firstBad === undefined) {
          expect(parseSignerConfig({ ...GOOD, strings }).strings).toEqual(strings);
        } else {
          expect(() => parseSignerConfig({ ...GOOD, strings })).toThrow(new RegExp(`^signer-config\\.json: strings\\.${firstBad.key} `));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a translation that drops a placeholder the describer fills is refused, with the placeholders it must hold', () => {
    expect(() => parseSignerConfig({ ...GOOD, strings: { allOtherDevices: 'Tous les autres appareils' } })).toThrow('strings.allOtherDevices must hold exactly the placeholders {count}, found (none)');
    expect(() => parseSignerConfig({ ...GOOD, strings: { rateValue: '1 {from} = {rate}' } })).toThrow(/strings\.rateValue .*\{from\} \{rate\} \{to\}/);
    expect(() => parseSignerConfig({ ...GOOD, strings: { approve: 'Approuver {montant}' } })).toThrow(/strings\.approve .*\(none\), found \{montant\}/);
    expect(() => parseSignerConfig({ ...GOOD, strings: { approuver: 'Approuver' } })).toThrow(/strings\.approuver is not a text of the signer/);
    expect(() => parseSignerConfig({ ...GOOD, strings: ['Approuver'] })).toThrow(/strings must be an object/);
    // Reordered and reworded is fine: the describer fills by name.
    const fr = { rateValue: '{rate} {to} pour 1 {from}', allOtherDevices: '{count} autres appareils', approve: 'Approuver' };
    expect(parseSignerConfig({ ...GOOD, strings: fr }).strings).toEqual(fr);
  });

  it('what the host accepted is what the words show', () => {
    const { strings } = parseSignerConfig({ ...GOOD, strings: { allOtherDevices: '{count} autres appareils', sessions: 'Sessions ouvertes' } });
    const d = describeSignedRequest({ method: 'DELETE', path: '/auth/sessions/S' }, { sessions: { count: 3, allOtherDevices: true } }, { strings: strings as Record<string, string>, locale: 'fr-FR' });
    expect(toApprovalLines(d, { strings: strings as Record<string, string> }).lines[0]).toEqual(['Sessions ouvertes', '3 autres appareils']);
  });
});

describe('the host configuration: locale and time zone', () => {
  it('a well-formed BCP 47 tag is kept in its canonical form; anything else is refused', () => {
    fc.assert(
      fc.property(fc.constantFrom('fr', 'fr-FR', 'de-DE', 'en-US', 'pt-BR', 'zh-Hant-TW', 'es-419', 'sr-Latn-RS'), fc.boolean(), (tag, lower) => {
        expect(parseSignerConfig({ ...GOOD, locale: lower ? tag.toLowerCase() : tag }).locale).toBe(Intl.getCanonicalLocales(tag)[0]);
      }),
    );
    for (const bad of ['', 'fr_FR_x_', 'not a locale', 'en-', 42, null, ['fr-FR']]) expect(() => parseSignerConfig({ ...GOOD, locale: bad })).toThrow(/locale must be a BCP 47 language tag/);
    expect(parseSignerConfig(GOOD).locale).toBeUndefined();
  });

  it('a time zone Intl knows is kept; another is refused', () => {
    expect(parseSignerConfig({ ...GOOD, timeZone: 'Europe/Paris' }).timeZone).toBe('Europe/Paris');
    for (const bad of ['', 'Mars/Olympus', 42]) expect(() => parseSignerConfig({ ...GOOD, timeZone: bad })).toThrow(/timeZone must be an IANA time zone/);
  });
});

describe("the host's name", () => {
  it("a host that names no wallet shows its table's walletName (default: the table's); a name given wins", () => {
    const { name: _given, ...unnamed } = GOOD;
    expect(parseSignerConfig(unnamed).name).toBe(DEFAULT_STRINGS.walletName);
    expect(parseSignerConfig({ ...unnamed, strings: { walletName: 'Portefeuille' } }).name).toBe('Portefeuille');
    expect(parseSignerConfig({ ...GOOD, strings: { walletName: 'Portefeuille' } }).name).toBe('Acme');
  });
});
