/**
 * Frame mode at the proxy (THREAT-MODEL.md P5, security review C4): with `signerOrigins` declared,
 * only the signer frame creates or uses a session. The keys and the login live in the frame on its
 * own origin; without this rule any script of the app's origin could run the in-origin library
 * against the same proxy, with the user's app cookie and a key of its own (start a code login and
 * phish the code, put its own key's nonce in an OAuth round trip), and hold a session outside the
 * frame.
 *
 * The rule, decided here and nowhere else (`originRefusal`):
 * - **App routes** (`DEFAULT_APP_ROUTES`, plus the app's `appRoutes`): the unsigned calls the app's
 *   own page may make — reads of the route table, and the two plain creations of the library's
 *   table that need no signature (`POST /quotes`, `POST /cards`). They are forwarded from any
 *   origin, or none, **unless** the request carries the signature header or `Request-Id` (present
 *   at all, even empty): a signed leg is the frame's on every route.
 * - **Every other route is frame-only**, deny by default: a route nobody classified (one the app
 *   adds to `allow` and not to `appRoutes`) is the frame's. That covers every login start and
 *   verify (`POST /auth/credentials/{id}/challenge` and `/verify`: email and SMS codes, OAuth,
 *   passkeys, the legacy sealed key), refresh, every signed action's both legs (the frame sends
 *   both, P1), and the email-first login's `POST /login/start` (email-login.ts).
 * - A frame-only request is forwarded only when its `Origin` header is exactly one of the signer
 *   origins; otherwise `403 SIGNER_ORIGIN_REQUIRED`, before anything else is read or asked (no
 *   user lookup, no body, nothing sent to the service).
 * - **No `Origin` header** is not the signer: refused on frame-only routes. The proxy sits on the
 *   app's origin (or any origin but the signer's), so each of the frame's requests is cross-origin
 *   and a browser always sends `Origin` on those (Fetch standard: CORS requests carry it), on GET
 *   as on POST. A request without one is a same-origin GET of the app's page, a navigation, or not
 *   from a browser — none of them the frame. A page cannot set `Origin` itself (a forbidden header
 *   name), and `Origin: null` (sandboxed frames, opaque origins) is no signer origin.
 * - Not from a browser: the app's server-side code that calls the service itself
 *   (`provisionCustomer`, `findEmbeddedWallet`, `emailLoginProxy`'s own lookups) does not pass through
 *   this handler and is unaffected; a server that calls its own proxy over HTTP may still make the
 *   app routes' calls, and none of the frame's.
 *
 * Not declared (`signerOrigins` absent): in-origin mode, nothing here applies.
 */
import { invalidArgument } from '../errors.js';
import { compileRules, ruleKey, type AllowRule, type CompiledRule } from './routes.js';
import { ProxyRefusal } from './responses.js';

type RouteName = Pick<AllowRule, 'method' | 'pattern'>;

/** `value` when it is an exact http(s) origin (`new URL(value).origin === value`), else INVALID_ARGUMENT naming `name`. */
export function checkOrigin(value: unknown, name: string): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if ((url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value) return value;
    } catch {
      // refused below
    }
  }
  throw invalidArgument(name, 'exact origins such as https://signer.app.example');
}

/**
 * The routes of `DEFAULT_ALLOW` the app's own page may call in frame mode (unsigned): its reads,
 * and the two creations that take no signature. Extend with `[...DEFAULT_APP_ROUTES, { method, pattern }]`.
 */
export const DEFAULT_APP_ROUTES: readonly Pick<AllowRule, 'method' | 'pattern'>[] = Object.freeze(
  [
    { method: 'GET', pattern: '/auth/credentials' },
    { method: 'GET', pattern: '/auth/sessions' },
    { method: 'GET', pattern: '/auth/delegated-keys' },
    { method: 'GET', pattern: '/auth/delegated-keys/{delegatedKeyId}' },
    { method: 'GET', pattern: '/internal-account' },
    { method: 'GET', pattern: '/quotes/{quoteId}' },
    { method: 'GET', pattern: '/transactions' },
    { method: 'GET', pattern: '/customers/{customerId}' },
    { method: 'GET', pattern: '/cards/{cardId}' },
    { method: 'POST', pattern: '/quotes' },
    { method: 'POST', pattern: '/cards' },
  ].map((route) => Object.freeze(route as RouteName)),
);

/**
 * The routes that make or keep a session: never app routes, whatever `appRoutes` says (a login's
 * start and verify of every flow, and refresh). Signed legs of every route are refused anyway.
 */
const SESSION_ROUTES: ReadonlySet<string> = new Set([
  'POST /auth/credentials/{credentialId}/challenge',
  'POST /auth/credentials/{credentialId}/verify',
  'POST /auth/sessions/{sessionId}/refresh',
]);

/** The frame-mode rule, resolved at creation. */
export interface SignerOriginRule {
  readonly origins: ReadonlySet<string>;
  /** `METHOD pattern` of the app routes. */
  readonly appRoutes: ReadonlySet<string>;
  /** The lower-cased signature header's name (`ProxyOptions.signatureHeader`). */
  readonly signatureHeader: string;
}

/** Checks `signerOrigins` and `appRoutes`; `undefined` when no signer origin is declared (in-origin mode). */
export function signerOriginRule(origins: unknown, appRoutes: unknown, signatureHeader: string): SignerOriginRule | undefined {
  if (origins === undefined) {
    if (appRoutes !== undefined) throw invalidArgument('appRoutes', 'absent without signerOrigins');
    return undefined;
  }
  if (!Array.isArray(origins) || origins.length === 0) throw invalidArgument('signerOrigins', 'a non-empty array of origins such as https://signer.app.example');
  const checked = origins.map((origin: unknown) => checkOrigin(origin, 'signerOrigins'));
  const routes: CompiledRule[] = appRoutes === undefined ? compileRules(DEFAULT_APP_ROUTES as AllowRule[], { scopeRequired: false }) : compileRules(appRoutes as AllowRule[], { scopeRequired: false });
  for (const route of routes) {
    if (SESSION_ROUTES.has(ruleKey(route))) throw invalidArgument('appRoutes', `free of ${ruleKey(route)}: a login or a refresh is the signer frame's only`);
  }
  return { origins: new Set(checked), appRoutes: new Set(routes.map(ruleKey)), signatureHeader: signatureHeader.toLowerCase() };
}

/** True when the request is a signed leg: it carries the signature header or `Request-Id`, whatever their value. */
export function isSignedLeg(headers: Headers, rule: Pick<SignerOriginRule, 'signatureHeader'>): boolean {
  return headers.has(rule.signatureHeader) || headers.has('request-id');
}

/**
 * The refusal of a request the rule does not let through, else `undefined`. `route` is the matched
 * route's `METHOD pattern`, or `undefined` for a route outside the route table (the email-first
 * login's start): frame-only.
 */
export function originRefusal(rule: SignerOriginRule | undefined, route: string | undefined, headers: Headers): ProxyRefusal | undefined {
  if (rule === undefined) return undefined;
  const appRoute = route !== undefined && rule.appRoutes.has(route) && !isSignedLeg(headers, rule);
  if (appRoute) return undefined;
  const origin = headers.get('origin');
  if (origin !== null && rule.origins.has(origin)) return undefined;
  return new ProxyRefusal('SIGNER_ORIGIN_REQUIRED', 'Frame mode: only the signer frame may log in, refresh or sign through this proxy.', `Origin ${origin === null ? 'absent' : 'not a signer origin'}`);
}
