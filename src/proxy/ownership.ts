/**
 * Ownership checks: confine each signed-in user to their own customer, accounts and everything
 * hanging off them, on every route the library calls.
 *
 * `currentUser(request)` names the user's customer (and optionally narrows the accounts). Then
 * every id the request names (see `extractIds`) must be the user's:
 *
 * | id | how it is tied to the user | not the user's | unknown |
 * |---|---|---|---|
 * | customerId (also `cardholderId`) | equal to the user's | 403 | 403 |
 * | accountId, fundingSourceId | among `GET /internal-account?customerId=` | 403 | 403 |
 * | quoteId | `GET /quotes/{id}` → `source.accountId` / `source.customerId` | 403 | 404 |
 * | cardId | `GET /cards/{id}` → `cardholderId` | 403 | 404 |
 * | delegatedKeyId | `GET /auth/delegated-keys/{id}` → `accountId` | 403 | 404 |
 * | transactionId | `GET /transactions/{id}` → `customerId` | 403 | 404 |
 * | credentialId | listed by `GET /auth/credentials?accountId=` of one of the user's wallets | 404 | 404 |
 * | sessionId | listed by `GET /auth/sessions?accountId=` of one of the user's wallets | 404 | 404 |
 *
 * The service has no per-id read of a credential or a session, so for those "someone else's" and
 * "unknown" cannot be told apart: both are 404. Every refusal is the proxy's own small JSON body:
 * nothing of the looked-up record reaches the caller.
 */
import type { Ids } from './ids.js';
import { OwnerCache, type OwnerCacheOptions } from './owner-cache.js';
import { errorResponse } from './responses.js';
import { listData, ServiceUnavailable, type ServiceClient } from './service.js';
import type { AuthorizeContext, CurrentUser, CurrentUserResolver } from './types.js';

// CurrentUser and CurrentUserResolver are declared in types.ts (beside ProxyOptions, which uses them).
export type { CurrentUser, CurrentUserResolver };


type Owner = { readonly customerId: string } | { readonly accountId: string };

interface Accounts {
  readonly all: ReadonlySet<string>;
  readonly wallets: readonly string[];
  /** When this list was read (ms). */
  readonly at: number;
}

/**
 * An account id that is not in the user's cached list makes the list be read again (the customer
 * may have opened an account since), but not more than once per this many ms: a user sending
 * other customers' account ids costs at most one listing per second, not one per request.
 */
const RELIST_AFTER_MS = 1_000;

const MAX_ACCOUNT_PAGES = 10;

function notFound(code: string, what: string): Response {
  return new Response(JSON.stringify({ code, reason: `No ${what} with this id.` }), {
    status: 404,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}

const forbidden = (what: string) => new OwnershipRefusal(errorResponse('FORBIDDEN', `This ${what} is not yours.`));

class OwnershipRefusal {
  constructor(readonly response: Response) {}
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const field = (record: Record<string, unknown>, key: string): Record<string, unknown> => {
  const value = record[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
};

/** Secondary ids read one by one: path, how the record names its owner, the 404 code when unknown. */
const LOOKUPS = {
  quoteId: {
    path: '/quotes/',
    what: 'quote',
    code: 'QUOTE_NOT_FOUND',
    owner: (r: Record<string, unknown>): Owner | undefined => {
      const source = field(r, 'source');
      const accountId = str(source.accountId);
      if (accountId !== undefined) return { accountId };
      const customerId = str(source.customerId);
      return customerId === undefined ? undefined : { customerId };
    },
  },
  cardId: {
    path: '/cards/',
    what: 'card',
    code: 'NOT_FOUND',
    owner: (r: Record<string, unknown>): Owner | undefined => {
      const customerId = str(r.cardholderId);
      return customerId === undefined ? undefined : { customerId };
    },
  },
  delegatedKeyId: {
    path: '/auth/delegated-keys/',
    what: 'delegated key',
    code: 'NOT_FOUND',
    owner: (r: Record<string, unknown>): Owner | undefined => {
      const accountId = str(r.accountId);
      return accountId === undefined ? undefined : { accountId };
    },
  },
  transactionId: {
    path: '/transactions/',
    what: 'transaction',
    code: 'TRANSACTION_NOT_FOUND',
    owner: (r: Record<string, unknown>): Owner | undefined => {
      const customerId = str(r.customerId);
      return customerId === undefined ? undefined : { customerId };
    },
  },
} as const;

/** Secondary ids that can only be found in a list per wallet account. */
const LISTED = {
  credentialId: { path: '/auth/credentials', what: 'credential', code: 'AUTH_METHOD_NOT_FOUND' },
  sessionId: { path: '/auth/sessions', what: 'active session', code: 'SESSION_NOT_FOUND' },
} as const;

export interface OwnershipCheck {
  (request: Request, context: AuthorizeContext): Promise<true | Response>;
}

/**
 * Builds the check `createProxy({ currentUser })` runs before forwarding. `service` makes the
 * lookups with the platform credentials.
 */
export function ownershipCheck(service: ServiceClient, currentUser: CurrentUserResolver, cacheOptions: OwnerCacheOptions = {}): OwnershipCheck {
  const facts = new OwnerCache<Owner>(cacheOptions);
  // Accounts change (a customer may open one), so a miss below re-lists once before refusing.
  const accountLists = new OwnerCache<Accounts>({ ...cacheOptions, ttlMs: Math.min(cacheOptions.ttlMs ?? 60_000, 30_000) });

  const accountsOf = async (user: CurrentUser, fresh: boolean): Promise<Accounts> => {
    const key = user.customerId;
    const cached = accountLists.get(key);
    if (cached !== undefined && (!fresh || Date.now() - cached.at < RELIST_AFTER_MS)) return cached;
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_ACCOUNT_PAGES; page++) {
      const answer = await service.call('GET', '/internal-account', { query: { customerId: user.customerId, limit: '100', ...(cursor ? { cursor } : {}) } });
      if (answer.status !== 200) throw new ServiceUnavailable(`The account lookup answered ${answer.status}.`);
      items.push(...listData(answer));
      const body = answer.body as { hasMore?: unknown; nextCursor?: unknown };
      cursor = body.hasMore === true ? str(body.nextCursor) : undefined;
      if (cursor === undefined) break;
    }
    const narrowed = user.accountIds === undefined ? undefined : new Set(user.accountIds);
    // A listed account that names another customer is not trusted as the user's.
    const mine = items.filter((a) => {
      const id = str(a.id);
      return id !== undefined && (a.customerId === undefined || a.customerId === user.customerId) && (narrowed === undefined || narrowed.has(id));
    });
    const accounts: Accounts = {
      all: new Set(mine.map((a) => String(a.id))),
      wallets: mine.filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => String(a.id)),
      at: Date.now(),
    };
    accountLists.set(key, accounts);
    return accounts;
  };

  const ownsAccount = async (user: CurrentUser, id: string): Promise<boolean> =>
    (await accountsOf(user, false)).all.has(id) || (await accountsOf(user, true)).all.has(id);


  const isMine = async (user: CurrentUser, owner: Owner): Promise<boolean> =>
    'customerId' in owner ? owner.customerId === user.customerId : ownsAccount(user, owner.accountId);

  const checkLooked = async (user: CurrentUser, kind: keyof typeof LOOKUPS, id: string): Promise<void> => {
    const spec = LOOKUPS[kind];
    const key = `${kind}:${id}`;
    let owner = facts.get(key);
    if (owner === undefined) {
      const answer = await service.call('GET', spec.path + encodeURIComponent(id).replace(/%3A/g, ':'));
      if (answer.status === 404) {
        const code = str((answer.body as { code?: unknown } | undefined)?.code);
        throw new OwnershipRefusal(notFound(code !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : spec.code, spec.what));
      }
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null) {
        throw new ServiceUnavailable(`The ${spec.what} lookup answered ${answer.status}.`);
      }
      owner = spec.owner(answer.body as Record<string, unknown>);
      if (owner === undefined) throw forbidden(spec.what);
      facts.set(key, owner);
    }
    if (!(await isMine(user, owner))) throw forbidden(spec.what);
  };

  const checkListed = async (user: CurrentUser, kind: keyof typeof LISTED, id: string): Promise<void> => {
    const spec = LISTED[kind];
    const key = `${kind}:${id}`;
    if (facts.get(key) === undefined) {
      for (const accountId of (await accountsOf(user, false)).wallets) {
        const answer = await service.call('GET', spec.path, { query: { accountId } });
        if (answer.status !== 200) throw new ServiceUnavailable(`The ${spec.what} lookup answered ${answer.status}.`);
        for (const item of listData(answer)) {
          const itemId = str(item.id);
          if (itemId !== undefined) facts.set(`${kind}:${itemId}`, { accountId });
        }
      }
    }
    const owner = facts.get(key);
    if (owner === undefined || !(await isMine(user, owner))) throw new OwnershipRefusal(notFound(spec.code, spec.what));
  };

  const check = async (user: CurrentUser, ids: Ids): Promise<void> => {
    if (ids.customerId !== undefined && ids.customerId !== user.customerId) throw forbidden('customer');
    if (ids.accountId !== undefined && !(await ownsAccount(user, ids.accountId))) throw forbidden('account');
    if (ids.fundingSourceId !== undefined && !(await ownsAccount(user, ids.fundingSourceId))) throw forbidden('funding source');
    for (const kind of ['credentialId', 'sessionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) await checkListed(user, kind, id);
    }
    for (const kind of ['quoteId', 'cardId', 'delegatedKeyId', 'transactionId'] as const) {
      const id = ids[kind];
      if (id !== undefined) await checkLooked(user, kind, id);
    }
  };

  return async (request, context) => {
    const user = await currentUser(request);
    if (user === null || user === undefined) return errorResponse('LOGIN_REQUIRED', 'Sign in first.');
    if (typeof user !== 'object' || typeof user.customerId !== 'string' || user.customerId === '') {
      throw new TypeError('currentUser must answer {customerId} or null');
    }
    try {
      await check(user, context);
      return true;
    } catch (e) {
      if (e instanceof OwnershipRefusal) return e.response;
      if (e instanceof ServiceUnavailable) return errorResponse('UPSTREAM_UNAVAILABLE', 'The ownership lookup could not reach the service.');
      throw e;
    }
  };
}
