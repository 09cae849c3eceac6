/** Checking `createProxy`'s options once, at creation. */
import { invalidArgument, WalletError } from '../errors.js';
import { compileRules, DEFAULT_ALLOW, RECORD_KINDS, ruleKey, type CompiledRule } from './routes.js';
import { DEFAULT_SIGNATURE_HEADER, forwardedHeaderNames } from './headers.js';
import { canonicalSegments } from './path.js';
import { ProxyRefusal } from './responses.js';
import { ownership, type CurrentUserResolver, type Ownership } from './ownership.js';
import { DEFAULT_OWNERS, type OwnerResolvers } from './owners.js';
import { idempotencyKeys } from './idempotency-key.js';
import { decoys, type Decoys } from './contact-decoy.js';
import { serviceClient, serviceCredentials } from './service.js';
import { signerOriginRule, type SignerOriginRule } from './signer-origin.js';
import type { AuthorizeHook, ProxyLogger, ProxyOptions } from './types.js';

/** `ProxyOptions.maxBodyBytes` by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** `ProxyOptions.timeoutMs` by default: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ProxyConfig {
  readonly baseUrl: string;
  /** `Basic base64(clientId:clientSecret)`. */
  readonly authorization: string;
  /** Byte strings a response must not contain: the encoded credentials, and the secret itself when long enough to be told apart. */
  readonly secrets: readonly Uint8Array[];
  readonly rules: readonly CompiledRule[];
  readonly authorize: AuthorizeHook | undefined;
  readonly currentUser: CurrentUserResolver | undefined;
  readonly ownership: Ownership | undefined;
  readonly owners: OwnerResolvers;
  /** S6 of scope.ts: the forwarded Idempotency-Key of a customer's key. */
  readonly idempotencyKey: ReturnType<typeof idempotencyKeys>;
  readonly onContactConflict: ProxyOptions['onContactConflict'];
  /** S16 of scope.ts: decoy challenges for first legs answered with a contact conflict (contact-decoy.ts). */
  readonly decoys: Decoys;
  readonly contactRateLimit: ProxyOptions['contactRateLimit'];
  /** `false` only with `dangerouslyAllowEveryCaller`: nothing is checked. */
  readonly checked: boolean;
  /** `METHOD pattern` of the routes forwarded although they name no id. */
  readonly unscoped: ReadonlySet<string>;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  readonly logger: ProxyLogger | undefined;
  readonly prefix: string;
  readonly prefixSegments: readonly string[];
  readonly forwarded: readonly string[];
  /** Frame mode: who may log in, refresh and sign (signer-origin.ts); `undefined` in-origin. */
  readonly signerOrigin: SignerOriginRule | undefined;
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw invalidArgument(name, 'a positive integer');
  return value;
}

const defaultLogger: ProxyLogger = (line) => console.info(line);

export function resolveOptions(options: ProxyOptions): ProxyConfig {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { clientSecret } = options;
  const { baseHref, token } = serviceCredentials(options);
  const encoder = new TextEncoder();
  const secrets = [encoder.encode(token)];
  // A very short secret could occur in any body by chance; the encoded pair is checked always.
  if (clientSecret.length >= 8) secrets.push(encoder.encode(clientSecret));

  let prefix = '';
  let prefixSegments: string[] = [];
  if (options.prefix !== undefined && options.prefix !== '' && options.prefix !== '/') {
    const segments = typeof options.prefix === 'string' ? canonicalSegments(options.prefix.replace(/\/$/, '')) : undefined;
    if (segments === undefined || segments instanceof ProxyRefusal) throw invalidArgument('prefix', 'a path such as /api');
    prefixSegments = segments;
    prefix = '/' + segments.join('/');
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') throw invalidArgument('authorize', 'a function');
  if (options.currentUser !== undefined && typeof options.currentUser !== 'function') throw invalidArgument('currentUser', 'a function (request) => {customerId} | null');
  const open = options.dangerouslyAllowEveryCaller;
  if (open !== undefined && open !== true) throw invalidArgument('dangerouslyAllowEveryCaller', 'true or absent');
  if (open === true && (options.authorize !== undefined || options.currentUser !== undefined)) {
    throw invalidArgument('dangerouslyAllowEveryCaller', 'absent when currentUser or authorize is given');
  }
  if (open !== true && options.authorize === undefined && options.currentUser === undefined) {
    throw new WalletError(
      'INVALID_ARGUMENT',
      'createProxy needs an authorization rule: currentUser (ownership checks: each user reaches only their own customer, accounts, credentials, sessions, quotes, cards, keys and transactions) or authorize. Without one any visitor could read every customer\'s data. For a proxy no user can reach, pass dangerouslyAllowEveryCaller: true.',
    );
  }
  // allowUnscoped names routes only (method and pattern): their scope is the allow rule's.
  const unscopedRules = options.allowUnscoped === undefined ? [] : compileRules(options.allowUnscoped, { scopeRequired: false });
  if (options.ownershipCache !== undefined) {
    const { ttlMs, maxEntries } = options.ownershipCache;
    positiveInteger(ttlMs, 'ownershipCache.ttlMs', 1);
    positiveInteger(maxEntries, 'ownershipCache.maxEntries', 1);
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw invalidArgument('fetch', 'a function');
  if (options.logger !== undefined && options.logger !== false && typeof options.logger !== 'function') {
    throw invalidArgument('logger', 'a function or false');
  }
  if (options.forwardHeaders !== undefined && !Array.isArray(options.forwardHeaders)) throw invalidArgument('forwardHeaders', 'an array of header names');
  const injectedFetch = options.fetch;
  const fetchFn: ProxyConfig['fetch'] = injectedFetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = positiveInteger(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS);
  if (options.owners !== undefined && (typeof options.owners !== 'object' || options.owners === null)) throw invalidArgument('owners', 'an object of resolvers per record kind');
  for (const [kind, resolver] of Object.entries(options.owners ?? {})) {
    if (!(RECORD_KINDS as readonly string[]).includes(kind)) throw invalidArgument(`owners.${kind}`, `one of owners.${RECORD_KINDS.join(', owners.')}`);
    if (typeof resolver !== 'function') throw invalidArgument(`owners.${kind}`, 'a function (record) => [{customerId} | {accountId}]');
  }
  for (const hook of ['onContactConflict', 'contactRateLimit', 'isWallet'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') throw invalidArgument(hook, 'a function');
  }
  const owners: OwnerResolvers = { ...DEFAULT_OWNERS, ...options.owners };
  const signatureHeader = options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER;
  const forwarded = forwardedHeaderNames(signatureHeader, options.forwardHeaders ?? []);
  const service = serviceClient({ baseUrl: baseHref, authorization: `Basic ${token}`, fetch: fetchFn, timeoutMs });
  return {
    baseUrl: baseHref,
    authorization: `Basic ${token}`,
    secrets,
    rules: compileRules(options.allow ?? DEFAULT_ALLOW),
    authorize: options.authorize,
    currentUser: options.currentUser,
    ownership: options.currentUser === undefined ? undefined : ownership(service, owners, options.ownershipCache, options.isWallet),
    owners,
    idempotencyKey: idempotencyKeys(clientSecret),
    decoys: decoys(clientSecret),
    onContactConflict: options.onContactConflict,
    contactRateLimit: options.contactRateLimit,
    checked: open !== true,
    unscoped: new Set(unscopedRules.map(ruleKey)),
    maxBodyBytes: positiveInteger(options.maxBodyBytes, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES),
    timeoutMs,
    fetch: fetchFn,
    logger: options.logger === false ? undefined : (options.logger ?? defaultLogger),
    prefix,
    prefixSegments,
    forwarded,
    signerOrigin: signerOriginRule(options.signerOrigins, options.appRoutes, forwarded[0] as string),
  };
}
