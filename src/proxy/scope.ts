/**
 * Scoping: what of a request reaches the service, and what of an answer reaches the user (S9's
 * error answers: error-answer.ts; S6's idempotency keys: idempotency-key.ts). Reads
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
 *     request, so a change takes effect on the user's next request. It holds only facts the service
 *     never changes (S10).
 * S6. The `Idempotency-Key` forwarded is HMAC-SHA256(k, customerId ‖ 0x00 ‖ key) for a user with no
 *     `accountIds`, and HMAC-SHA256(k, customerId ‖ 0x00 ‖ JSON(sorted accountIds) ‖ 0x00 ‖ key)
 *     for a narrowed user, with k derived from the client secret: two customers never share a
 *     forwarded key, and two users of one customer share one only when they see the same accounts
 *     (so a replay or a 409 for a shared key names only records both may see). Trade-off: a user
 *     whose `accountIds` change between a request and its retry gets a new key, so that retry is not
 *     deduplicated by the service.
 * S7. A record whose owner its resolver cannot read is never treated as the user's: the request is
 *     refused (403 OWNER_UNKNOWN) or the answer withheld (502), and the log line names `owners.<kind>`.
 * S8. A narrowed user (`accountIds` set) learns nothing of records outside the narrowing from a list
 *     route: the service's `nextCursor`, `hasMore` and `totalCount` are never passed on to them.
 *     The proxy reads every page of the list itself (100 a page, at most 10 pages; more → 502
 *     ANSWER_WITHHELD), keeps the user's records, and answers the `limit` asked for (default 20)
 *     from the offset of its own cursor (`n<offset>`, the only cursor accepted from a narrowed user;
 *     another → 400), with `hasMore`, `nextCursor` and `totalCount` computed over the kept records.
 *     (Why not force an account filter: `GET /internal-account` and `GET /transactions` have none
 *     that covers every record of an account — spec §4.3, §4.4 — so the service cannot page the
 *     narrowed list for us.)
 * S9. A 4xx answer passes only ids that are the user's: in `details`, a field named like an id
 *     (`…Id`, `id`) or a value shaped `<Type>:<…>` is kept only when it is the user's customer, one of
 *     their accounts, an id the request named (already checked), or an id the ownership lookups
 *     (S3) find to be theirs; any other is removed from `details`, and such a token in `reason` or
 *     `message` is replaced by `(withheld)`. The answer keeps its status and code; the log line
 *     carries the code `DETAILS_WITHHELD`.
 * S10. A fact the service can change is never cached: a card's funding source can be changed by
 *     `PATCH /cards/{id}` (spec §4.6), so a card's owner is read from the service on every request
 *     that names the card, writes included. (Quote, delegated-key and transaction owners, credential
 *     and session accounts, and an account's customer are fixed at creation and stay cached.)
 * S11. Someone else's id answers exactly as an unknown id of its kind: the same status and the same
 *     body (`404 QUOTE_NOT_FOUND` / `TRANSACTION_NOT_FOUND` / `NOT_FOUND` for a card or delegated
 *     key, `AUTH_METHOD_NOT_FOUND` / `SESSION_NOT_FOUND`; `403 FORBIDDEN` "This account is not
 *     yours." for an account or customer, which needs no lookup), so no answer tells that an id
 *     exists on the platform.
 * S12. A user narrowed by `accountIds` reads the customer but writes only through their accounts:
 *     a request other than GET that names the customer and none of their accounts (PATCH
 *     /customers/{id}, POST /quotes with `source.customerId`) → 403, and a quote, card, delegated
 *     key or transaction owned by the customer alone is not theirs (S11's answer) — unless the
 *     app gives the user `customerAccess: 'write'`.
 * S13. Credentials and sessions are judged by the account the request names (its `accountId`, or
 *     the wallet under which the named credential or session was listed), never by an answer
 *     field the spec does not define (spec §2.10 gives `AuthSession` only `expiresAt`): a record of
 *     such an answer is the user's when that account is; an `accountId` the record does carry must
 *     agree. The ids of the credentials and sessions passed on are remembered as that account's.
 * S14. Every route names what scopes it: a rule with no `scope` and no placeholder named after an
 *     id kind is refused when the proxy is created (`scope: 'none'` opens a route explicitly).
 * S15. A contact conflict (`409 EMAIL_OTP_EMAIL_ALREADY_EXISTS` / `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS`)
 *     from any route reaches the caller only through `onContactConflict`; without it, as the one
 *     answer `409 CONTACT_UNAVAILABLE`, the same for email, phone and every route (contact.ts).
 * S16. Taken and free answer alike until a stamp verifies: without `onContactConflict`, a first leg
 *     answered with a contact conflict gets a decoy `202` challenge made like every challenge the
 *     proxy passes on (the spec's three fields, the same headers, a `requestId` the proxy recognises
 *     by an HMAC tag, no per-request state); the decoy's signed retry gets the service's refusals in
 *     the service's order, and `409 CONTACT_UNAVAILABLE` only with a stamp that verifies over the
 *     decoy's payload (contact-decoy.ts, which says what it cannot hide).
 */
import { ownerUnknown, type Checked, type CurrentUser, type Ownership, type Verdict } from './ownership.js';
import { ProxyRefusal } from './responses.js';
import { BODY_ID_FIELDS, ID_KINDS, type CompiledRule, type IdKind, type Ids } from './routes.js';

export type { Ids };
import { printable } from './path.js';

/** The ids a request names, one value per kind. */

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

/** S12: a narrowed user's write that names the customer and none of their accounts. */
export function narrowedCustomerWrite(method: string, ids: Ids, user: CurrentUser): ProxyRefusal | undefined {
  if (user.accountIds === undefined || user.customerAccess === 'write' || method === 'GET') return undefined;
  if (ids.customerId === undefined || ids.accountId !== undefined || ids.fundingSourceId !== undefined) return undefined;
  return new ProxyRefusal('FORBIDDEN', 'This user may read the customer but change it only through their own accounts.');
}

const withheld = (reason: string, detail?: string): ProxyRefusal => new ProxyRefusal('ANSWER_WITHHELD', reason, detail);

/** Record kinds judged by the account the request names (S13). */
const BY_REQUEST_ACCOUNT: ReadonlySet<string> = new Set(['credential', 'session']);

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
  checked: Checked = {},
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
  // S13: a credential or session is the request's account's; an account the record names must be that one.
  const requestAccount = BY_REQUEST_ACCOUNT.has(kind) ? checked.account : undefined;
  const judge = async (record: unknown): Promise<Verdict | undefined> => {
    if (!isRecord(record)) return undefined;
    const named = ownership.ownersOf(kind, record);
    if (requestAccount === undefined) return ownership.judge(user, named);
    if ((named ?? []).some((owner) => 'accountId' in owner && owner.accountId !== requestAccount)) return 'foreign';
    const verdict = await ownership.judge(user, [{ accountId: requestAccount }, ...(named ?? [])]);
    if (verdict === 'mine' && typeof record.id === 'string' && record.id !== '') ownership.learn(kind as 'credential' | 'session', record.id, requestAccount);
    return verdict;
  };
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
