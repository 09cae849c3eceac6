/**
 * The signer's host configuration: set where the signer page is hosted (a `signer-config.json`
 * served beside it), never told by the parent. Checked once; a page with a bad or missing
 * configuration accepts no parent at all (deny by default).
 */
import type { TrustedKeys } from '../../crypto/index.js';
import { checkStringOverrides, DEFAULT_LANGUAGE, stringsWith, type Strings } from '../words/strings.js';
import { APPROVAL_MAX_MS, HIGH_VALUE_KINDS, type HighValue, type HighValueKind } from './approval-route.js';

/** The signer page's host configuration (`signer-config.json` beside the page). */
export interface SignerConfig {
  /** The app origins allowed to embed and talk to this signer (exact origins, e.g. `https://app.example`). */
  readonly allowedParentOrigins: readonly string[];
  /** The app's wallet proxy as this page reaches it (absolute URL; sent with the user's cookie). */
  readonly baseUrl: string;
  /** Enclave keys trusted for OTP and export bundles (or 'skip-verification' for a test service). */
  readonly trustedKeys: TrustedKeys;
  /** Shown in the frame's prompts (default: the table's `walletName`). */
  readonly name: string;
  /** A logo shown in the prompts (an URL on the signer's own origin or https). */
  readonly logoUrl?: string;
  /** Colours of the prompts (CSS hex colours). */
  readonly colors?: { readonly accent?: string; readonly background?: string; readonly text?: string };
  /**
   * How long an export's recovery phrase stays on the frame's screen, in ms, before the frame clears
   * it (it is cleared on close too); 5 000 to 600 000, default 60 000 (60 s).
   */
  readonly exportClearAfterMs?: number;
  /**
   * The kinds always approved in a window of the signer origin (the approval popup, approval-route.ts),
   * and the quotes above an amount: e.g. `{ "kinds": ["export", "create-delegated-key"],
   * "quoteAbove": { "amount": 10000, "currency": "USD" } }` (amount in the currency's smallest unit).
   */
  readonly highValue?: HighValue;
  /**
   * How long a prompt can be answered, in ms: 5 000 to 60 000, default 60 000 (approval-route.ts
   * `APPROVAL_MAX_MS`). It can only shorten the 60 s; the service's `expiresAt` still ends it sooner.
   */
  readonly approvalLifetimeMs?: number;
  /**
   * Show a signature the frame cannot put in words as "Unknown action" with its raw request, for the
   * user to approve or decline (src/signer/words: `allowUnknown`). Default false: such a signature is
   * refused (SIGNING_REFUSED) and no prompt is shown. Only this file can turn it on, never the parent.
   */
  readonly allowUnknown?: boolean;
  /**
   * The host's wording (its language, its words): texts of the signer's table (DEFAULT_STRINGS in
   * src/signer/words/strings.ts) by key, each holding exactly the `{placeholders}` of the default.
   * A key the table does not have, a value that is not a non-empty string, or a placeholder left
   * out or added is refused at load.
   */
  readonly strings?: Partial<Strings>;
  /**
   * The locale dates, amounts and currencies are formatted in (`Intl`), a BCP 47 tag such as
   * `fr-FR`. Default: the user's (`navigator.language`), as the frame finds it.
   */
  readonly locale?: string;
  /** The time zone dates are shown in (an IANA name such as `Europe/Paris`). Default: the user's. */
  readonly timeZone?: string;
  /**
   * The language the host's `strings` are written in, a BCP 47 tag such as `fr`: the page's `lang`,
   * the language a screen reader reads the screens in. Default: `locale` when the host pins one,
   * else the default table's (`DEFAULT_LANGUAGE`, `en`): config.ts `pageLanguage`.
   */
  readonly language?: string;
}

/**
 * The signer page's `lang` once its configuration is read: the host's `language`, else its
 * `locale`, else the default table's. Decision: the language of the words, not of the formats —
 * `locale` is only a fallback, because a host that pins it has in practice translated the table
 * too (before `language` existed, the page's `lang` was its `locale`).
 */
export function pageLanguage(config: Pick<SignerConfig, 'language' | 'locale'>): string {
  return config.language ?? config.locale ?? DEFAULT_LANGUAGE;
}

/** How long an export's phrase stays on screen when the host does not say: 60 s. */
export const EXPORT_CLEAR_AFTER_MS = 60_000;

/** The file the page reads its configuration from, beside index.html. */
export const CONFIG_FILE = 'signer-config.json';

function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

const HEX_COLOUR = /^#[0-9a-fA-F]{3,8}$/;

/** The configuration in `raw`, checked; throws an Error naming the first bad field. */
export function parseSignerConfig(raw: unknown): SignerConfig {
  const fail = (field: string, expected: string): never => {
    throw new Error(`signer-config.json: ${field} must be ${expected}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('the file', 'a JSON object');
  const c = raw as Record<string, unknown>;
  const origins = c.allowedParentOrigins;
  if (!Array.isArray(origins) || origins.length === 0 || !origins.every(isOrigin)) fail('allowedParentOrigins', 'a non-empty array of origins (scheme://host[:port])');
  let baseUrl: string;
  try {
    const url = new URL(String(c.baseUrl));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    baseUrl = url.href.replace(/\/$/, '');
  } catch {
    return fail('baseUrl', 'the absolute URL of the wallet proxy');
  }
  const keys = c.trustedKeys;
  if (keys !== 'skip-verification' && !(Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string' && /^[0-9a-f]+$/i.test(k)))) {
    fail('trustedKeys', "an array of enclave public keys (hex) or 'skip-verification'");
  }
  // The host's table first: a host that names no wallet shows its table's `walletName`.
  const strings = c.strings === undefined ? undefined : checkStringOverrides(c.strings);
  const name = c.name ?? stringsWith(strings).walletName;
  if (typeof name !== 'string' || name === '' || name.length > 64) fail('name', 'a string of 1 to 64 characters');
  const config: { -readonly [K in keyof SignerConfig]: SignerConfig[K] } = {
    allowedParentOrigins: [...(origins as string[])],
    baseUrl,
    trustedKeys: keys === 'skip-verification' ? keys : [...(keys as string[])],
    name: name as string,
  };
  if (c.logoUrl !== undefined) {
    if (typeof c.logoUrl !== 'string' || !/^(https:\/\/|\/)/.test(c.logoUrl)) fail('logoUrl', 'an https URL or a path on the signer origin');
    config.logoUrl = c.logoUrl as string;
  }
  if (c.colors !== undefined) {
    const colors = c.colors as Record<string, unknown>;
    if (typeof colors !== 'object' || colors === null) fail('colors', 'an object');
    const out: { accent?: string; background?: string; text?: string } = {};
    for (const key of ['accent', 'background', 'text'] as const) {
      const value = colors[key];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !HEX_COLOUR.test(value)) fail(`colors.${key}`, 'a hex colour such as #1a73e8');
      out[key] = value as string;
    }
    config.colors = out;
  }
  if (c.exportClearAfterMs !== undefined) {
    const ms = c.exportClearAfterMs;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 5_000 || ms > 600_000) fail('exportClearAfterMs', 'a whole number of milliseconds from 5000 to 600000');
    config.exportClearAfterMs = ms as number;
  }
  if (c.highValue !== undefined) config.highValue = parseHighValue(c.highValue, fail);
  if (c.approvalLifetimeMs !== undefined) {
    const ms = c.approvalLifetimeMs;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 5_000 || ms > APPROVAL_MAX_MS) fail('approvalLifetimeMs', `a whole number of milliseconds from 5000 to ${APPROVAL_MAX_MS}`);
    config.approvalLifetimeMs = ms as number;
  }
  if (c.allowUnknown !== undefined) {
    if (typeof c.allowUnknown !== 'boolean') fail('allowUnknown', 'true or false');
    config.allowUnknown = c.allowUnknown as boolean;
  }
  if (strings !== undefined) config.strings = strings;
  if (c.locale !== undefined) config.locale = checkedLocale(c.locale, fail);
  if (c.language !== undefined) config.language = canonicalLocale(c.language) ?? fail('language', 'a BCP 47 language tag such as fr');
  if (c.timeZone !== undefined) {
    if (typeof c.timeZone !== 'string' || !isTimeZone(c.timeZone)) fail('timeZone', 'an IANA time zone such as Europe/Paris');
    config.timeZone = c.timeZone as string;
  }
  return config;
}

/** `raw` as a canonical BCP 47 tag (`fr-fr` → `fr-FR`), or undefined when Intl does not take it. */
export function canonicalLocale(raw: unknown): string | undefined {
  try {
    const [tag] = typeof raw === 'string' && raw !== '' ? Intl.getCanonicalLocales(raw) : [];
    return tag;
  } catch {
    return undefined; // RangeError: not a well-formed tag
  }
}

function checkedLocale(raw: unknown, fail: (field: string, expected: string) => never): string {
  return canonicalLocale(raw) ?? fail('locale', 'a BCP 47 language tag such as fr-FR');
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return name !== '';
  } catch {
    return false;
  }
}

function parseHighValue(raw: unknown, fail: (field: string, expected: string) => never): HighValue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('highValue', 'an object');
  const h = raw as Record<string, unknown>;
  for (const key of Object.keys(h)) if (key !== 'kinds' && key !== 'quoteAbove') fail(`highValue.${key}`, 'absent (highValue has kinds and quoteAbove)');
  const kinds = h.kinds ?? [];
  if (!Array.isArray(kinds) || !kinds.every((k) => (HIGH_VALUE_KINDS as readonly unknown[]).includes(k))) fail('highValue.kinds', `an array of ${HIGH_VALUE_KINDS.join(', ')}`);
  if (h.quoteAbove === undefined) return { kinds: [...(kinds as HighValueKind[])] };
  const q = h.quoteAbove as Record<string, unknown>;
  if (typeof q !== 'object' || q === null || !Number.isSafeInteger(q.amount) || (q.amount as number) < 0 || typeof q.currency !== 'string' || q.currency === '' || Object.keys(q).length !== 2) {
    fail('highValue.quoteAbove', 'an object { amount: a whole number ≥ 0 in the smallest unit, currency: a code }');
  }
  return { kinds: [...(kinds as HighValueKind[])], quoteAbove: { amount: q.amount as number, currency: q.currency as string } };
}

/** Reads and checks the configuration served beside the page. */
export async function loadSignerConfig(base: string): Promise<SignerConfig> {
  const response = await fetch(new URL(CONFIG_FILE, base), { credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) throw new Error(`signer-config.json: ${response.status}`);
  return parseSignerConfig(await response.json());
}
