import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WalletErrorCode } from '../src/errors.js';
import { WALLET_ERROR_CODES, describeWalletError } from '../src/error-codes.js';
import { ERRORS_MD, errorTable, withErrorTable } from '../scripts/errors-md.js';

// Compile-time: the description table has exactly the codes of the union (tsc in `npm test`).
type Undescribed = Exclude<WalletErrorCode, keyof typeof WALLET_ERROR_CODES>;
type NotInUnion = Exclude<keyof typeof WALLET_ERROR_CODES, WalletErrorCode>;
const exact: [Undescribed | NotInUnion] extends [never] ? true : false = true;

describe('error code documentation', () => {
  const markdown = readFileSync(ERRORS_MD, 'utf8');

  it('every code of the union has a row in ERRORS.md with its meaning', () => {
    expect(exact).toBe(true);
    const codes = Object.keys(WALLET_ERROR_CODES) as WalletErrorCode[];
    expect(codes.length).toBeGreaterThan(30);
    for (const code of codes) {
      const row = markdown.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `ERRORS.md has no row for ${code}: run npm run errors-md`).toBeDefined();
      expect(row).toContain(WALLET_ERROR_CODES[code].replaceAll('|', '\\|'));
    }
  });

  it('ERRORS.md holds the table generated from src/error-codes.ts (npm run errors-md)', () => {
    expect(markdown).toContain(errorTable());
    expect(withErrorTable(markdown)).toBe(markdown);
  });

  it('describeWalletError reads only our own codes', () => {
    expect(describeWalletError('DECRYPTION_FAILED')).toBe(WALLET_ERROR_CODES.DECRYPTION_FAILED);
    expect(describeWalletError('RATE_LIMITED')).toBeUndefined();
    expect(describeWalletError('toString')).toBeUndefined();
  });

  it('the main entry does not carry the descriptions', async () => {
    const main: Record<string, unknown> = await import('../src/index.js');
    expect('WALLET_ERROR_CODES' in main).toBe(false);
    expect('describeWalletError' in main).toBe(false);
    expect(typeof main['WalletError']).toBe('function');
  });
});
