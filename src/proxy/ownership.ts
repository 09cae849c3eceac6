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
 *   of one of the customer's wallets, then as an account (the service has no per-id read of them,
 *   so "someone else's" and "unknown" are both 404);
 * - quote, card, delegated key, transaction: `GET /quotes/{id}` (…) read with the platform
 *   credentials, the owners read by the kind's resolver, each checked as above (unknown id → 404).
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
import type { Ids, RecordKind } from './routes.js';
import type { CurrentUser, CurrentUserResolver } from './types.js';

// CurrentUser and CurrentUserResolver are declared in types.ts (beside ProxyOptions, which uses them).
export type { CurrentUser, CurrentUserResolver };


/** How an owner relates to the user: theirs, their customer's but outside `accountIds`, or someone else's. */
export type Verdict = 'mine' | 'narrowed' | 'foreign';

interface Accounts {
  readonly all: ReadonlySet<string>;
  readonly wallets: readonly string[];
  /** When this list was read (ms). */
  readonly at: number;
}

type Fact = Accounts | readonly RecordOwner[];

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

export interface Ownership {
  /** Refuses (throws `ProxyRefusal`) unless every id is the user's. */
  checkIds(user: CurrentUser, ids: Ids): Promise<void>;
  /** How a record's owners relate to the user; `undefined` when there are none. */
  judge(user: CurrentUser, owners: readonly RecordOwner[] | undefined): Promise<Verdict | undefined>;
}

/** `owners.<kind>` found no owner: the log line names the option. */
export function ownerUnknown(kind: RecordKind): ProxyRefusal {
  return new ProxyRefusal('OWNER_UNKNOWN', `The ${WHAT[kind]}'s owner could not be read from the service's record.`, `set owners.${kind}`);
}

export function ownership(service: ServiceClient, owners: OwnerResolvers, cacheOptions: OwnerCacheOptions = {}): Ownership {
  const facts = new OwnerCache<Fact>(cacheOptions);

  const accountsOf = async (customerId: string, fresh: boolean): Promise<Accounts> => {
    const key = `accounts:${customerId}`;
    const cached = facts.get(key) as Accounts | undefined;
    if (cached !== undefined && (!fresh || Date.now() - cached.at < RELIST_AFTER_MS)) return cached;
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_ACCOUNT_PAGES; page++) {
      const answer = await service.call('GET', '/internal-account', { query: { customerId, limit: '100', ...(cursor ? { cursor } : {}) } });
      if (answer.status !== 200) throw new ProxyRefusal('LOOKUP_FAILED', `The account lookup (GET /internal-account) answered ${answer.status}.`);
      items.push(...listData(answer));
      const body = answer.body as { hasMore?: unknown; nextCursor?: unknown };
      cursor = body.hasMore === true ? str(body.nextCursor) : undefined;
      if (cursor === undefined) break;
    }
    // A listed account that names another customer is not trusted as this customer's.
    const theirs = items.filter((a) => str(a.id) !== undefined && (a.customerId === undefined || a.customerId === customerId));
    const accounts: Accounts = {
      all: new Set(theirs.map((a) => String(a.id))),
      wallets: theirs.filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => String(a.id)),
      at: Date.now(),
    };
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
    let verdict: Verdict = 'mine';
    for (const owner of list) {
      const one: Verdict = 'customerId' in owner ? (owner.customerId === user.customerId ? 'mine' : 'foreign') : await accountVerdict(user, owner.accountId);
      if (one === 'foreign') return 'foreign';
      if (one === 'narrowed') verdict = 'narrowed';
    }
    return verdict;
  };

  const forbidden = (what: string): ProxyRefusal => new ProxyRefusal('FORBIDDEN', `This ${what} is not yours.`);

  const ownersOf = (kind: RecordKind, record: Record<string, unknown>): readonly RecordOwner[] | undefined => {
    const found = owners[kind](record);
    return Array.isArray(found) && found.length > 0 ? found : undefined;
  };

  const checkLooked = async (user: CurrentUser, idKind: keyof typeof LOOKUPS, id: string): Promise<void> => {
    const spec = LOOKUPS[idKind];
    const key = `${spec.kind}:${id}`;
    // S10: a card's funding source can change (PATCH /cards/{id}, spec §4.6): its owner is read every time.
    const cacheable = spec.kind !== 'card';
    let found = cacheable ? (facts.get(key) as readonly RecordOwner[] | undefined) : undefined;
    if (found === undefined) {
      const answer = await service.call('GET', spec.path + encodeURIComponent(id).replace(/%3A/g, ':'));
      if (answer.status === 404) throw new ProxyRefusal(spec.code, `No ${WHAT[spec.kind]} with this id.`);
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
        throw new ProxyRefusal('LOOKUP_FAILED', `The ${WHAT[spec.kind]} lookup (GET ${spec.path}{id}) answered ${answer.status}.`);
      }
      found = ownersOf(spec.kind, answer.body as Record<string, unknown>);
      if (found === undefined) throw ownerUnknown(spec.kind);
      if (cacheable) facts.set(key, found);
    }
    if ((await judge(user, found)) !== 'mine') throw forbidden(WHAT[spec.kind]);
  };

  const checkListed = async (user: CurrentUser, idKind: keyof typeof LISTED, id: string): Promise<void> => {
    const spec = LISTED[idKind];
    const key = `${spec.kind}:${id}`;
    if (facts.get(key) === undefined) {
      for (const accountId of (await accountsOf(user.customerId, false)).wallets) {
        const answer = await service.call('GET', spec.path, { query: { accountId } });
        if (answer.status !== 200) throw new ProxyRefusal('LOOKUP_FAILED', `The ${WHAT[spec.kind]} lookup (GET ${spec.path}) answered ${answer.status}.`);
        for (const item of listData(answer)) {
          const itemId = str(item.id);
          // The account the list was read for owns what it lists.
          if (itemId !== undefined) facts.set(`${spec.kind}:${itemId}`, [{ accountId }]);
        }
      }
    }
    const found = facts.get(key) as readonly RecordOwner[] | undefined;
    if ((await judge(user, found)) !== 'mine') throw new ProxyRefusal(spec.code, `No ${WHAT[spec.kind]} with this id.`);
  };

  const checkIds = async (user: CurrentUser, ids: Ids): Promise<void> => {
    if (ids.customerId !== undefined && ids.customerId !== user.customerId) throw forbidden('customer');
    if (ids.accountId !== undefined && (await accountVerdict(user, ids.accountId)) !== 'mine') throw forbidden('account');
    if (ids.fundingSourceId !== undefined && (await accountVerdict(user, ids.fundingSourceId)) !== 'mine') throw forbidden('funding source');
    for (const kind of ['credentialId', 'sessionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) await checkListed(user, kind, id);
    }
    for (const kind of ['quoteId', 'cardId', 'delegatedKeyId', 'transactionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) await checkLooked(user, kind, id);
    }
  };

  return {
    checkIds: async (user, ids) => {
      try {
        await checkIds(user, ids);
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
