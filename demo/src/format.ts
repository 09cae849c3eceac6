/** Display helpers: amounts in a currency's smallest unit, short ids, times. */

export interface Money {
  amount: number;
  currency: { code: string; decimals: number; symbol?: string };
}

export function formatMoney(m: Money | undefined): string {
  if (!m) return '—';
  const value = m.amount / 10 ** m.currency.decimals;
  const shown = value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: m.currency.decimals });
  return `${shown} ${m.currency.code}`;
}

/** "12.5" in a currency with `decimals` → smallest units; null when not a positive amount. */
export function toUnits(text: string, decimals: number): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  const [whole = '0', frac = ''] = t.split('.');
  if (frac.length > decimals) return null;
  const units = Number(whole) * 10 ** decimals + Number(frac.padEnd(decimals, '0') || '0');
  return Number.isSafeInteger(units) && units > 0 ? units : null;
}

/** `Session:1234…cdef` */
export function shortId(id: string): string {
  const [kind, rest] = id.includes(':') ? [id.slice(0, id.indexOf(':') + 1), id.slice(id.indexOf(':') + 1)] : ['', id];
  return rest.length > 12 ? `${kind}${rest.slice(0, 8)}…${rest.slice(-4)}` : id;
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString([], { hour12: false });
}

export const TYPE_LABEL: Record<string, string> = { EMAIL_OTP: 'Email code', SMS_OTP: 'SMS code', OAUTH: 'OAuth', PASSKEY: 'Passkey' };
