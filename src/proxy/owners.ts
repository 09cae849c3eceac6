/**
 * Who owns a record, read from the record itself: one resolver per record kind, used both for the
 * ownership lookups (`GET /cards/{id}` → its owner) and for the answer checks (every record of a
 * forwarded answer). Where the spec does not say which field names the owner, the default follows
 * the sandbox and the wire reference, and `ProxyOptions.owners` replaces it.
 *
 * | kind | default owner | source |
 * |---|---|---|
 * | customer | `id` (a customer) | spec §2.7 |
 * | account | `id` (an account) and `customerId` when present | spec §2.6 |
 * | credential, session | `accountId` | wire reference §5 (AuthMethod, AuthSession) |
 * | delegatedKey | `accountId` and `fundingSourceId` when present | wire reference §8.4 |
 * | quote | `source.accountId`, else `source.customerId` | spec §2.5, §4.3 |
 * | card | `fundingSource` (an internal account); a closed card (no `fundingSource`, spec §3.4): `cardholderId` (a customer) | spec §4.6; the cardholder field's name is not in the spec: `cardholderId` is the sandbox's, a documented fallback |
 * | transaction | `customerId`, and the account on its side: `source.accountId` for `OUTGOING`, `destination.accountId` for `INCOMING`, when present | spec §2.4 |
 *
 * Credentials and sessions are judged first by the account the request names (S13 of scope.ts);
 * the resolver's owners, when the record names any, must agree with it. A closed card is judged by
 * the account the proxy last saw funding it, when it saw one (ownership.ts).
 *
 * A resolver that finds no owner (`undefined` or `[]`) makes the proxy refuse: the request with
 * `403 OWNER_UNKNOWN`, an answer with `502 ANSWER_WITHHELD`; the log line names `owners.<kind>`.
 */
import type { RecordKind } from './routes.js';

/** One owner of a record: a customer, or an internal account (whose customer is looked up). */
export type RecordOwner = { readonly customerId: string } | { readonly accountId: string };

/** Reads a record's owners; `undefined` or `[]` when it names none (the proxy then refuses). */
export type OwnerResolver = (record: Readonly<Record<string, unknown>>) => readonly RecordOwner[] | undefined;

/** `ProxyOptions.owners`: a resolver per record kind; the ones given replace the defaults. */
export type OwnerResolvers = Readonly<Record<RecordKind, OwnerResolver>>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const obj = (record: Readonly<Record<string, unknown>>, key: string): Readonly<Record<string, unknown>> => {
  const value = record[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};
const account = (id: string | undefined): RecordOwner[] => (id === undefined ? [] : [{ accountId: id }]);
const customer = (id: string | undefined): RecordOwner[] => (id === undefined ? [] : [{ customerId: id }]);

/** The defaults of `ProxyOptions.owners` (table above). */
export const DEFAULT_OWNERS: OwnerResolvers = Object.freeze({
  customer: (r) => customer(str(r.id)),
  account: (r) => (str(r.id) === undefined ? [] : [...account(str(r.id)), ...customer(str(r.customerId))]),
  credential: (r) => account(str(r.accountId)),
  session: (r) => account(str(r.accountId)),
  delegatedKey: (r) => (str(r.accountId) === undefined ? [] : [...account(str(r.accountId)), ...account(str(r.fundingSourceId))]),
  quote: (r) => {
    const source = obj(r, 'source');
    const accountId = str(source.accountId);
    return accountId !== undefined ? account(accountId) : customer(str(source.customerId));
  },
  // Decision (issue 34): a CLOSED card has its funding source detached (spec §3.4), yet stays its
  // cardholder's. §4.6 says a card has a cardholder but not the field's name: `cardholderId` (the
  // sandbox's) is read only then, as a fallback; `owners.card` replaces it for another service.
  card: (r) => (str(r.fundingSource) !== undefined ? account(str(r.fundingSource)) : customer(str(r.cardholderId))),
  transaction: (r) => {
    const customerId = str(r.customerId);
    if (customerId === undefined) return [];
    const side = r.type === 'OUTGOING' ? obj(r, 'source') : r.type === 'INCOMING' ? obj(r, 'destination') : {};
    return [...customer(customerId), ...account(str(side.accountId))];
  },
});
