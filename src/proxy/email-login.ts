/**
 * Email-first login: the wallet's email (or SMS) code login IS the app's login. For apps with no
 * users of their own; apps that have users keep `createProxy({ currentUser })` unchanged.
 *
 * ```ts
 * const proxy = emailLoginProxy({ ...serviceFromEnv(process.env), prefix: '/api', secret: process.env.APP_SESSION_SECRET! });
 * // browser: await wallet.startOtpLogin({ email }) → login.verify(code) → signed in, cookie set
 * ```
 *
 * Routes (under the proxy's prefix) and decisions, numbered L1–L8 (also in src/proxy/README.md,
 * "Email-first login"; test/attack/email-login.test.ts attacks each):
 * - `POST /login/start {email}` (or `{phone}`): L1 the customer is the app hook's `findCustomer`
 *   answer, or by default (email only) the one `provisionCustomer` finds or creates with
 *   `platformCustomerId = 'email-sha256:' + hex(SHA-256(lowercased email))`: every email gets a
 *   customer, so the answer cannot depend on whether it was known — L2: the same `200 {accountId,
 *   credentialId, type, otpEncryptionTargetBundle}` for a new and a known email (the same service
 *   calls but one lookup), and one `502 LOGIN_UNAVAILABLE` for every failure after the input check.
 *   A `findCustomer` that answers `null` gets `403 LOGIN_REFUSED`: it must decide by a rule about
 *   the address (a domain allow-list), never by whether it is known, or the answer tells.
 *   L3 rate limit per contact and per client address before anything is looked up (login-limit.ts).
 *   A phone number needs `findCustomer` (the service's SMS credential is added by a signed-in
 *   wallet, so a new customer has none): without it `{phone}` is `400 INVALID_INPUT`.
 * - L4 the start sets a login ticket (signed cookie `ews_login`, 10 minutes, Path = the prefix)
 *   naming the customer, account and credential. With it, and only for POST `/auth/credentials/
 *   {that credential}/challenge` (resend, rate-limited as a start) and `/verify`, the request's
 *   user is that customer narrowed to that account; every other route reads the app session.
 *   The proxy's ownership checks still run on those two routes.
 * - L5, L6 the cookies' signature (HMAC-SHA256 with a key derived from `secret`, purpose bound) and
 *   attributes (HttpOnly, SameSite=Lax|Strict, Secure over https): login-cookie.ts.
 * - L7 when the service answers that verify `200` (the session), the response sets the app session
 *   cookie (login-cookie.ts, `readAppSession`) naming the ticket's customer and account, and
 *   clears the ticket. A 202 (the signature challenge leg) or any refusal sets nothing.
 * - With `signerOrigins` (frame mode), `POST /login/start` is the signer frame's only, like every
 *   login route (`403 SIGNER_ORIGIN_REQUIRED` from any other origin; src/proxy/signer-origin.ts);
 *   `POST /login/logout` stays open to the app's page.
 * - L8 the app session cookie is cleared by `POST /login/logout` and when `DELETE
 *   /auth/sessions/{id}` of the session it names is done (200 or 204; its 202 signature challenge
 *   is not); a done refresh (200, 201) of that session
 *   re-points the cookie at the new session's id (same customer, account and expiry).
 */
import { invalidArgument } from '../errors.js';
import { isJsonContentType, parseJsonBody, readBody } from './body.js';
import { createProxy } from './create-proxy.js';
import { checkSecret, cookieValue, DEFAULT_SESSION_COOKIE, DEFAULT_SESSION_MAX_AGE_S, openCookie, readAppSession, sealCookie, setCookie, TICKET_COOKIE, type LoginCookieOptions } from './login-cookie.js';
import { DEFAULT_LIMITS, fixedWindow, type LoginLimits } from './login-limit.js';
import type { CurrentUser } from './ownership.js';
import { canonicalSegments, stripPrefix } from './path.js';
import { findEmbeddedWallet, provisionCustomer } from './provision.js';
import { errorResponse, ProxyRefusal } from './responses.js';
import { DEFAULT_SIGNATURE_HEADER } from './headers.js';
import { originRefusal, signerOriginRule } from './signer-origin.js';
import { clientFromOptions, listData } from './service.js';
import type { ProxyHandler, ProxyOptions } from './types.js';

/** What the user typed on the login page: an email, or a phone number in E.164. */
export type LoginContact = { readonly email: string } | { readonly phone: string };

/** The customer a login is for: found in the app's records, or provisioned. */
export interface LoginCustomer {
  /** The platform customer (`Customer:…`) the login signs in as. */
  readonly customerId: string;
  /** Its embedded-wallet account; looked up (`findEmbeddedWallet`) when absent. */
  readonly accountId?: string;
}

/** `emailLoginProxy`'s options: the proxy's (but `dangerouslyAllowEveryCaller`), and the login's. */
export interface EmailLoginProxyOptions extends Omit<ProxyOptions, 'dangerouslyAllowEveryCaller' | 'currentUser'> {
  /** Signs the cookies (HMAC-SHA256): at least 32 random characters, the same on every server instance. */
  readonly secret: string;
  /**
   * Finds (or provisions) the customer for a contact; `null` refuses it (`403 LOGIN_REFUSED`: decide
   * by a rule about the address, never by whether it is known). Default: email →
   * `provisionCustomer` (find or create); phone → refused as not enabled.
   */
  readonly findCustomer?: (contact: LoginContact, request: Request) => Promise<LoginCustomer | null>;
  /** Default: 5 starts per contact and 30 per client address, each per 15 minutes. */
  readonly limits?: LoginLimits;
  /**
   * The client's address, for the per-address limit. Default: the last `X-Forwarded-For` entry
   * (the one your nearest reverse proxy added), else one shared bucket for all.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
  /** The session cookie's name, SameSite, Secure and lifetime (defaults: `ews_session`, Lax, https only, 7 days). */
  readonly cookie?: LoginCookieOptions;
  /**
   * Who is signed in outside the login's own routes. Default: the app session cookie's customer
   * (`readAppSession`). Give one to narrow it (`accountIds`) or to read your own records too.
   */
  readonly currentUser?: (request: Request) => CurrentUser | null | undefined | Promise<CurrentUser | null | undefined>;
}

interface Ticket {
  readonly customerId: string;
  readonly accountId: string;
  readonly credentialId: string;
  /** The contact's limiter key. */
  readonly contact: string;
}

const TICKET_TTL_MS = 10 * 60_000;
const EMAIL = /^[^\s@"(),:;<>[\\\]]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const PHONE = /^\+[1-9][0-9]{6,14}$/;
const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The contact of a start body: exactly one of `email`, `phone`, normalised; a refusal otherwise. */
function contactOf(body: unknown): LoginContact | ProxyRefusal {
  const bad = new ProxyRefusal('INVALID_INPUT', 'Send {"email": "…"} or {"phone": "+…"} (E.164).');
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length !== 1) return bad;
  const { email, phone } = body as { email?: unknown; phone?: unknown };
  if (typeof email === 'string') {
    const normal = email.trim().toLowerCase();
    return normal.length <= 254 && EMAIL.test(normal) ? { email: normal } : bad;
  }
  if (typeof phone === 'string') return PHONE.test(phone.trim()) ? { phone: phone.trim() } : bad;
  return bad;
}

function defaultAddress(request: Request): string {
  const forwarded = request.headers.get('x-forwarded-for');
  const last = forwarded?.split(',').pop()?.trim();
  return last === undefined || last === '' ? 'unknown' : last;
}

function tooMany(ms: number): Response {
  const response = errorResponse('RATE_LIMITED', 'Too many login attempts: try again later.');
  response.headers.set('retry-after', String(Math.max(1, Math.ceil(ms / 1000))));
  return response;
}

/** A response with `Set-Cookie` lines added (the original's headers may be immutable). */
function withCookies(response: Response, cookies: readonly string[]): Response {
  const headers = new Headers(response.headers);
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * The proxy in email-first login mode: `createProxy`'s handler (its routes, checks and adapters)
 * plus the login routes and cookies above. Throws `WalletError INVALID_ARGUMENT` for bad options.
 */
export function emailLoginProxy(options: EmailLoginProxyOptions): ProxyHandler {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { secret, findCustomer, limits = {}, clientAddress, cookie = {}, currentUser: appUser, ...proxyOptions } = options;
  checkSecret(secret);
  for (const [name, value] of [['findCustomer', findCustomer], ['clientAddress', clientAddress], ['currentUser', appUser]] as const) {
    if (value !== undefined && typeof value !== 'function') throw invalidArgument(name, 'a function');
  }
  if ('dangerouslyAllowEveryCaller' in options) throw invalidArgument('dangerouslyAllowEveryCaller', 'absent: the login mode decides who is signed in');
  const sameSite = cookie.sameSite;
  if (sameSite !== undefined && sameSite !== 'Lax' && sameSite !== 'Strict') throw invalidArgument('cookie.sameSite', "'Lax' or 'Strict'");
  const maxAge = cookie.maxAgeSeconds ?? DEFAULT_SESSION_MAX_AGE_S;
  if (!Number.isSafeInteger(maxAge) || maxAge <= 0) throw invalidArgument('cookie.maxAgeSeconds', 'a positive integer');
  const sessionCookie = cookie.name ?? DEFAULT_SESSION_COOKIE;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionCookie) || sessionCookie === TICKET_COOKIE) throw invalidArgument('cookie.name', 'a cookie name of letters, digits, _ and -');
  const perContact = fixedWindow(limits.perContact ?? DEFAULT_LIMITS.perContact);
  const perAddress = fixedWindow(limits.perAddress ?? DEFAULT_LIMITS.perAddress);
  const service = { baseUrl: options.baseUrl, clientId: options.clientId, clientSecret: options.clientSecret, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  const client = clientFromOptions(service);

  let prefixSegments: string[] = [];
  /** The login's relative path, or undefined when it is not under the prefix or not canonical. */
  const relative = (request: Request): string[] | undefined => {
    const segments = canonicalSegments(new URL(request.url).pathname);
    return segments instanceof ProxyRefusal ? undefined : stripPrefix(segments, prefixSegments);
  };

  /** L4: the ticket of a request to its own credential's challenge or verify, else undefined. */
  const ticketFor = async (request: Request): Promise<(Ticket & { action: string }) | undefined> => {
    const path = relative(request);
    if (request.method.toUpperCase() !== 'POST' || path?.length !== 4 || path[0] !== 'auth' || path[1] !== 'credentials') return undefined;
    const action = path[3] as string;
    if (action !== 'challenge' && action !== 'verify') return undefined;
    const payload = await openCookie(secret, 'ticket', cookieValue(request, TICKET_COOKIE));
    if (payload === null || payload.k !== path[2]) return undefined;
    const { c, a, k, x } = payload;
    if (typeof c !== 'string' || typeof a !== 'string' || typeof k !== 'string' || typeof x !== 'string') return undefined;
    return { customerId: c, accountId: a, credentialId: k, contact: x, action };
  };

  const currentUser = async (request: Request): Promise<CurrentUser | null> => {
    const ticket = await ticketFor(request);
    if (ticket !== undefined) return { customerId: ticket.customerId, accountIds: [ticket.accountId] };
    if (appUser !== undefined) return (await appUser(request)) ?? null;
    const session = await readAppSession(request, secret, { name: sessionCookie });
    return session === null ? null : { customerId: session.customerId };
  };
  const inner = createProxy({ ...proxyOptions, currentUser });
  // P5 (signer-origin.ts): in frame mode a login is started by the signer frame only.
  const frameRule = signerOriginRule(proxyOptions.signerOrigins, proxyOptions.appRoutes, proxyOptions.signatureHeader ?? DEFAULT_SIGNATURE_HEADER);
  prefixSegments = inner.prefix === '' ? [] : inner.prefix.slice(1).split('/');
  const cookiePath = inner.prefix === '' ? '/' : inner.prefix;

  /** L3: counts the attempt against both keys; the wait when either is spent. */
  const limited = (request: Request, contactKey: string): number => {
    const address = (clientAddress ?? defaultAddress)(request) ?? 'unknown';
    return Math.max(perContact.take(contactKey), perAddress.take(`a:${address}`));
  };

  const customerFor = async (contact: LoginContact, request: Request): Promise<LoginCustomer | null> => {
    if (findCustomer !== undefined) return findCustomer(contact, request);
    if (!('email' in contact)) throw new ProxyRefusal('INVALID_INPUT', 'Phone login is not enabled on this server.');
    const { customerId, accountId } = await provisionCustomer(service, { platformCustomerId: `email-sha256:${await sha256Hex(contact.email)}`, email: contact.email });
    return { customerId, accountId };
  };

  const start = async (request: Request): Promise<Response> => {
    if (!isJsonContentType(request.headers.get('content-type'))) return errorResponse('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    const bytes = await readBody(request, 4096);
    if (bytes instanceof ProxyRefusal) return errorResponse(bytes.code, bytes.reason);
    const body = parseJsonBody(bytes);
    if (body instanceof ProxyRefusal) return errorResponse(body.code, body.reason);
    const contact = contactOf(body);
    if (contact instanceof ProxyRefusal) return errorResponse(contact.code, contact.reason);
    const contactKey = 'email' in contact ? `e:${contact.email}` : `p:${contact.phone}`;
    const wait = limited(request, contactKey);
    if (wait > 0) return tooMany(wait);
    const type = 'email' in contact ? 'EMAIL_OTP' : 'SMS_OTP';
    let found: LoginCustomer | null;
    try {
      found = await customerFor(contact, request);
    } catch (e) {
      if (e instanceof ProxyRefusal) return errorResponse(e.code, e.reason);
      return unavailable();
    }
    if (found === null) return errorResponse('LOGIN_REFUSED', 'This address cannot sign in here.');
    try {
      const { customerId } = found;
      if (typeof customerId !== 'string' || customerId === '') return unavailable();
      const accountId = found.accountId ?? (await findEmbeddedWallet(service, customerId));
      if (typeof accountId !== 'string' || accountId === '') return unavailable();
      const credentials = await client.call('GET', '/auth/credentials', { query: { accountId } });
      const credential = credentials.status === 200 ? listData(credentials).find((c) => c.type === type && typeof c.id === 'string') : undefined;
      if (credential === undefined) return unavailable();
      const credentialId = String(credential.id);
      const challenge = await client.call('POST', `/auth/credentials/${encodeURIComponent(credentialId)}/challenge`, { body: {} });
      if (challenge.status === 429) return tooMany(60_000);
      const bundle = (challenge.body as { otpEncryptionTargetBundle?: unknown } | undefined)?.otpEncryptionTargetBundle;
      if (challenge.status !== 200 || typeof bundle !== 'string' || bundle === '') return unavailable();
      const ticket = await sealCookie(secret, 'ticket', { c: customerId, a: accountId, k: credentialId, x: contactKey, exp: Date.now() + TICKET_TTL_MS });
      return new Response(JSON.stringify({ accountId, credentialId, type, otpEncryptionTargetBundle: bundle }), {
        status: 200,
        headers: { ...NO_STORE, 'set-cookie': setCookie(request, cookie, TICKET_COOKIE, ticket, cookiePath, TICKET_TTL_MS / 1000) },
      });
    } catch {
      return unavailable();
    }
  };

  // Like createProxy's handler, it never throws: an unexpected failure is a 500 without details.
  const handler = (request: Request): Promise<Response> => route(request).catch(() => errorResponse('INTERNAL_ERROR', 'The login failed to handle the request.'));
  const route = async (request: Request): Promise<Response> => {
    const path = relative(request);
    const method = request.method.toUpperCase();
    if (path?.[0] === 'login' && path.length === 2) {
      if (method !== 'POST') return errorResponse('METHOD_NOT_ALLOWED', 'POST only.');
      if (path[1] === 'start') {
        const foreign = originRefusal(frameRule, undefined, request.headers);
        return foreign === undefined ? start(request) : errorResponse(foreign.code, foreign.reason);
      }
      if (path[1] === 'logout') return new Response(null, { status: 204, headers: { 'cache-control': 'no-store', 'set-cookie': setCookie(request, cookie, sessionCookie, null, '/', 0) } });
      return errorResponse('NOT_FOUND', 'No such route.');
    }
    const ticket = await ticketFor(request);
    if (ticket?.action === 'challenge') {
      const wait = limited(request, ticket.contact);
      if (wait > 0) return tooMany(wait);
    }
    const response = await inner(request);
    if (ticket?.action === 'verify' && response.status === 200) {
      let answer: unknown;
      try {
        answer = await response.clone().json();
      } catch {
        return response;
      }
      const sessionId = (answer as { id?: unknown } | null)?.id;
      const value = await sealCookie(secret, 'session', { c: ticket.customerId, a: ticket.accountId, ...(typeof sessionId === 'string' ? { s: sessionId } : {}), exp: Date.now() + maxAge * 1000 });
      return withCookies(response, [setCookie(request, cookie, sessionCookie, value, '/', maxAge), setCookie(request, cookie, TICKET_COOKIE, null, cookiePath, 0)]);
    }
    // A 202 is the signed-retry challenge (the session is not ended or replaced yet): only the done answer counts.
    const ok = response.status === 200 || response.status === 201 || response.status === 204;
    if (ok && path?.[0] === 'auth' && path[1] === 'sessions' && ((method === 'DELETE' && path.length === 3) || (method === 'POST' && path.length === 4 && path[3] === 'refresh'))) {
      const session = await readAppSession(request, secret, { name: sessionCookie });
      if (session?.sessionId === undefined || session.sessionId !== path[2]) return response;
      if (method === 'DELETE') return withCookies(response, [setCookie(request, cookie, sessionCookie, null, '/', 0)]);
      // L8: a refresh replaces the session; the cookie follows it (same customer, account and expiry).
      const next = await response.clone().json().then((b: { id?: unknown } | null) => b?.id, () => undefined);
      if (typeof next !== 'string' || next === '' || next === session.sessionId) return response;
      const value = await sealCookie(secret, 'session', { c: session.customerId, a: session.accountId, s: next, exp: session.expiresAt });
      return withCookies(response, [setCookie(request, cookie, sessionCookie, value, '/', Math.max(1, Math.floor((session.expiresAt - Date.now()) / 1000)))]);
    }
    return response;
  };
  return Object.defineProperties(handler, Object.getOwnPropertyDescriptors(inner)) as unknown as ProxyHandler;
}

function unavailable(): Response {
  return errorResponse('LOGIN_UNAVAILABLE', 'The login could not be started: try again later.');
}
