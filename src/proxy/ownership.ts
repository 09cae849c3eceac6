/**
 * Ownership lookups: whether an id, or a record's owner, is the signed-in user's.
 *
 * Which ids a route names, and where, is in routes.ts; how each record kind names its owner is in
 * owners.ts (`ProxyOptions.owners`). This file only answers "is this the user's?":
 *
 * - customer: equal to `currentUser().customerId`;
 * - account (also a funding source): listed by `GET /internal-account?customerId=` for the user's
 *   customer, and in `accountIds` when the user is narrowed to some accounts;
 * - credential, session: listed by `GET /auth/credentials?accountId=` / `GET /auth/sessions?accountId=`
 *   of one of the customer's wallets (which accounts are wallets: wallets.ts, a rule that needs no
 *   `type` field), then as an account (the service has no per-id read of them, so "someone else's"
 *   and "unknown" are both 404). The account a credential or session was found under is the one
 *   the request names: `checkIds` returns it, and the answer check judges the credential or session
 *   records of the answer by it (never by an answer field the spec does not define: spec §2.10
 *   gives `AuthSession` no account);
 * - quote, card, delegated key, transaction: `GET /quotes/{id}` (…) read with the platform
 *   credentials, the owners read by the kind's resolver, each checked as above. Someone else's id
 *   answers exactly as an unknown one (same status, same body: S11 of scope.ts);
 * - a narrowed user (`accountIds`) owns a quote, card, delegated key or transaction only through
 *   one of their accounts: a record whose owners are all customer-level (a quote with a customer
 *   source, a closed card known only by its cardholder) is theirs only with
 *   `customerAccess: 'write'` (S12 of scope.ts).
 * - a closed card (spec §3.4: its funding source is detached) is judged by the account that funded
 *   it when the proxy last read it funded (a fact: the funding source must belong to the card's
 *   customer, §4.6 rule 4, so the cardholder never changes), else by the resolver's owners (the
 *   default: the cardholder, documented in owners.ts).
 *
 * The cache (owner-cache.ts) holds facts about the service only — "Quote:x is owned by this
 * account", "Customer:y has these accounts" — keyed by the id, never by the user, and never
 * narrowed: `accountIds` is applied on every request (invariant S5 of scope.ts). A card's owner is
 * not cached: its funding source can change (invariant S10).
 */
import { OwnerCache, type OwnerCacheOptions } from './owner-cache.js';
import type { OwnerResolvers, RecordOwner } from './owners.js';
import { ProxyRefusal, type ProxyErrorCode } from './responses.js';
import { listData, ServiceUnavailable, type ServiceClient } from './service.js';
import { DEFAULT_IS_WALLET, NOT_A_WALLET_STATUSES, type WalletResolver } from './wallets.js';
import type { Ids, RecordKind } from './routes.js';
import type { CurrentUser, CurrentUserResolver } from './types.js';

// CurrentUser and CurrentUserResolver are declared in types.ts (beside ProxyOptions, which uses them).
export type { CurrentUser, CurrentUserResolver };


/** How an owner relates to the user: theirs, their customer's but outside `accountIds`, or someone else's. */
export type Verdict = 'mine' | 'narrowed' | 'foreign';

interface Accounts {
  readonly all: ReadonlySet<string>;
  /** The accounts that may be wallets: `true` decided by the record, `undefined` to be asked (wallets.ts). */
  readonly wallets: ReadonlyMap<string, true | undefined>;
  /** When this list was read (ms). */
  readonly at: number;
}

/** A credential's or session's fact: the one account it was found under. */
type Listed = readonly [{ readonly accountId: string }];

type Fact = Accounts | readonly RecordOwner[] | boolean;

/**
 * An account id that is not in the customer's cached list makes the list be read again (the
 * customer may have opened an account since), but not more than once per this many ms.
 */
const RELIST_AFTER_MS = 1_000;
const MAX_ACCOUNT_PAGES = 10;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Ids read one by one: path, record kind, the 404 code when unknown. */
const LOOKUPS = {
  quoteId: { path: '/quotes/', kind: 'quote', code: 'QUOTE_NOT_FOUND' },
  cardId: { path: '/cards/', kind: 'card', code: 'NOT_FOUND' },
  delegatedKeyId: { path: '/auth/delegated-keys/', kind: 'delegatedKey', code: 'NOT_FOUND' },
  transactionId: { path: '/transactions/', kind: 'transaction', code: 'TRANSACTION_NOT_FOUND' },
} as const satisfies Record<string, { path: string; kind: RecordKind; code: ProxyErrorCode }>;

/** Ids found only in a list per wallet account. */
const LISTED = {
  credentialId: { path: '/auth/credentials', kind: 'credential', code: 'AUTH_METHOD_NOT_FOUND' },
  sessionId: { path: '/auth/sessions', kind: 'session', code: 'SESSION_NOT_FOUND' },
} as const satisfies Record<string, { path: string; kind: RecordKind; code: ProxyErrorCode }>;

const WHAT: Record<RecordKind, string> = {
  customer: 'customer',
  account: 'account',
  credential: 'credential',
  session: 'active session',
  delegatedKey: 'delegated key',
  quote: 'quote',
  card: 'card',
  transaction: 'transaction',
};

/** What `checkIds` learnt: the account the request acts for, when it names one (directly or through a credential or session). */
export interface Checked {
  readonly account?: string | undefined;
}

export interface Ownership {
  /** Refuses (throws `ProxyRefusal`) unless every id is the user's; returns the account the request acts for. */
  checkIds(user: CurrentUser, ids: Ids): Promise<Checked>;
  /** A record's owners as the proxy judges them: the kind's resolver, and for a card the funding account it saw (see above). */
  ownersOf(kind: RecordKind, record: Readonly<Record<string, unknown>>): readonly RecordOwner[] | undefined;
  /** Records a fact the proxy has checked: this credential or session (from an answer it passed) belongs to `accountId`. */
  learn(kind: 'credential' | 'session', id: string, accountId: string): void;
  /** How a record's owners relate to the user; `undefined` when there are none. */
  judge(user: CurrentUser, owners: readonly RecordOwner[] | undefined): Promise<Verdict | undefined>;
}

/** `owners.<kind>` found no owner: the log line names the option. */
export function ownerUnknown(kind: RecordKind): ProxyRefusal {
  return new ProxyRefusal('OWNER_UNKNOWN', `The ${WHAT[kind]}'s owner could not be read from the service's record.`, `set owners.${kind}`);
}

export function ownership(service: ServiceClient, owners: OwnerResolvers, cacheOptions: OwnerCacheOptions = {}, isWallet: WalletResolver = DEFAULT_IS_WALLET): Ownership {
  const facts = new OwnerCache<Fact>(cacheOptions);

  const accountsOf = async (customerId: string, fresh: boolean): Promise<Accounts> => {
    const key = `accounts:${customerId}`;
    const cached = facts.get(key) as Accounts | undefined;
    if (cached !== undefined && (!fresh || Date.now() - cached.at < RELIST_AFTER_MS)) return cached;
    const theirs: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_ACCOUNT_PAGES; page++) {
      const answer = await service.call('GET', '/internal-account', { query: { customerId, limit: '100', ...(cursor ? { cursor } : {}) } });
      if (answer.status !== 200) throw new ProxyRefusal('LOOKUP_FAILED', `The account lookup (GET /internal-account) answered ${answer.status}.`);
      // A listed account that names another customer is not trusted as this customer's.
      for (const a of listData(answer)) if (str(a.id) !== undefined && (a.customerId === undefined || a.customerId === customerId)) theirs.push(a);
      const body = answer.body as { hasMore?: unknown; nextCursor?: unknown };
      cursor = body.hasMore === true ? str(body.nextCursor) : undefined;
      if (cursor === undefined) break;
    }
    const wallets = new Map<string, true | undefined>();
    for (const a of theirs) {
      const decided = isWallet(a);
      if (decided !== false) wallets.set(String(a.id), decided);
    }
    const accounts: Accounts = { all: new Set(theirs.map((a) => String(a.id))), wallets, at: Date.now() };
    facts.set(key, accounts);
    return accounts;
  };

  const accountVerdict = async (user: CurrentUser, id: string): Promise<Verdict> => {
    const customers = (await accountsOf(user.customerId, false)).all.has(id) || (await accountsOf(user.customerId, true)).all.has(id);
    if (!customers) return 'foreign';
    return user.accountIds === undefined || user.accountIds.includes(id) ? 'mine' : 'narrowed';
  };

  const judge = async (user: CurrentUser, list: readonly RecordOwner[] | undefined): Promise<Verdict | undefined> => {
    if (list === undefined || list.length === 0) return undefined;
    let narrowed = false;
    for (const owner of list) {
      if ('customerId' in owner) {
        if (owner.customerId !== user.customerId) return 'foreign';
      } else {
        const one = await accountVerdict(user, owner.accountId);
        if (one === 'foreign') return 'foreign';
        narrowed ||= one === 'narrowed';
      }
    }
    return narrowed ? 'narrowed' : 'mine';
  };

  const forbidden = (what: string): ProxyRefusal => new ProxyRefusal('FORBIDDEN', `This ${what} is not yours.`);
  /** S11: someone else's record answers exactly as an unknown id of its kind. */
  const unknown = (spec: { kind: RecordKind; code: ProxyErrorCode }): ProxyRefusal => new ProxyRefusal(spec.code, `No ${WHAT[spec.kind]} with this id.`);
  /** S12: a narrowed user owns a record through one of their accounts, not through the customer alone (unless `customerAccess: 'write'`). */
  const customerOnly = (user: CurrentUser, list: readonly RecordOwner[]): boolean =>
    user.accountIds !== undefined && user.customerAccess !== 'write' && list.every((owner) => 'customerId' in owner);

  const ownersOf = (kind: RecordKind, record: Record<string, unknown>): readonly RecordOwner[] | undefined => {
    const found = owners[kind](record);
    return Array.isArray(found) && found.length > 0 ? found : undefined;
  };

  const checkLooked = async (user: CurrentUser, idKind: keyof typeof LOOKUPS, id: string): Promise<void> => {
    const spec = LOOKUPS[idKind];
    const key = `${spec.kind}:${id}`;
    // S10: a card's funding source can change (PATCH /cards/{id}, spec §4.6): its owner is read every time.
    // (Cards are never stored under `card:`: the get finds nothing for them.)
    let found = facts.get(key) as readonly RecordOwner[] | undefined;
    if (found === undefined) {
      const answer = await service.call('GET', spec.path + encodeURIComponent(id).replace(/%3A/g, ':'));
      if (answer.status === 404) throw unknown(spec);
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
        throw new ProxyRefusal('LOOKUP_FAILED', `The ${WHAT[spec.kind]} lookup (GET ${spec.path}{id}) answered ${answer.status}.`);
      }
      const named = ownersOf(spec.kind, answer.body as Record<string, unknown>);
      found = spec.kind === 'card' ? cardOwners(id, named) : named;
      if (found === undefined) throw ownerUnknown(spec.kind);
      if (spec.kind !== 'card') facts.set(key, found);
    }
    if (customerOnly(user, found) || (await judge(user, found)) !== 'mine') throw unknown(spec);
  };

  /**
   * A card's owners: while it is funded, its funding account (remembered as the fact "this card was
   * funded by this account": the funding source must be the cardholder's, spec §4.6 rule 4, so the
   * customer behind it never changes); once closed (no funding source, spec §3.4), the remembered
   * account when there is one, else what the resolver found (by default the cardholder).
   */
  const cardOwners = (id: string, found: readonly RecordOwner[] | undefined): readonly RecordOwner[] | undefined => {
    const key = `cardFunded:${id}`;
    const funded = found?.filter((owner) => 'accountId' in owner) ?? [];
    if (funded.length > 0) {
      facts.set(key, funded);
      return found;
    }
    return (facts.get(key) as readonly RecordOwner[] | undefined) ?? found;
  };

  const checkListed = async (user: CurrentUser, idKind: keyof typeof LISTED, id: string): Promise<string> => {
    const spec = LISTED[idKind];
    const key = `${spec.kind}:${id}`;
    if (facts.get(key) === undefined) {
      for (const [accountId, decided] of (await accountsOf(user.customerId, false)).wallets) {
        // Rule 3 of wallets.ts: an account already found not to be a wallet is skipped (only an account
        // not decided by isWallet or its type is ever found so, just below).
        if (facts.get(`notWallet:${accountId}`) === true) continue;
        const answer = await service.call('GET', spec.path, { query: { accountId } });
        if (decided === undefined && NOT_A_WALLET_STATUSES.includes(answer.status)) {
          facts.set(`notWallet:${accountId}`, true);
          continue;
        }
        if (answer.status !== 200) throw new ProxyRefusal('LOOKUP_FAILED', `The ${WHAT[spec.kind]} lookup (GET ${spec.path}) answered ${answer.status}.`);
        for (const item of listData(answer)) {
          const itemId = str(item.id);
          // The account the list was read for owns what it lists.
          if (itemId !== undefined) facts.set(`${spec.kind}:${itemId}`, [{ accountId }]);
        }
      }
    }
    // The account the list was read for (or an answer was judged by: learn), the only owner of the fact.
    const found = facts.get(key) as Listed | undefined;
    if (found === undefined) throw unknown(spec);
    const [{ accountId }] = found;
    if ((await accountVerdict(user, accountId)) !== 'mine') throw unknown(spec);
    return accountId;
  };

  const checkIds = async (user: CurrentUser, ids: Ids): Promise<Checked> => {
    if (ids.customerId !== undefined && ids.customerId !== user.customerId) throw forbidden('customer');
    if (ids.accountId !== undefined && (await accountVerdict(user, ids.accountId)) !== 'mine') throw forbidden('account');
    if (ids.fundingSourceId !== undefined && (await accountVerdict(user, ids.fundingSourceId)) !== 'mine') throw forbidden('funding source');
    let account = ids.accountId;
    for (const kind of ['credentialId', 'sessionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) account = await checkListed(user, kind, id);
    }
    for (const kind of ['quoteId', 'cardId', 'delegatedKeyId', 'transactionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) await checkLooked(user, kind, id);
    }
    return { account };
  };

  return {
    ownersOf: (kind, record) => (kind === 'card' && typeof record.id === 'string' ? cardOwners(record.id, ownersOf(kind, record)) : ownersOf(kind, record)),
    learn: (kind, id, accountId) => facts.set(`${kind}:${id}`, [{ accountId }]),
    checkIds: async (user, ids) => {
      try {
        return await checkIds(user, ids);
      } catch (e) {
        if (e instanceof ServiceUnavailable) throw new ProxyRefusal('UPSTREAM_UNAVAILABLE', 'The ownership lookup could not reach the service.');
        throw e;
      }
    },
    judge: async (user, list) => {
      try {
        return await judge(user, list);
      } catch (e) {
        if (e instanceof ServiceUnavailable) throw new ProxyRefusal('UPSTREAM_UNAVAILABLE', 'The ownership lookup could not reach the service.');
        throw e;
      }
    },
  };
}
