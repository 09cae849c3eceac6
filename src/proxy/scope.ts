/**
 * Scoping: what of a request reaches the service, and what of an answer reaches the user. Reads
 * only the route table (routes.ts) and the owner resolvers (owners.ts).
 *
 * Invariants (each cited by the tests that pick cases for it, test/proxy/leak.property.test.ts and
 * test/proxy/scope.test.ts):
 *
 * S1. A request reaches the service only on a route of the table, with only the query parameters
 *     that route declares (exact names, each at most once); any other parameter, a wrong-case
 *     spelling or a repeated one is refused with 400 and nothing is forwarded. The forwarded query
 *     is rebuilt from the accepted values, never the caller's raw string.
 * S2. A list route is forwarded only with its owning filter set to the user's id: a customer filter
 *     is set to the user's customer (added when absent; another value is refused with 403), an
 *     account filter must be present and name one of the user's accounts (403 otherwise).
 * S3. Every id the request names — path placeholder, declared query parameter, declared body field —
 *     is the user's (403/404 otherwise); a top-level body field named like an id that the route
 *     does not declare, a non-string id field, or two values of one kind are refused with 400.
 * S4. Every record of a 2xx answer on a route with an answer kind is the user's by the owner its
 *     resolver reads: another customer's record withholds the whole answer (502 ANSWER_WITHHELD,
 *     logged with its code); a record of the user's customer outside `accountIds` is dropped from a
 *     list and withholds a single-record answer.
 * S5. The ownership cache holds facts about the service only (who owns an id, which accounts a
 *     customer has), keyed by id, never by user and never narrowed: `accountIds` is applied on every
 *     request, so a change takes effect on the user's next request.
 * S6. The `Idempotency-Key` forwarded is HMAC-SHA256(k, customerId ‖ 0x00 ‖ key) with k derived from
 *     the client secret: one customer's retries carry the same forwarded key; two customers never
 *     share one, whatever keys their browsers send.
 * S7. A record whose owner its resolver cannot read is never treated as the user's: the request is
 *     refused (403 OWNER_UNKNOWN) or the answer withheld (502), and the log line names `owners.<kind>`.
 */
import { ownerUnknown, type CurrentUser, type Ownership } from './ownership.js';
import type { OwnerResolvers } from './owners.js';
import { ProxyRefusal } from './responses.js';
import { BODY_ID_FIELDS, ID_KINDS, type CompiledRule, type IdKind } from './routes.js';
import { printable } from './path.js';

/** The ids a request names, one value per kind. */
export type Ids = Partial<Record<IdKind, string>>;

export interface ScopedRequest {
  readonly ids: Ids;
  /** The query forwarded (S1): only declared parameters. */
  readonly query: URLSearchParams;
  /** Whether the request names the id that scopes its route (S2; the deny-by-default check reads it). */
  readonly named: boolean;
}

/** A JSON object (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current) || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

const isIdKind = (name: string): name is IdKind => (ID_KINDS as readonly string[]).includes(name);
const invalid = (reason: string): ProxyRefusal => new ProxyRefusal('INVALID_INPUT', reason);

/** S1 and S3 (the parts that need no lookup): the ids a request names, and the query to forward. */
export function scopeRequest(rule: CompiledRule, params: Readonly<Record<string, string>>, search: URLSearchParams, body: unknown): ScopedRequest | ProxyRefusal {
  const found = new Map<IdKind, Set<string>>();
  const add = (kind: IdKind, value: string): void => {
    const set = found.get(kind) ?? new Set<string>();
    set.add(value);
    found.set(kind, set);
  };
  for (const [name, value] of Object.entries(params)) if (isIdKind(name)) add(name, value);

  const query = new URLSearchParams();
  for (const [name, value] of search) {
    if (!rule.query.has(name)) return invalid(`The query parameter ${printable(name.slice(0, 64))} is not accepted on ${rule.method} ${rule.pattern}.`);
    if (query.has(name)) return invalid(`The query parameter ${name} is given more than once.`);
    query.append(name, value);
    const kind = rule.query.get(name);
    if (kind !== null && kind !== undefined) add(kind, value);
  }

  if (isRecord(body)) {
    const declared = new Set(rule.body.map(([path]) => path[0]));
    for (const key of Object.keys(body)) {
      if (BODY_ID_FIELDS.includes(key) && !declared.has(key)) return invalid(`The body field ${key} is not accepted on ${rule.method} ${rule.pattern}.`);
    }
  }
  for (const [path, kind] of rule.body) {
    const value = field(body, path);
    if (typeof value === 'string') add(kind, value);
    else if (value !== undefined) return invalid(`The body field ${path.join('.')} must be a string.`);
  }

  const ids: Ids = {};
  for (const [kind, values] of found) {
    if (values.size > 1) return invalid(`The request names more than one ${kind}.`);
    ids[kind] = [...values].join();
  }

  const scope = rule.scope;
  const named =
    scope.kind === 'accountFilter'
      ? scope.names.some((name) => query.has(name))
      : scope.kind === 'body'
        ? scope.paths.some((path) => field(body, path.split('.')) !== undefined)
        : scope.kind === 'path' || scope.kind === 'none' || query.has(scope.name);
  return { ids, query, named };
}

/** S2 for a customer filter: set it to the user's customer when absent. */
export function applyCustomerFilter(rule: CompiledRule, scoped: ScopedRequest, user: CurrentUser | undefined): ScopedRequest {
  if (rule.scope.kind !== 'customerFilter') return scoped;
  const name = rule.scope.name;
  if (scoped.query.has(name)) return scoped;
  // Without a user (an authorize-only proxy) the request must name it: the deny-by-default check refuses it otherwise.
  if (user === undefined) return scoped;
  const query = new URLSearchParams(scoped.query);
  query.set(name, user.customerId);
  return { ids: { ...scoped.ids, customerId: user.customerId }, query, named: true };
}

const withheld = (reason: string, detail?: string): ProxyRefusal => new ProxyRefusal('ANSWER_WITHHELD', reason, detail);

/** A signed-retry answer the service may send instead of the record (wire reference §4): no record in it. */
function isProcessingMarker(value: Record<string, unknown>): boolean {
  return value.status === 'PROCESSING' && value.id === undefined;
}

/**
 * S4 and S7 on an answer: the payload to pass on (unchanged, or the list without records outside
 * the user's `accountIds`), or a refusal withholding it.
 */
export async function checkAnswer(
  rule: CompiledRule,
  status: number,
  payload: Uint8Array<ArrayBuffer>,
  user: CurrentUser,
  ownership: Ownership,
  owners: OwnerResolvers,
): Promise<Uint8Array<ArrayBuffer> | ProxyRefusal> {
  const kind = rule.answer;
  // Only 2xx answers with a body hold records (forward() refuses statuses below 200); 202 is a
  // signed-retry challenge.
  if (kind === undefined || status > 299 || status === 202 || payload.byteLength === 0) return payload;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return withheld('The service answer is not JSON; it was withheld.');
  }
  if (!isRecord(value)) return withheld('The service answer is not a record; it was withheld.');
  const answer = value;
  const judge = async (record: unknown) => (isRecord(record) ? ownership.judge(user, owners[kind](record)) : undefined);
  if (!rule.list) {
    if (isProcessingMarker(answer)) return payload;
    const verdict = await judge(answer);
    if (verdict === undefined) return withheld(ownerUnknown(kind).reason, `set owners.${kind}`);
    return verdict === 'mine' ? payload : withheld("The service answered a record that is not the user's; it was withheld.");
  }
  if (!Array.isArray(answer.data)) return withheld('The service answer is not a list; it was withheld.');
  const kept: unknown[] = [];
  for (const record of answer.data) {
    const verdict = await judge(record);
    if (verdict === undefined) return withheld(ownerUnknown(kind).reason, `set owners.${kind}`);
    if (verdict === 'foreign') return withheld("The service answered a record that is not the user's; it was withheld.");
    if (verdict === 'mine') kept.push(record);
  }
  if (kept.length === answer.data.length) return payload;
  const dropped = answer.data.length - kept.length;
  const narrowed = { ...answer, data: kept, ...(typeof answer.totalCount === 'number' ? { totalCount: Math.max(0, answer.totalCount - dropped) } : {}) };
  return new TextEncoder().encode(JSON.stringify(narrowed));
}

const LABEL = 'embedded-wallet-signer/proxy idempotency-key v1';

/** S6: the forwarded `Idempotency-Key` of a customer's key. `secret` is the client secret. */
export function idempotencyKeys(secret: string): (customerId: string, key: string) => Promise<string> {
  let derived: Promise<CryptoKey> | undefined;
  const hmacKey = (bytes: Uint8Array<ArrayBuffer>) => crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async (customerId, key) => {
    derived ??= (async () => {
      const root = await hmacKey(encoder.encode(secret));
      return hmacKey(new Uint8Array(await crypto.subtle.sign('HMAC', root, encoder.encode(LABEL))));
    })();
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await derived, encoder.encode(`${customerId}\u0000${key}`)));
    let binary = '';
    for (const byte of mac) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
}
