/**
 * A host's table of strings where every text is marked (issue 33: "all text in one table the host
 * can override"): each key's override is `⟦n·tag⟧` (n: the key's place in the table; short, so that
 * the screens keep their layout), with the default's placeholders kept, each between marks, so that a screen drawn in it shows only marked texts and the values filled in.
 * The oracle {@link fromTable} says whether a text shown is one of the table's, filled.
 * Used by test/signer/strings-coverage.test.ts and e2e/frame/all-strings.ts (the specs
 * e2e/frame/portable/12-all-strings.spec.ts, three engines, and e2e/frame/12-all-strings.spec.ts).
 */
import fc from 'fast-check';
import { DEFAULT_STRINGS, placeholders, type StringKey } from '../../src/signer/words/strings.js';

const KEYS = Object.keys(DEFAULT_STRINGS) as StringKey[];

/** The mark of `key` with `tag`. */
const markOf = (key: StringKey, tag: string) => `⟦${KEYS.indexOf(key)}·${tag}⟧`;

/** The override of `key` marked with `tag`: its mark, then each placeholder followed by the mark again. */
export function marked(key: StringKey, tag: string): string {
  const mark = markOf(key, tag);
  return [mark, ...placeholders(DEFAULT_STRINGS[key]).map((name) => `{${name}}${mark}`)].join(' ');
}

/** Every key of the table overridden with its mark. */
export function markedTable(tag: string): Record<StringKey, string> {
  return Object.fromEntries((Object.keys(DEFAULT_STRINGS) as StringKey[]).map((key) => [key, marked(key, tag)])) as Record<StringKey, string>;
}

/** Tags: a few letters and digits (the marks stay short, so the screens keep their layout). */
export const tagArb = fc.stringMatching(/^[a-z0-9]{2,4}$/);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `text` is a text of the marked table `tag`, its placeholders filled with anything
 * (`valueOk` judges each value filled in: data, or a text of the table itself).
 */
export function fromTable(text: string, tag: string, valueOk: (value: string) => boolean = () => true): boolean {
  for (const key of KEYS) {
    const parts = marked(key, tag).split(/\{\w+\}/);
    const pattern = new RegExp(`^${parts.map(escape).join('([\\s\\S]*?)')}$`);
    const found = pattern.exec(text.trim());
    if (found !== null && found.slice(1).every((value) => valueOk(value.trim()))) return true;
  }
  return false;
}

/** The keys whose mark `text` holds (to count which texts a screen showed). */
export function keysIn(text: string, tag: string): StringKey[] {
  return KEYS.filter((key) => text.includes(markOf(key, tag)));
}
