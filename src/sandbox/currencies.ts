/**
 * The currencies the sandbox knows (spec §2.1 currency object). Unknown codes are refused with
 * `400 INVALID_CURRENCY`. Embedded wallets hold `USDC` (a sandbox decision: the spec does not say
 * which asset an embedded wallet carries).
 */
export interface Currency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
  /** Crypto assets get wallet-style funding instructions, fiat ones bank details. */
  crypto: boolean;
}

const LIST: readonly Currency[] = [
  { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2, crypto: false },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2, crypto: false },
  { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2, crypto: false },
  { code: 'MXN', name: 'Mexican Peso', symbol: '$', decimals: 2, crypto: false },
  { code: 'BRL', name: 'Brazilian Real', symbol: 'R$', decimals: 2, crypto: false },
  { code: 'CAD', name: 'Canadian Dollar', symbol: '$', decimals: 2, crypto: false },
  { code: 'INR', name: 'Indian Rupee', symbol: '₹', decimals: 2, crypto: false },
  { code: 'NGN', name: 'Nigerian Naira', symbol: '₦', decimals: 2, crypto: false },
  { code: 'PHP', name: 'Philippine Peso', symbol: '₱', decimals: 2, crypto: false },
  { code: 'USDC', name: 'USD Coin', symbol: 'USDC', decimals: 6, crypto: true },
  { code: 'USDT', name: 'Tether USD', symbol: 'USDT', decimals: 6, crypto: true },
  { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8, crypto: true },
];

const BY_CODE = new Map(LIST.map((c) => [c.code, c]));

export const EMBEDDED_WALLET_CURRENCY = 'USDC';

export function knownCurrencies(): readonly Currency[] {
  return LIST;
}

export function findCurrency(code: string): Currency | undefined {
  return BY_CODE.get(code);
}

/** The public currency object `{ code, name, symbol, decimals }`. */
export function currencyView(code: string): { code: string; name: string; symbol: string; decimals: number } {
  const c = BY_CODE.get(code);
  if (c === undefined) return { code, name: code, symbol: code, decimals: 0 };
  return { code: c.code, name: c.name, symbol: c.symbol, decimals: c.decimals };
}
