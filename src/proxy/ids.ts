/** The ids a request names, gathered from path placeholders, the query and the JSON body. */
import { ProxyRefusal } from './responses.js';

export const ID_KINDS = ['customerId', 'accountId', 'credentialId', 'sessionId', 'delegatedKeyId', 'quoteId', 'cardId', 'fundingSourceId', 'transactionId'] as const;
export type IdKind = (typeof ID_KINDS)[number];
export type Ids = Partial<Record<IdKind, string>>;

/** Query parameter → id kind. `senderAccountIdentifier` filters `GET /transactions` by internal account. */
const QUERY_IDS: readonly (readonly [string, IdKind])[] = [
  ['customerId', 'customerId'],
  ['accountId', 'accountId'],
  ['fundingSourceId', 'fundingSourceId'],
  ['senderAccountIdentifier', 'accountId'],
];

/**
 * Body field path → id kind. A value that is present but not a string is refused (an array or
 * object could name ids the hook never sees), except `fundingSource`, whose shape on `POST /cards`
 * the spec does not show: it counts only when it is a string.
 */
const BODY_IDS: readonly (readonly [readonly string[], IdKind])[] = [
  [['customerId'], 'customerId'],
  [['accountId'], 'accountId'],
  [['internalAccountId'], 'accountId'],
  [['source', 'accountId'], 'accountId'],
  [['source', 'customerId'], 'customerId'],
  // `POST /cards` names its cardholder here: it must be the same customer as any other customerId.
  [['cardholderId'], 'customerId'],
  [['cardId'], 'cardId'],
  [['fundingSource'], 'fundingSourceId'],
  [['fundingSourceId'], 'fundingSourceId'],
];

function field(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Every id the request names, one value per kind. Two different values of one kind (path vs body,
 * a repeated query parameter, …) are refused: the hook must not approve one id while the service
 * acts on another.
 */
export function extractIds(params: Readonly<Record<string, string>>, query: URLSearchParams, body: unknown): Ids | ProxyRefusal {
  const found = new Map<IdKind, Set<string>>();
  const add = (kind: IdKind, value: string): void => {
    const set = found.get(kind) ?? new Set<string>();
    set.add(value);
    found.set(kind, set);
  };
  for (const kind of ID_KINDS) {
    const value = params[kind];
    if (value !== undefined) add(kind, value);
  }
  for (const [name, kind] of QUERY_IDS) for (const value of query.getAll(name)) add(kind, value);
  for (const [path, kind] of BODY_IDS) {
    const value = field(body, path);
    if (typeof value === 'string') add(kind, value);
    else if (value !== undefined && path[0] !== 'fundingSource') {
      return new ProxyRefusal('INVALID_INPUT', `The body field ${path.join('.')} must be a string.`);
    }
  }
  const ids: Ids = {};
  for (const [kind, values] of found) {
    if (values.size > 1) return new ProxyRefusal('INVALID_INPUT', `The request names more than one ${kind}.`);
    const [value] = values;
    if (value !== undefined) ids[kind] = value;
  }
  return ids;
}

/** Whether the request names at least one id that ties it to a customer. */
export function namesAnId(ids: Ids): boolean {
  return ID_KINDS.some((kind) => ids[kind] !== undefined);
}
