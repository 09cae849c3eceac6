/**
 * What the all-strings specs read on a signer page (frame or window) and how they judge it: every
 * text under `#signer` (hidden ones too) and its accessible-name attributes, each one of the host's
 * marked table (test/signer/marked-strings.ts) or, in a line's value or the phrase, data. Used by
 * e2e/frame/12-all-strings.spec.ts (Chromium) and e2e/frame/portable/12-all-strings.spec.ts (the
 * three engines).
 */
import { expect } from '@playwright/test';
import type { StringKey } from '../../src/signer/words/strings.js';
import { fromTable, keysIn, markedTable } from '../../test/signer/marked-strings.js';

export interface Shown {
  readonly text: string;
  /** A line's value (`dd`) or one of the phrase's words (`ol`): may be data. */
  readonly value: 'dd' | 'ol' | false;
  /** The attribute it was read from, for a label read by screen readers. */
  readonly attr?: string;
}

/** In the signer's page (frame or window): every text under `#signer`, and its accessible-name attributes. */
export function shownInPage(): Shown[] {
  const root = document.getElementById('signer');
  if (root === null) return [];
  const out: Shown[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? '';
    const holder = node.parentElement?.closest('dd, ol');
    if (text !== '') out.push({ text, value: holder == null ? false : holder.tagName === 'OL' ? 'ol' : 'dd' });
  }
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const attr of ['aria-label', 'title', 'alt', 'placeholder', 'aria-description']) {
      const text = el.getAttribute(attr);
      if (text !== null && text.trim() !== '') out.push({ text: text.trim(), value: false, attr });
    }
  }
  return out;
}

/** Data as the screens show it in en-US/UTC: ids, amounts, dates, emails, masked contacts, a shortened key, phrase words. */
const DATA = [
  /^[A-Z][A-Za-z]*:[0-9a-f-]{36}$/,
  /^[0-9,]+\.[0-9]{6} USDC$/,
  /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}[\s\u202f][AP]M UTC$/,
  /^[^\s@]+@[^\s@]+\.[a-z]+$/,
  /^[•\s0-9]+$/,
  /^04[0-9a-f]{8}…[0-9a-f]{6}$/,
];
/** Values this test itself passes to the calls (a passkey's name). */
const PASSED = new Set(['Laptop']);
/** A word of the BIP-39 list, in the phrase's list only. */
const PHRASE_WORD = /^[a-z]{3,8}$/;
const isData = (s: Shown) => (s.value === 'dd' && (PASSED.has(s.text) || DATA.some((pattern) => pattern.test(s.text)))) || (s.value === 'ol' && PHRASE_WORD.test(s.text));

/** The language the host names for its texts in these specs (its `locale`, for the formats, is en-US). */
export const LANGUAGE = 'en-GB';
/** The host's name in these specs' stacks (stack.ts). */
const HOST_NAME = 'Test Wallet';

/** The signer page's title and language, read in the page ({@link expectHostTitleAndLanguage}). */
export function titleAndLanguageInPage(): { title: string; lang: string } {
  return { title: document.title, lang: document.documentElement.lang };
}

/** The judge of the screens of a run whose table is marked with `tag`: counts the texts read and the keys seen. */
export function hostTexts(tag: string) {
  const seenKeys = new Set<StringKey>();
  let read = 0;
  return {
    seenKeys,
    get read() {
      return read;
    },
    /** Every text of `shown` is the host's (values: or data); records which keys showed. */
    expectOnlyHostTexts(shown: readonly Shown[], screen: string): void {
      expect(shown.length, `${screen}: texts read`).toBeGreaterThan(0);
      for (const s of shown) {
        const ok = fromTable(s.text, tag) || isData(s);
        expect(ok, `${screen}: "${s.text}"${s.attr !== undefined ? ` (${s.attr})` : ''} is not a text of the host's table`).toBe(true);
        for (const key of keysIn(s.text, tag)) seenKeys.add(key);
      }
      read += shown.length;
    },
    /** The page's title is the host's `pageTitle` with its name, its `lang` the host's `language`. */
    expectHostTitleAndLanguage(seen: { title: string; lang: string }, screen: string): void {
      expect(seen.title, `${screen}: the title`).toBe(markedTable(tag).pageTitle.replace('{name}', HOST_NAME));
      expect(seen.lang, `${screen}: the language`).toBe(LANGUAGE);
      seenKeys.add('pageTitle');
    },
  };
}
