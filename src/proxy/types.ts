/** Public types of `embedded-wallet-signer/proxy`. */
import type { OwnerCacheOptions } from './owner-cache.js';
import type { OwnerResolver } from './owners.js';
import type { AllowRule, ProxyMethod, RecordKind } from './routes.js';
import type { WalletResolver } from './wallets.js';

export type { AllowRule, ProxyMethod } from './routes.js';

/**
 * What the `authorize` hook is told about a request that passed the allowlist.
 *
 * Which ids a route names, and where (path placeholder, declared query parameter, declared body
 * field), is in the route table (`DEFAULT_ALLOW`, src/proxy/routes.ts; the README's table is made
 * from it). Undeclared query parameters and id-named body fields, and two different values of one
 * kind, are refused (`400 INVALID_INPUT`) before the hook runs, so each field below is the only
 * value of that kind the service will act on. An id the request does not name is `undefined`.
 * A request lacking the id that scopes its route is refused (`403`, after the hook) unless its route
 * is in `allowUnscoped` or its scope is `'none'`.
 */
export interface AuthorizeContext {
  /** The request's method. */
  readonly method: ProxyMethod;
  /** The query forwarded: only the route's declared parameters (a customer filter set to the user's customer). */
  readonly query: URLSearchParams;
  /** Canonical path relative to the base URL (prefix stripped, each segment decoded once). */
  readonly path: string;
  /** The allow rule's pattern that matched. */
  readonly pattern: string;
  /** Every placeholder of the matched pattern, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The customer (`Customer:…`) the request names. */
  readonly customerId?: string;
  /** The internal account (`InternalAccount:…`) the request names. */
  readonly accountId?: string;
  /** The credential (`AuthMethod:…`) the request names. */
  readonly credentialId?: string;
  /** The session (`Session:…`) the request names. */
  readonly sessionId?: string;
  /** The delegated key the request names. */
  readonly delegatedKeyId?: string;
  /** The quote (`Quote:…`) the request names. */
  readonly quoteId?: string;
  /** The card (`Card:…`) the request names. */
  readonly cardId?: string;
  /** A card funding source; in the spec this is an internal account id. */
  readonly fundingSourceId?: string;
  /** From a `{transactionId}` placeholder (routes an app adds, e.g. `GET /transactions/{transactionId}`). */
  readonly transactionId?: string;
  /** The parsed JSON body, when the request has one. */
  readonly body?: unknown;
}

/**
 * Decides whether a request may go through. `request` is the caller's request (read its cookies
 * or headers to find the user); its body has already been read: use `context.body`. `true` forwards it; `false` answers
 * `403 {code:"FORBIDDEN"}`; a `Response` is sent to the caller as it is (nothing is forwarded).
 * A hook that throws gives `500 {code:"INTERNAL_ERROR"}` (its message is not sent or logged).
 */
export type AuthorizeHook = (
  request: Request,
  context: AuthorizeContext,
) => boolean | Response | Promise<boolean | Response>;

/** What the contact hooks are told: the signed-in user's customer and the route. */
export interface ContactContext {
  /** The signed-in user's customer. */
  readonly customerId: string;
  /** The request's method. */
  readonly method: ProxyMethod;
  /** The matched route's pattern, e.g. `/auth/credentials`. */
  readonly pattern: string;
}

/** The signed-in user, as the app knows them. */
export interface CurrentUser {
  /** The platform customer this user acts for. */
  readonly customerId: string;
  /**
   * Narrows the accounts the user may touch to these (they must also be the customer's). Applied
   * on every request: a change takes effect on the user's next request. A narrowed user's lists
   * are paged by the proxy with its own cursor (invariant S8 of src/proxy/scope.ts), and their
   * `Idempotency-Key`s are keyed by the narrowing too (S6). Default: every internal account of the
   * customer.
   */
  readonly accountIds?: readonly string[];
  /**
   * What a user narrowed by `accountIds` may do at the customer level (S12 of src/proxy/scope.ts).
   * `'read'` (the default for a narrowed user): read the customer, but no write that names the
   * customer without one of their accounts (`PATCH /customers/{id}`: the contact details every
   * wallet's OTP login is tied to; `POST /quotes` with a `source.customerId`), and no quote, card,
   * delegated key or transaction owned by the customer alone. `'write'`: the app allows both.
   * Ignored for a user who is not narrowed (they act for the whole customer).
   */
  readonly customerAccess?: 'read' | 'write';
}

/** Finds the signed-in user of a request (its session cookie, a bearer token…); `null` → 401 `LOGIN_REQUIRED`. */
export type CurrentUserResolver = (request: Request) => CurrentUser | null | undefined | Promise<CurrentUser | null | undefined>;

/** One finished request, as given to the logger. Never holds headers, bodies or credentials. */
export interface ProxyLogEntry {
  /** The request's method. */
  readonly method: string;
  /** The canonical path, or the request's path with non-printable characters escaped when it was refused as invalid. */
  readonly path: string;
  /** The status answered. */
  readonly status: number;
  /** How long the request took, in ms. */
  readonly ms: number;
  /** The proxy's own error code when the proxy answered by itself. */
  readonly code?: string;
  /** What to do about it, when the proxy knows (e.g. `set owners.card`); also at the end of the line. */
  readonly detail?: string;
}

/** Receives one line per request, e.g. `proxy POST /quotes 202 14ms`, and the same facts as an object. */
export type ProxyLogger = (line: string, entry: ProxyLogEntry) => void;

/**
 * The config of `createProxy`: the service, the platform credentials, and who may do what. Without
 * `currentUser` or `authorize` (or the explicit `dangerouslyAllowEveryCaller`) `createProxy`
 * refuses to be created: the proxy is deny by default.
 *
 * @example
 * ```ts
 * import { createProxy, nodeMiddleware, type ProxyOptions } from 'embedded-wallet-signer/proxy';
 *
 * const options: ProxyOptions = {
 *   baseUrl: 'https://api.example-payments.com/2025-10-13',
 *   clientId: process.env.SERVICE_CLIENT_ID!,
 *   clientSecret: process.env.SERVICE_CLIENT_SECRET!,
 *   prefix: '/api',
 *   // the signed-in user's customer: every id a request names must be theirs (null → 401)
 *   currentUser: async (request) => {
 *     const user = await userOf(request); // your own session lookup
 *     return user ? { customerId: user.customerId } : null;
 *   },
 * };
 * app.use(nodeMiddleware(createProxy(options)));
 * ```
 */
export interface ProxyOptions {
  /** The service's base URL, e.g. `https://api.example.com/2025-10-13` or the local sandbox's URL. */
  readonly baseUrl: string;
  /** The platform client id (HTTP Basic to the service). Read it from the server's environment. */
  readonly clientId: string;
  /** The platform client secret (HTTP Basic to the service): it never leaves the proxy, never reaches a log. */
  readonly clientSecret: string;
  /** The routes that are forwarded, with what scopes each. Default `DEFAULT_ALLOW`; extend it with `[...DEFAULT_ALLOW, …]`. */
  readonly allow?: readonly AllowRule[];
  /**
   * The signed-in user of a request: turns on the ownership checks (every id the request names must
   * be this user's customer, accounts, or things of theirs, looked up with the platform
   * credentials; `null` → `401 LOGIN_REQUIRED`), sets a list's customer filter to the user's
   * customer, checks every record of an answer and the ids of an error answer, and keys
   * `Idempotency-Key`s per customer and narrowing (invariants S1–S10 of src/proxy/scope.ts). See `src/proxy/README.md`.
   */
  readonly currentUser?: CurrentUserResolver;
  /**
   * How each kind of record names its owner, for the ownership lookups and the answer checks: a
   * resolver per kind replaces the default (`DEFAULT_OWNERS`, documented in src/proxy/owners.ts),
   * e.g. `owners: { card: (r) => [{ customerId: String(r.cardholderId) }] }` for a service that
   * names a card's cardholder. A resolver that finds no owner makes the proxy refuse.
   */
  readonly owners?: Partial<Record<RecordKind, OwnerResolver>>;
  /** The ownership lookups' cache of facts about the service: `{ ttlMs }` (default 60 000) and `{ maxEntries }` (default 10 000). */
  readonly ownershipCache?: OwnerCacheOptions;
  /** A further rule, run after the ownership checks (or alone). `true` forwards. */
  readonly authorize?: AuthorizeHook;
  /**
   * Routes that may be forwarded although the request lacks the id that scopes its route (refused
   * with `403` otherwise, even when `authorize` says yes). Default none. A route whose `scope` is
   * `'none'` needs no entry here.
   */
  readonly allowUnscoped?: readonly Pick<AllowRule, 'method' | 'pattern'>[];
  /**
   * Called when any route answers `409 EMAIL_OTP_EMAIL_ALREADY_EXISTS` or
   * `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS` (`PATCH /customers/{id}`, `POST /auth/credentials` for an
   * OTP credential, …): that answer tells the user the address belongs to some other customer (a
   * membership oracle). Return a `Response` to send instead, or `undefined` to pass the service's
   * answer on. Without it a first leg's conflict is answered with a decoy `202` challenge shaped
   * like the free contact's, whose signed retry (once its stamp verifies) and every other conflict
   * get `409 CONTACT_UNAVAILABLE` (one answer for email, phone and every route; invariant S16,
   * src/proxy/contact-decoy.ts).
   */
  readonly onContactConflict?: (request: Request, conflict: ContactContext & { readonly code: string }) => Response | undefined | Promise<Response | undefined>;
  /**
   * The rate limit of the contact oracle: called before forwarding each request of a route that can
   * answer a contact conflict (`PATCH /customers/{customerId}`, `POST /auth/credentials`), after the
   * ownership checks. Return a `Response` to send instead (a `429` with `Retry-After` once your
   * limit per customer is reached), or `undefined` to forward. Default: none.
   */
  readonly contactRateLimit?: (request: Request, context: ContactContext) => Response | undefined | Promise<Response | undefined>;
  /**
   * Which internal accounts are embedded wallets (the ones with credentials and sessions): `true`,
   * `false`, or `undefined` to let the proxy ask the service (`GET /auth/credentials?accountId=`
   * answers only for a wallet, spec §4.5). Default: the record's `type` when it has one, else ask
   * (src/proxy/wallets.ts): the spec defines no field that says so.
   */
  readonly isWallet?: WalletResolver;
  /**
   * Frame mode: the origins of the signer frame (exact origins, e.g. `['https://signer.app.example']`),
   * where the keys and the login live. When given, a request that logs in (every flow's start and
   * verify), refreshes, carries the signature header or `Request-Id`, or is on a route not among
   * `appRoutes`, is forwarded only when its `Origin` is one of them; otherwise `403
   * SIGNER_ORIGIN_REQUIRED` (a request without `Origin` included). So no script of the app's own
   * origin gets a session key outside the frame (THREAT-MODEL.md P5, src/proxy/signer-origin.ts).
   * Absent: in-origin mode, every origin may log in and sign.
   */
  readonly signerOrigins?: readonly string[];
  /**
   * With `signerOrigins`: the routes the app's own page may still call, unsigned, from any origin.
   * Default `DEFAULT_APP_ROUTES` (the reads of `DEFAULT_ALLOW`, `POST /quotes`, `POST /cards`);
   * extend it with `[...DEFAULT_APP_ROUTES, { method, pattern }]` for routes you add to `allow`.
   * A login's challenge or verify, or a refresh, here is refused at creation.
   */
  readonly appRoutes?: readonly Pick<AllowRule, 'method' | 'pattern'>[];
  /**
   * Forward every allowlisted call of every caller, without `currentUser` or `authorize`: any
   * visitor then reads every customer's accounts and transactions. Only for a proxy that is not
   * reachable by users (tests, a trusted internal network). Without it, `createProxy` refuses to be
   * created unless `currentUser` or `authorize` is given.
   */
  readonly dangerouslyAllowEveryCaller?: true;
  /** Largest request body accepted, in bytes. Default 1 MiB (1 048 576). */
  readonly maxBodyBytes?: number;
  /** Time allowed for the whole upstream exchange (headers and body), in ms. Default 30 000. */
  readonly timeoutMs?: number;
  /** The fetch used to reach the service. Default `globalThis.fetch`, looked up per request. */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Default: one `console.info` line per request. `false` turns logging off. */
  readonly logger?: ProxyLogger | false;
  /** A path prefix the proxy is mounted under (e.g. `/api`); stripped before matching. */
  readonly prefix?: string;
  /** The wallet signature header's name. Default `Service-Wallet-Signature`. */
  readonly signatureHeader?: string;
  /**
   * Further request headers to forward, besides the signature header, `Request-Id`,
   * `Idempotency-Key` (with `currentUser`: replaced by a keyed hash of the user's customer, their
   * `accountIds` and the key, so no two customers share a key), `Content-Type` and `Accept`. `Authorization`, `Cookie` and hop-by-hop
   * headers can never be forwarded.
   */
  readonly forwardHeaders?: readonly string[];
}

/** The handler `createProxy` returns: fetch-standard, plus the settings the Node adapter reuses. */
export interface ProxyHandler {
  /** Answers one request: forwarded to the service, or refused by the proxy (`{ code, reason }`). */
  (request: Request): Promise<Response>;
  /** The mount prefix, `''` when none. */
  readonly prefix: string;
  /** The largest request body accepted, in bytes. */
  readonly maxBodyBytes: number;
}
