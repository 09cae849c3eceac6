/**
 * THE route table of the proxy: the one place that says, per allowed route, what scopes it.
 * The request checks (scope.ts), the ownership lookups (ownership.ts), the answer checks, the
 * README's route table (generated from {@link routesMarkdown}, checked by test/proxy/routes-readme.test.ts)
 * and the tests all read it; nothing else lists routes.
 *
 * Per route:
 * - `scope`: what ties a call to one customer — a path placeholder, a query filter the service
 *   honours on that route (a customer filter is set to the user's customer; an account filter must
 *   name one of the user's accounts), or body fields. See {@link RouteScope}.
 * - `query`: the exact query parameters forwarded, each with the id kind it names (`null`: a plain
 *   filter such as `limit`). Any other parameter, a wrong-case spelling, or a parameter given twice
 *   → `400 INVALID_INPUT`; nothing undeclared is forwarded.
 * - `body`: the body fields that name ids (dotted paths). A top-level body field named like an id
 *   (`BODY_ID_FIELDS`) that the route does not declare → `400`.
 * - `answer`: the kind of record a 2xx answer holds (`list`: inside `data[]`); each record's owner
 *   (read by the `owners` resolver of that kind) must be the user's.
 *
 * Sources: wire reference §5, §8; spec §4.2 (customers), §4.3 (internal accounts, quotes), §4.4
 * (transaction list filters), §4.5 (credentials, sessions, delegated keys), §4.6 (cards).
 */
import { invalidArgument } from '../errors.js';

/** The methods the proxy forwards; any other method is answered `405`. */
export type ProxyMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A kind of id a request can name. `fundingSourceId` is an internal account used as a card's funding source. */
export type IdKind = 'customerId' | 'accountId' | 'credentialId' | 'sessionId' | 'delegatedKeyId' | 'quoteId' | 'cardId' | 'fundingSourceId' | 'transactionId';
export const ID_KINDS: readonly IdKind[] = ['customerId', 'accountId', 'credentialId', 'sessionId', 'delegatedKeyId', 'quoteId', 'cardId', 'fundingSourceId', 'transactionId'];

/** A kind of record an answer holds; each has an owner resolver (`ProxyOptions.owners`). */
export type RecordKind = 'customer' | 'account' | 'credential' | 'session' | 'delegatedKey' | 'quote' | 'card' | 'transaction';
export const RECORD_KINDS: readonly RecordKind[] = ['customer', 'account', 'credential', 'session', 'delegatedKey', 'quote', 'card', 'transaction'];

/**
 * What ties a route's calls to one customer:
 * - `{ path: 'accountId' }`: that placeholder (named after its id kind);
 * - `{ customerFilter: 'customerId' }`: a list filtered by customer: the parameter is set to the
 *   signed-in user's customer (added when absent; another value → 403);
 * - `{ accountFilter: ['accountId', …] }`: a list filtered by account: at least one of these
 *   parameters must be present, and each present one must be one of the user's accounts;
 * - `{ body: ['fundingSource', …] }`: at least one of these body fields must be present (each is checked);
 * - `'none'`: the route names no customer (only for routes you add and mean to open to every user).
 */
export type RouteScope =
  | { readonly path: string }
  | { readonly customerFilter: string }
  | { readonly accountFilter: readonly string[] }
  | { readonly body: readonly string[] }
  | 'none';

/**
 * One allowed route: a method and a path pattern relative to the service's base URL, and what
 * scopes it. A pattern is `/`-separated literal segments and `{name}` placeholders, each matching
 * exactly one non-empty segment. A placeholder named after an id kind (`{accountId}`) names that id.
 * Routes you add with only `{ method, pattern }` are scoped by their first id placeholder, forward
 * no query parameters, declare no body ids and have no answer check.
 */
export interface AllowRule {
  /** The HTTP method. */
  readonly method: ProxyMethod;
  /** The path pattern, e.g. `/auth/credentials/{credentialId}/verify`. */
  readonly pattern: string;
  /** What ties a call to one customer. Default: the first placeholder named after an id kind. */
  readonly scope?: RouteScope;
  /** The query parameters forwarded (exact names), each with the id kind it names or `null`. Default none. */
  readonly query?: Readonly<Record<string, IdKind | null>>;
  /** The body fields (dotted paths) that name ids, with their kind. Default none. */
  readonly body?: Readonly<Record<string, IdKind>>;
  /** The kind of record a 2xx answer holds; checked record by record. Default: not checked. */
  readonly answer?: RecordKind;
  /** The answer is a list: the records are its `data[]`. */
  readonly list?: boolean;
}

const PAGE = { limit: null, cursor: null } as const;

const LIBRARY_ROUTES: AllowRule[] = [
  // Credentials (wire reference §5; spec §4.5)
  { method: 'POST', pattern: '/auth/credentials', scope: { body: ['accountId'] }, body: { accountId: 'accountId' }, answer: 'credential' },
  { method: 'GET', pattern: '/auth/credentials', scope: { accountFilter: ['accountId'] }, query: { accountId: 'accountId' }, answer: 'credential', list: true },
  { method: 'POST', pattern: '/auth/credentials/{credentialId}/challenge', scope: { path: 'credentialId' }, answer: 'credential' },
  { method: 'POST', pattern: '/auth/credentials/{credentialId}/verify', scope: { path: 'credentialId' }, answer: 'session' },
  { method: 'DELETE', pattern: '/auth/credentials/{credentialId}', scope: { path: 'credentialId' } },
  // Sessions
  { method: 'GET', pattern: '/auth/sessions', scope: { accountFilter: ['accountId'] }, query: { accountId: 'accountId' }, answer: 'session', list: true },
  { method: 'DELETE', pattern: '/auth/sessions/{sessionId}', scope: { path: 'sessionId' } },
  { method: 'POST', pattern: '/auth/sessions/{sessionId}/refresh', scope: { path: 'sessionId' }, answer: 'session' },
  // Delegated keys (wire reference §8.4)
  {
    method: 'POST',
    pattern: '/auth/delegated-keys',
    scope: { body: ['internalAccountId'] },
    body: { internalAccountId: 'accountId', cardId: 'cardId' },
    answer: 'delegatedKey',
  },
  {
    method: 'GET',
    pattern: '/auth/delegated-keys',
    scope: { accountFilter: ['accountId', 'fundingSourceId'] },
    query: { accountId: 'accountId', fundingSourceId: 'fundingSourceId', ...PAGE },
    answer: 'delegatedKey',
    list: true,
  },
  { method: 'GET', pattern: '/auth/delegated-keys/{delegatedKeyId}', scope: { path: 'delegatedKeyId' }, answer: 'delegatedKey' },
  { method: 'DELETE', pattern: '/auth/delegated-keys/{delegatedKeyId}', scope: { path: 'delegatedKeyId' }, answer: 'delegatedKey' },
  // Internal accounts (spec §4.3: query customerId, currency)
  {
    method: 'GET',
    pattern: '/internal-account',
    scope: { customerFilter: 'customerId' },
    query: { customerId: 'customerId', currency: null, ...PAGE },
    answer: 'account',
    list: true,
  },
  { method: 'PATCH', pattern: '/internal-accounts/{accountId}', scope: { path: 'accountId' }, answer: 'account' },
  { method: 'POST', pattern: '/internal-accounts/{accountId}/export', scope: { path: 'accountId' }, answer: 'account' },
  // Quotes (spec §4.3): the source is the payer; the destination may be anyone's (that is a transfer)
  {
    method: 'POST',
    pattern: '/quotes',
    scope: { body: ['source.accountId', 'source.customerId'] },
    body: { 'source.accountId': 'accountId', 'source.customerId': 'customerId' },
    answer: 'quote',
  },
  { method: 'GET', pattern: '/quotes/{quoteId}', scope: { path: 'quoteId' }, answer: 'quote' },
  { method: 'POST', pattern: '/quotes/{quoteId}/execute', scope: { path: 'quoteId' }, answer: 'quote' },
  // Transactions (spec §4.4): platformCustomerId is not forwarded (it names a customer the proxy does not check)
  {
    method: 'GET',
    pattern: '/transactions',
    scope: { customerFilter: 'customerId' },
    query: { customerId: 'customerId', senderAccountIdentifier: 'accountId', startDate: null, endDate: null, status: null, type: null, ...PAGE },
    answer: 'transaction',
    list: true,
  },
  // Customers (wire reference §8.2)
  { method: 'GET', pattern: '/customers/{customerId}', scope: { path: 'customerId' }, answer: 'customer' },
  { method: 'PATCH', pattern: '/customers/{customerId}', scope: { path: 'customerId' }, answer: 'customer' },
  // Cards (spec §4.6: the funding source is an internal account id; the cardholder field's name is
  // not in the spec, `cardholderId` is the sandbox's and is checked when present)
  {
    method: 'POST',
    pattern: '/cards',
    scope: { body: ['fundingSource'] },
    body: { fundingSource: 'fundingSourceId', cardholderId: 'customerId' },
    answer: 'card',
  },
  { method: 'GET', pattern: '/cards/{cardId}', scope: { path: 'cardId' }, answer: 'card' },
];

function freezeRule(rule: AllowRule): AllowRule {
  const copy: Record<string, unknown> = { ...rule };
  for (const key of ['query', 'body'] as const) if (rule[key] !== undefined) copy[key] = Object.freeze({ ...rule[key] });
  if (typeof rule.scope === 'object') {
    const scope: Record<string, unknown> = { ...rule.scope };
    for (const [k, v] of Object.entries(scope)) if (Array.isArray(v)) scope[k] = Object.freeze([...v]);
    copy.scope = Object.freeze(scope);
  }
  return Object.freeze(copy) as unknown as AllowRule;
}

/** The routes the library uses, frozen. Extend with `[...DEFAULT_ALLOW, { method, pattern, … }]`. */
export const DEFAULT_ALLOW: readonly AllowRule[] = Object.freeze(LIBRARY_ROUTES.map(freezeRule));

/**
 * Top-level body fields that name ids on some route of the service. One the matched route does not
 * declare is refused (400): the service might act on it while the proxy never checked it.
 */
export const BODY_ID_FIELDS: readonly string[] = [
  'customerId',
  'accountId',
  'internalAccountId',
  'cardholderId',
  'cardId',
  'fundingSource',
  'fundingSourceId',
  'quoteId',
  'sessionId',
  'credentialId',
  'delegatedKeyId',
  'transactionId',
  'platformCustomerId',
];

const METHODS: readonly string[] = ['GET', 'POST', 'PATCH', 'DELETE'];
const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const LITERAL = /^[A-Za-z0-9._~:@!$&'()*+,;=-]+$/;
const PARAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The resolved scope of a compiled rule. */
export type CompiledScope =
  | { readonly kind: 'path'; readonly name: IdKind }
  | { readonly kind: 'customerFilter'; readonly name: string }
  | { readonly kind: 'accountFilter'; readonly names: readonly string[] }
  | { readonly kind: 'body'; readonly paths: readonly string[] }
  | { readonly kind: 'none' };

/** A compiled rule: literal segments as strings, placeholders as `{ name }`, the scope resolved. */
export interface CompiledRule {
  readonly method: ProxyMethod;
  readonly pattern: string;
  readonly parts: readonly (string | { readonly name: string })[];
  readonly scope: CompiledScope;
  readonly query: ReadonlyMap<string, IdKind | null>;
  readonly body: readonly (readonly [readonly string[], IdKind])[];
  readonly answer: RecordKind | undefined;
  readonly list: boolean;
}

const isIdKind = (value: unknown): value is IdKind => (ID_KINDS as readonly unknown[]).includes(value);

function compileScope(rule: AllowRule, label: string, placeholders: readonly string[], query: ReadonlyMap<string, IdKind | null>, body: ReadonlySet<string>): CompiledScope {
  const scope = rule.scope;
  if (scope === undefined) {
    const name = placeholders.find(isIdKind);
    return name === undefined ? { kind: 'none' } : { kind: 'path', name };
  }
  if (scope === 'none') return { kind: 'none' };
  if (typeof scope !== 'object' || scope === null) throw invalidArgument(`${label}.scope`, "{path}, {customerFilter}, {accountFilter}, {body} or 'none'");
  if ('path' in scope) {
    if (!isIdKind(scope.path) || !placeholders.includes(scope.path)) throw invalidArgument(`${label}.scope.path`, 'a placeholder of the pattern named after an id kind');
    return { kind: 'path', name: scope.path };
  }
  if ('customerFilter' in scope) {
    if (query.get(scope.customerFilter) !== 'customerId') throw invalidArgument(`${label}.scope.customerFilter`, 'a query parameter the rule declares as customerId');
    return { kind: 'customerFilter', name: scope.customerFilter };
  }
  if ('accountFilter' in scope) {
    const names = scope.accountFilter;
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => query.get(n) === 'accountId' || query.get(n) === 'fundingSourceId')) {
      throw invalidArgument(`${label}.scope.accountFilter`, 'query parameters the rule declares as accountId or fundingSourceId');
    }
    return { kind: 'accountFilter', names: [...names] };
  }
  if ('body' in scope) {
    const paths = scope.body;
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => body.has(p))) throw invalidArgument(`${label}.scope.body`, 'body fields the rule declares');
    return { kind: 'body', paths: [...paths] };
  }
  throw invalidArgument(`${label}.scope`, "{path}, {customerFilter}, {accountFilter}, {body} or 'none'");
}

export function compileRules(rules: readonly AllowRule[]): CompiledRule[] {
  if (!Array.isArray(rules)) throw invalidArgument('allow', 'an array of {method, pattern}');
  return rules.map((rule, i) => {
    const label = `allow[${i}]`;
    if (typeof rule !== 'object' || rule === null) throw invalidArgument(label, 'an object {method, pattern}');
    if (!METHODS.includes(rule.method)) throw invalidArgument(`${label}.method`, 'one of GET, POST, PATCH, DELETE');
    if (typeof rule.pattern !== 'string' || !rule.pattern.startsWith('/') || rule.pattern === '/') {
      throw invalidArgument(`${label}.pattern`, 'a path starting with / such as /quotes/{quoteId}');
    }
    const names: string[] = [];
    const parts = rule.pattern
      .slice(1)
      .split('/')
      .map((seg: string) => {
        const placeholder = PLACEHOLDER.exec(seg);
        if (placeholder?.[1] !== undefined) {
          if (names.includes(placeholder[1])) throw invalidArgument(`${label}.pattern`, 'free of repeated placeholder names');
          names.push(placeholder[1]);
          return { name: placeholder[1] };
        }
        if (!LITERAL.test(seg) || seg === '.' || seg === '..') {
          throw invalidArgument(`${label}.pattern`, 'made of literal segments and {name} placeholders');
        }
        return seg;
      });
    const query = new Map<string, IdKind | null>();
    for (const [name, kind] of Object.entries(rule.query ?? {})) {
      if (!PARAM_NAME.test(name) || (kind !== null && !isIdKind(kind))) throw invalidArgument(`${label}.query`, 'parameter names mapped to an id kind or null');
      query.set(name, kind);
    }
    const body: [string[], IdKind][] = [];
    for (const [path, kind] of Object.entries(rule.body ?? {})) {
      if (!isIdKind(kind) || !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path)) throw invalidArgument(`${label}.body`, 'dotted field paths mapped to an id kind');
      body.push([path.split('.'), kind]);
    }
    if (rule.answer !== undefined && !(RECORD_KINDS as readonly string[]).includes(rule.answer)) throw invalidArgument(`${label}.answer`, `one of ${RECORD_KINDS.join(', ')}`);
    const scope = compileScope(rule, label, names, query, new Set(Object.keys(rule.body ?? {})));
    return { method: rule.method, pattern: rule.pattern, parts, scope, query, body, answer: rule.answer, list: rule.list === true };
  });
}

export interface RouteMatch {
  readonly rule: CompiledRule;
  readonly params: Record<string, string>;
}

/** The first rule matching method and decoded segments exactly. */
export function matchRoute(rules: readonly CompiledRule[], method: string, segments: readonly string[]): RouteMatch | undefined {
  for (const rule of rules) {
    if (rule.method !== method || rule.parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < rule.parts.length && ok; i++) {
      const part = rule.parts[i];
      const seg = segments[i];
      if (part === undefined || seg === undefined) ok = false;
      else if (typeof part === 'string') ok = part === seg;
      else params[part.name] = seg;
    }
    if (ok) return { rule, params };
  }
  return undefined;
}

export function ruleKey(rule: Pick<AllowRule, 'method' | 'pattern'>): string {
  return `${rule.method} ${rule.pattern}`;
}

function scopeText(scope: CompiledScope): string {
  switch (scope.kind) {
    case 'path':
      return `path \`{${scope.name}}\``;
    case 'customerFilter':
      return `query \`${scope.name}\` = the user's customer (set when absent)`;
    case 'accountFilter':
      return `query ${scope.names.map((n) => `\`${n}\``).join(' or ')} = one of the user's accounts`;
    case 'body':
      return `body ${scope.paths.map((p) => `\`${p}\``).join(' or ')}`;
    case 'none':
      return 'none';
  }
}

/** The README's route table, generated from the rules (default: {@link DEFAULT_ALLOW}). */
export function routesMarkdown(rules: readonly AllowRule[] = DEFAULT_ALLOW): string {
  const rows = compileRules(rules).map((r) => {
    const query = r.query.size === 0 ? '—' : [...r.query].map(([n, k]) => (k === null ? `\`${n}\`` : `\`${n}\` (${k})`)).join(', ');
    const body = r.body.length === 0 ? '—' : r.body.map(([p, k]) => `\`${p.join('.')}\` (${k})`).join(', ');
    const answer = r.answer === undefined ? '—' : `${r.list ? 'each `data[]` ' : ''}${r.answer}`;
    return `| \`${r.method} ${r.pattern}\` | ${scopeText(r.scope)} | ${query} | ${body} | ${answer} |`;
  });
  return ['| route | scoped by | query forwarded (id kind) | body ids | answer checked as |', '|---|---|---|---|---|', ...rows].join('\n');
}
