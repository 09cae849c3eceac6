// The signer page's own title and language (issue 33: no text outside the host's table). Before its
// configuration is read, the static page (src/signer/page/index.html) holds the default table's:
// `pageTitle` filled with `walletName`, in DEFAULT_LANGUAGE. After it, views.ts `applyBranding`
// sets the host's (the e2e check: e2e/frame/portable/12-all-strings.spec.ts): the title from the host's
// table, the `lang` from `pageLanguage` — the host's `language`, else its `locale`, else the
// default table's — each checked at load.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalLocale, pageLanguage, parseSignerConfig } from '../../src/signer/frame/config.js';
import { DEFAULT_LANGUAGE, DEFAULT_STRINGS, fill } from '../../src/signer/words/strings.js';

const PAGE = readFileSync(new URL('../../src/signer/page/index.html', import.meta.url), 'utf8');
const GOOD = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api', trustedKeys: ['04ab'] };
const TAGS = ['en', 'fr', 'fr-FR', 'de-CH', 'pt-BR', 'zh-Hant-TW', 'sr-Latn', 'es-419'];

describe('the static signer page', () => {
  it("holds the default table's title and language until the configuration is read", () => {
    expect(PAGE.match(/<title>([^<]*)<\/title>/)?.[1]).toBe(fill(DEFAULT_STRINGS.pageTitle, { name: DEFAULT_STRINGS.walletName }));
    expect(PAGE.match(/<html lang="([^"]*)">/)?.[1]).toBe(DEFAULT_LANGUAGE);
  });
});

describe("the page's language once configured", () => {
  it("is the host's language, else its locale, else the default table's", () => {
    fc.assert(
      fc.property(fc.option(fc.constantFrom(...TAGS), { nil: undefined }), fc.option(fc.constantFrom(...TAGS), { nil: undefined }), (language, locale) => {
        const config = parseSignerConfig({ ...GOOD, ...(language === undefined ? {} : { language }), ...(locale === undefined ? {} : { locale }) });
        expect(pageLanguage(config)).toBe(canonicalLocale(language) ?? canonicalLocale(locale) ?? DEFAULT_LANGUAGE);
      }),
    );
  });

  it('a language that is not a BCP 47 tag is refused at load', () => {
    for (const bad of ['', 'not a tag', 'en_US_', 42, null, ['fr']]) expect(() => parseSignerConfig({ ...GOOD, language: bad })).toThrow(/language/);
  });

  it("the title is the host's pageTitle with its name", () => {
    const config = parseSignerConfig({ ...GOOD, name: 'Acme', strings: { pageTitle: 'Signer of {name}' } });
    expect(fill(config.strings?.pageTitle ?? DEFAULT_STRINGS.pageTitle, { name: config.name })).toBe('Signer of Acme');
  });
});
