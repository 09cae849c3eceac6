/**
 * Values as a person reads them, in the user's locale (`Intl`): amounts in smallest units with
 * their currency, dates, rates; and emails and phone numbers partly masked.
 */

/** What masking may show: the first character of an email's local part and its domain; a phone's last two digits. */
export const MASK = '•';

/** `alice@example.com` → `a•••@example.com`: only the first character of the local part and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return MASK.repeat(3);
  return `${email.slice(0, 1)}${MASK.repeat(3)}${email.slice(at)}`;
}

/** `+15551234567` → `•••• ••67`: only the last two digits. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length < 6) return MASK.repeat(6);
  return `${MASK.repeat(4)} ${MASK.repeat(2)}${digits.slice(-2)}`;
}

/** The integer `units` of a currency with `decimals` as an exact decimal string (`1234`, 2 → `12.34`). */
export function decimalString(units: number, decimals: number): string {
  const negative = units < 0;
  const digits = String(Math.abs(units)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

/**
 * An amount in smallest units as money in `locale`. A code `Intl` cannot format as a currency
 * (e.g. `USDC`) is written as the number followed by the code.
 * Decision (issue 33, USDC): the precision is `currency.decimals` as the service sends it (spec
 * §2.1: amounts are integers in the smallest unit; a currency object carries `code` and `decimals`),
 * never Intl's minor units for the code: Intl knows no USDC (the service gives 6), and would give
 * USD 2 and JPY 0 whatever the service says. So a USDC amount shows its six decimals, every digit
 * exactly (test/signer/amounts.test.ts).
 */
export function formatAmount(units: number, currency: { code: string; decimals: number }, locale: string | undefined): string {
  const exact = decimalString(units, currency.decimals) as unknown as number; // Intl formats decimal strings exactly
  const digits = { minimumFractionDigits: currency.decimals, maximumFractionDigits: currency.decimals };
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.code, currencyDisplay: 'code', ...digits }).format(exact);
  } catch {
    return `${new Intl.NumberFormat(locale, digits).format(exact)} ${currency.code}`;
  }
}

/** A plain number (a rate) in `locale`, up to 8 decimals. */
export function formatNumber(value: number, locale: string | undefined): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 8 }).format(value);
}

/** An ISO 8601 time in `locale` (and `timeZone` when given), or undefined for a value that is not a time. */
export function formatDate(iso: string, locale: string | undefined, timeZone?: string): string | undefined {
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return undefined;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'long', ...(timeZone !== undefined ? { timeZone } : {}) }).format(time);
}
