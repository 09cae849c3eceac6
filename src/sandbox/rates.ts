/**
 * Fixed sandbox exchange rates (issue 25). The spec's quotes serve cross-currency transfers (§1,
 * §4.3); the sandbox has no market, so it prices them at fixed rates that never move, which keeps
 * tests deterministic.
 *
 * Decided here (issue 34): every pair of known currencies (currencies.ts) is priced, between one
 * customer's own accounts and between two customers alike: spec §1 and §4.3 say the same quote
 * endpoints serve same-currency and cross-currency transfers, and nothing there limits them to one
 * customer. `QUOTE_RATE_UNAVAILABLE` is left for a pair without a rate (none today: every known
 * currency has one; a test asserts it) and for an amount too small to give a positive other side.
 * The rates are sandbox values of the right order of magnitude, not market data. No fees (`feesIncluded` 0). Amounts are integers in the smallest unit: the side not locked is
 * rounded in the platform's favour (the receiving amount down, the sending amount up).
 */

/** Value of one major unit of each currency in micro-USD. Stablecoins are at par with USD. */
const MICRO_USD: Readonly<Record<string, bigint>> = {
  USD: 1_000_000n,
  USDC: 1_000_000n,
  USDT: 1_000_000n,
  SLV: 1_000_000n,
  EUR: 1_080_000n,
  GBP: 1_270_000n,
  CAD: 730_000n,
  MXN: 58_000n,
  BRL: 200_000n,
  INR: 12_000n,
  NGN: 650n,
  PHP: 17_000n,
  AED: 272_000n,
  BDT: 8_300n,
  BWP: 74_000n,
  COP: 250n,
  DKK: 145_000n,
  EGP: 20_500n,
  GHS: 65_000n,
  GTQ: 129_000n,
  HKD: 128_000n,
  HTG: 7_600n,
  IDR: 62n,
  JMD: 6_400n,
  KES: 7_700n,
  MWK: 580n,
  MYR: 220_000n,
  PKR: 3_600n,
  RWF: 720n,
  SGD: 740_000n,
  THB: 28_000n,
  TZS: 380n,
  UGX: 270n,
  VND: 40n,
  XAF: 1_650n,
  XOF: 1_650n,
  ZAR: 54_000n,
  ZMW: 38_000n,
  CNY: 138_000n,
  ILS: 270_000n,
  TRY: 30_000n,
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
