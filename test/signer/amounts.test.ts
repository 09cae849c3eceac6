/**
 * Amounts in words (issue 33: "USDC amounts show six decimals"): the precision is the service's
 * `decimals` of the currency object it sends (spec §2.1: amounts are integers in the smallest unit;
 * a currency has `code` and `decimals`), never Intl's minor units for the code — Intl knows no
 * USDC, gives USD two and JPY none, where the service may say otherwise. Every digit of the amount
 * shows, exactly (no rounding through a double).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalString, formatAmount } from '../../src/signer/words/format.js';

const code = fc.oneof(fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'USDC', 'USDT', 'BTC', 'ETH'), fc.stringMatching(/^[A-Z]{3,5}$/));
const decimals = fc.integer({ min: 0, max: 18 });
const units = fc.oneof(fc.integer({ min: 0, max: 10 ** 9 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));

describe('formatAmount: the service decides the decimals', () => {
  it('shows exactly `decimals` fraction digits and every digit of the amount, whatever Intl knows of the code', () => {
    fc.assert(
      fc.property(units, code, decimals, (n, c, d) => {
        const shown = formatAmount(n, { code: c, decimals: d }, 'en-US');
        const number = shown.replace(c, '').trim();
        expect(number.replace(/,/g, '')).toBe(decimalString(n, d));
        expect(number.split('.')[1]?.length ?? 0).toBe(d);
        expect(shown).toContain(c);
      }),
      { numRuns: 500 },
    );
  });

  it('USDC with the service\'s six decimals, in the user\'s locale', () => {
    const usdc = { code: 'USDC', decimals: 6 };
    expect(formatAmount(12_500_000, usdc, 'en-US')).toBe('12.500000 USDC');
    expect(formatAmount(1, usdc, 'en-US')).toBe('0.000001 USDC');
    expect(formatAmount(1_234_567_890, usdc, 'fr-FR')).toMatch(/^1[\u202f\u00a0]234,567890 USDC$/);
    // A code Intl knows, with the service's decimals rather than its own (USD has 2 for Intl).
    expect(formatAmount(1_234_567, { code: 'USD', decimals: 6 }, 'en-US')).toBe('USD\u00a01.234567');
  });
});
