// `npm run errors-md`: writes the table of our error codes into ERRORS.md from src/error-codes.ts
// (between the codes:start / codes:end markers). test/error-codes.test.ts fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WALLET_ERROR_CODES } from '../src/error-codes.js';

export const ERRORS_MD = fileURLToPath(new URL('../ERRORS.md', import.meta.url));
const START = '<!-- codes:start (generated from src/error-codes.ts by `npm run errors-md`) -->';
const END = '<!-- codes:end -->';

/** The markdown table: one row per code, in the order of src/error-codes.ts. */
export function errorTable(codes: Readonly<Record<string, string>> = WALLET_ERROR_CODES): string {
  const rows = Object.entries(codes).map(([code, meaning]) => `| \`${code}\` | ${meaning.replaceAll('|', '\\|')} |`);
  return ['| Code | Meaning |', '| --- | --- |', ...rows].join('\n');
}

/** `markdown` with the text between the markers replaced by the current table. */
export function withErrorTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start === -1 || end < start) throw new Error(`ERRORS.md lacks the ${START} … ${END} markers`);
  return `${markdown.slice(0, start + START.length)}\n${errorTable()}\n${markdown.slice(end)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ERRORS_MD, withErrorTable(readFileSync(ERRORS_MD, 'utf8')));
  console.log(`ERRORS.md: ${Object.keys(WALLET_ERROR_CODES).length} codes`);
}
