/**
 * The currencies the sandbox knows (spec §2.1 currency object).
 *
 * Decided here (issue 34): every currency the spec names is accepted — the currency of each fiat
 * account type of spec §2.2 (`AED_ACCOUNT` … `TRY_ACCOUNT`: AED, BDT, BRL, BWP, CAD, COP, DKK, EGP,
 * EUR, GBP, GHS, GTQ, HKD, HTG, IDR, INR, JMD, KES, MWK, MXN, MYR, NGN, PHP, PKR, RWF, SGD, SLV,
 * THB, TZS, UGX, USD, VND, XAF, XOF, ZAR, ZMW, CNY, ILS, TRY; `SWIFT_ACCOUNT` names none), and the
 * assets it names: USDC (§2.2 funding instruction, §2.7), BTC (§2.1), plus USDT (a stablecoin the
 * sandbox prices at par). `SLV` is named by `SLV_ACCOUNT` though it is not an ISO 4217 code: the
 * sandbox takes it as the spec spells it, with 2 decimals. Decimals are ISO 4217's minor units.
 * A code outside this list → `400 INVALID_CURRENCY` (spec §7.1), never `INVALID_INPUT` (which stays
 * for a value that is not a string at all). Embedded wallets hold `USDC` (a sandbox decision: the
 * spec does not say which asset an embedded wallet carries).
 */
export interface Currency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
  /** Crypto assets get wallet-style funding instructions, fiat ones bank details. */
  crypto: boolean;
}

const fiat = (code: string, name: string, symbol: string, decimals = 2): Currency => ({ code, name, symbol, decimals, crypto: false });

const LIST: readonly Currency[] = [
  fiat('USD', 'United States Dollar', '$'),
  fiat('EUR', 'Euro', '€'),
  fiat('GBP', 'Pound Sterling', '£'),
  fiat('MXN', 'Mexican Peso', '$'),
  fiat('BRL', 'Brazilian Real', 'R$'),
  fiat('CAD', 'Canadian Dollar', '$'),
  fiat('INR', 'Indian Rupee', '₹'),
  fiat('NGN', 'Nigerian Naira', '₦'),
  fiat('PHP', 'Philippine Peso', '₱'),
  fiat('AED', 'UAE Dirham', 'AED'),
  fiat('BDT', 'Bangladeshi Taka', '৳'),
  fiat('BWP', 'Botswana Pula', 'P'),
  fiat('COP', 'Colombian Peso', '$'),
  fiat('DKK', 'Danish Krone', 'kr'),
  fiat('EGP', 'Egyptian Pound', 'E£'),
  fiat('GHS', 'Ghanaian Cedi', 'GH₵'),
  fiat('GTQ', 'Guatemalan Quetzal', 'Q'),
  fiat('HKD', 'Hong Kong Dollar', 'HK$'),
  fiat('HTG', 'Haitian Gourde', 'G'),
  fiat('IDR', 'Indonesian Rupiah', 'Rp'),
  fiat('JMD', 'Jamaican Dollar', 'J$'),
  fiat('KES', 'Kenyan Shilling', 'KSh'),
  fiat('MWK', 'Malawian Kwacha', 'MK'),
  fiat('MYR', 'Malaysian Ringgit', 'RM'),
  fiat('PKR', 'Pakistani Rupee', '₨'),
  fiat('RWF', 'Rwandan Franc', 'FRw', 0),
  fiat('SGD', 'Singapore Dollar', 'S$'),
  fiat('SLV', 'SLV (as spec §2.2 names it)', 'SLV'),
  fiat('THB', 'Thai Baht', '฿'),
  fiat('TZS', 'Tanzanian Shilling', 'TSh'),
  fiat('UGX', 'Ugandan Shilling', 'USh', 0),
  fiat('VND', 'Vietnamese Dong', '₫', 0),
  fiat('XAF', 'Central African CFA Franc', 'FCFA', 0),
  fiat('XOF', 'West African CFA Franc', 'CFA', 0),
  fiat('ZAR', 'South African Rand', 'R'),
  fiat('ZMW', 'Zambian Kwacha', 'ZK'),
  fiat('CNY', 'Chinese Yuan', '¥'),
  fiat('ILS', 'Israeli New Shekel', '₪'),
  fiat('TRY', 'Turkish Lira', '₺'),
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
