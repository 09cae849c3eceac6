/**
 * The email-first login's two cookies (email-login.ts): the login ticket (set by the start route,
 * read by the verify) and the app session (set when the verify answers a session). Each value is
 * `base64url(JSON payload) "." base64url(HMAC-SHA256(key, purpose ‖ 0 ‖ payload))`.
 *
 * Decisions (numbered with email-login.ts's, L1–L8; src/proxy/README.md "Email-first login"):
 * - L5: the HMAC key is derived from the app's secret (≥ 32 characters) and the purpose is signed
 *   with the payload, so a ticket is never read as a session and the reverse; a value whose MAC,
 *   JSON, purpose or expiry does not check is read as no cookie at all (`null`), never as an error;
 *   so is a value not spelled as `sealCookie` spells it (non-canonical base64url), so one cookie has
 *   one spelling.
 * - L6: both cookies are `HttpOnly`, `SameSite=Lax` (or `Strict` when the app says), `Path` set,
 *   and `Secure` when the request came over https (or when the app says `secure: true`).
 * - The comparison of MACs is WebCrypto's `verify` (constant time), not a string compare.
 */
import { invalidArgument } from '../errors.js';

export type CookiePurpose = 'ticket' | 'session';

/** The app session a verified login sets: who is signed in, until when. */
export interface AppSession {
  /** The customer (`Customer:…`) the login was for. */
  readonly customerId: string;
  /** Its embedded-wallet account the login signed in to. */
  readonly accountId: string;
  /** The wallet session the service answered, when it named one (logging it out clears the cookie). */
  readonly sessionId?: string;
  /** Milliseconds since the epoch after which the cookie is not read. */
  readonly expiresAt: number;
}

/** Cookie attributes the app may choose. */
export interface LoginCookieOptions {
  /** Name of the app session cookie. Default `ews_session`. */
  readonly name?: string;
  /** Default `'Lax'`. `'None'` is refused: the cookie must not ride cross-site requests. */
  readonly sameSite?: 'Lax' | 'Strict';
  /** Default: `true` when the request's URL is https. */
  readonly secure?: boolean;
  /** Lifetime of the app session cookie, in seconds. Default 7 days. */
  readonly maxAgeSeconds?: number;
}

export const DEFAULT_SESSION_COOKIE = 'ews_session';
export const TICKET_COOKIE = 'ews_login';
export const DEFAULT_SESSION_MAX_AGE_S = 7 * 24 * 3600;
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

export function checkSecret(secret: unknown, name = 'secret'): string {
  if (typeof secret !== 'string' || secret.length < 32) throw invalidArgument(name, 'a random string of at least 32 characters (e.g. openssl rand -base64 32), kept on the server');
  return secret;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', encoder.encode(`embedded-wallet-signer login cookie\0${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    if (keys.size > 16) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

const b64url = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

function fromB64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    // Canonical only: a last character that differs in its unused low bits decodes to the same
    // bytes, and would make a second spelling of one cookie (an edited value that still opens).
    return b64url(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

const signedBytes = (purpose: CookiePurpose, payload: string): Uint8Array<ArrayBuffer> => encoder.encode(`${purpose}\0${payload}`);

/** Signs `payload` (with its `exp`, ms since the epoch) for `purpose`. */
export async function sealCookie(secret: string, purpose: CookiePurpose, payload: Record<string, unknown> & { exp: number }): Promise<string> {
  const body = b64url(encoder.encode(JSON.stringify(payload)));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), signedBytes(purpose, body)));
  return `${body}.${b64url(mac)}`;
}

/** The payload of a cookie value signed for `purpose` and not expired at `now`, or `null`. */
export async function openCookie(secret: string, purpose: CookiePurpose, value: string | undefined, now = Date.now()): Promise<Record<string, unknown> | null> {
  if (value === undefined || value.length > 4096) return null;
  const dot = value.indexOf('.');
  if (dot <= 0 || dot !== value.lastIndexOf('.')) return null;
  const body = value.slice(0, dot);
  const mac = fromB64url(value.slice(dot + 1));
  const bytes = fromB64url(body);
  if (mac === undefined || bytes === undefined || mac.length !== 32) return null;
  if (!(await crypto.subtle.verify('HMAC', await hmacKey(secret), mac, signedBytes(purpose, body)))) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const exp = (payload as { exp?: unknown }).exp;
  if (typeof exp !== 'number' || !(exp > now)) return null;
  return payload as Record<string, unknown>;
}

/** The value of cookie `name` in the request's `Cookie` header (the first one), or undefined. */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A `Set-Cookie` value; `value: null` clears the cookie. */
export function setCookie(request: Request, options: LoginCookieOptions, name: string, value: string | null, path: string, maxAgeSeconds: number): string {
  const secure = options.secure ?? new URL(request.url).protocol === 'https:';
  return [
    `${name}=${value ?? ''}`,
    `Path=${path}`,
    `Max-Age=${value === null ? 0 : maxAgeSeconds}`,
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Lax'}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/**
 * The app session the email-first login set on this request (its cookie checked: signature,
 * purpose, expiry), or `null`. What an app's `currentUser`, its pages and its
 * `/api/wallet-bootstrap` read:
 *
 * ```ts
 * currentUser: async (request) => {
 *   const session = await readAppSession(request, process.env.APP_SESSION_SECRET);
 *   return session && { customerId: session.customerId };
 * }
 * ```
 */
export async function readAppSession(request: Request, secret: string, options: Pick<LoginCookieOptions, 'name'> = {}): Promise<AppSession | null> {
  const payload = await openCookie(checkSecret(secret), 'session', cookieValue(request, options.name ?? DEFAULT_SESSION_COOKIE));
  if (payload === null) return null;
  const { c, a, s, exp } = payload;
  if (typeof c !== 'string' || c === '' || typeof a !== 'string' || a === '' || (s !== undefined && typeof s !== 'string')) return null;
  return { customerId: c, accountId: a, ...(typeof s === 'string' ? { sessionId: s } : {}), expiresAt: exp as number };
}
