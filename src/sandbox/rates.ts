/**
 * Fixed sandbox exchange rates (issue 25). The spec's quotes serve cross-currency transfers (§1,
 * §4.3); the sandbox has no market, so it prices them at fixed rates that never move, which keeps
 * tests deterministic.
 *
 * Decided here: a cross-currency quote is priced only between accounts of ONE customer (moving
 * money between their own USD account and embedded USDC wallet, say); between two customers a
 * currency pair still answers `400 QUOTE_RATE_UNAVAILABLE` (a corridor the sandbox does not model).
 * No fees (`feesIncluded` 0). Amounts are integers in the smallest unit: the side not locked is
 * rounded in the platform's favour (the receiving amount down, the sending amount up).
 */

/** Value of one major unit of each currency in micro-USD. Stablecoins are at par with USD. */
const MICRO_USD: Readonly<Record<string, bigint>> = {
  USD: 1_000_000n,
  USDC: 1_000_000n,
  USDT: 1_000_000n,
  EUR: 1_080_000n,
  GBP: 1_270_000n,
  CAD: 730_000n,
  MXN: 58_000n,
  BRL: 200_000n,
  INR: 12_000n,
  NGN: 650n,
  PHP: 17_000n,
  BTC: 60_000_000_000n,
};

export interface Priced {
  totalSendingAmount: number;
  totalReceivingAmount: number;
  /** Major units of the receiving currency per major unit of the sending one. */
  exchangeRate: number;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * Prices `amount` (smallest units of the locked side) from `sending` to `receiving`; undefined when
 * the sandbox has no rate for the pair. Same currency: rate 1, both totals equal the amount.
 */
export function price(
  sending: { code: string; decimals: number },
  receiving: { code: string; decimals: number },
  side: 'SENDING' | 'RECEIVING',
  amount: number,
): Priced | undefined {
  if (sending.code === receiving.code) return { totalSendingAmount: amount, totalReceivingAmount: amount, exchangeRate: 1 };
  const us = MICRO_USD[sending.code];
  const ur = MICRO_USD[receiving.code];
  if (us === undefined || ur === undefined) return undefined;
  const exchangeRate = Number(us) / Number(ur);
  const a = BigInt(amount);
  if (side === 'SENDING') {
    // receiving = amount / 10^ds * us / ur * 10^dr, rounded down.
    const received = (a * us * pow10(receiving.decimals)) / (ur * pow10(sending.decimals));
    return { totalSendingAmount: amount, totalReceivingAmount: Number(received), exchangeRate };
  }
  const num = a * ur * pow10(sending.decimals);
  const den = us * pow10(receiving.decimals);
  const sent = (num + den - 1n) / den;
  return { totalSendingAmount: Number(sent), totalReceivingAmount: amount, exchangeRate };
}
