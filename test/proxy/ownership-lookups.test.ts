/**
 * The ownership lookups (src/proxy/ownership.ts) and the owner resolvers (src/proxy/owners.ts)
 * against a scripted service: pagination of the account list, re-listing on a miss (at most once a
 * second), what is cached, the wallets whose credentials and sessions are listed, the 404 code of
 * each kind, lookups answering something unusable, and every default resolver.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProxy, DEFAULT_OWNERS } from '../../src/proxy/index.js';

const A = 'Customer:a';
const B = 'Customer:b';

interface Call {
  readonly path: string;
  readonly query: URLSearchParams;
}

type Handler = (path: string, query: URLSearchParams) => Response | undefined;

function setup(handler: Handler, user: { customerId: string; accountIds?: string[] } = { customerId: A }) {
  const lookups: Call[] = [];
  const forwarded: Call[] = [];
  const proxy = createProxy({
    baseUrl: 'https://service.test/v1',
    clientId: 'client',
    clientSecret: 'secret-0123456789',
    currentUser: () => user,
    logger: false,
    fetch: async (input, init) => {
      const url = new URL(input);
      const path = decodeURIComponent(url.pathname.replace('/v1', ''));
      const isLookup = new Headers(init.headers).get('request-id') === null;
      (isLookup ? lookups : forwarded).push({ path, query: url.searchParams });
      // A forwarded call gets a signed-retry challenge: no record in it, so no answer check (scope.test.ts covers those).
      if (!isLookup) return Response.json({ payloadToSign: 'p', requestId: 'Request:r', expiresAt: '2030-01-01T00:00:00Z' }, { status: 202 });
      return handler(path, url.searchParams) ?? Response.json({ code: 'NOT_FOUND', reason: 'x' }, { status: 404 });
    },
  });
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await proxy(new Request(`http://app.test${path}`, { ...init, headers: { 'request-id': 'Request:1', ...(init.headers as Record<string, string>) } }));
    const body = (await response.json()) as { code?: string; reason?: string };
    return { status: response.status, code: body.code, reason: body.reason };
  };
  return { send, lookups, forwarded };
}

const accounts = (...list: { id: string; customerId?: string; type?: string }[]) => Response.json({ data: list, hasMore: false });
const patch = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"nickname":"n"}' };

afterEach(() => vi.restoreAllMocks());

describe('accounts', () => {
  it('the account list is read page by page (cursor) for the user\'s customer, with limit 100', async () => {
    const { send, lookups } = setup((path, query) => {
      if (path !== '/internal-account') return undefined;
      if (query.get('cursor') === null) return Response.json({ data: [{ id: 'IA:1', customerId: A }], hasMore: true, nextCursor: 'c2' });
      if (query.get('cursor') === 'c2') return Response.json({ data: [{ id: 'IA:2', customerId: A }], hasMore: false });
      return undefined;
    });
    expect((await send('/internal-accounts/IA:2', patch)).status).toBe(202);
    expect(lookups.map((l) => `${l.query.get('customerId')} ${l.query.get('limit')} ${l.query.get('cursor')}`)).toEqual([`${A} 100 null`, `${A} 100 c2`]);
  });

  it('an account listed without customerId is the customer\'s; one naming another customer is not', async () => {
    const { send } = setup(() => accounts({ id: 'IA:1' }, { id: 'IA:2', customerId: B }, { id: '' }));
    expect((await send('/internal-accounts/IA:1', patch)).status).toBe(202);
    const refused = await send('/internal-accounts/IA:2', patch);
    expect(refused).toEqual({ status: 403, code: 'FORBIDDEN', reason: 'This account is not yours.' });
  });

  it('a miss re-lists the accounts (a new account works at once), but not more than once a second', async () => {
    let now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    let list = [{ id: 'IA:1', customerId: A }];
    const { send, lookups } = setup((path) => (path === '/internal-account' ? accounts(...list) : undefined));
    expect((await send('/internal-accounts/IA:1', patch)).status).toBe(202);
    expect(lookups).toHaveLength(1);
    now += 500;
    list = [...list, { id: 'IA:2', customerId: A }];
    // Within a second of the last listing: no second listing, so the brand-new account is refused for now.
    expect((await send('/internal-accounts/IA:2', patch)).status).toBe(403);
    expect(lookups).toHaveLength(1);
    now += 600;
    expect((await send('/internal-accounts/IA:2', patch)).status).toBe(202);
    expect(lookups).toHaveLength(2);
    // A hit never re-lists.
    now += 5_000;
    expect((await send('/internal-accounts/IA:1', patch)).status).toBe(202);
    expect(lookups).toHaveLength(2);
  });

  it('a funding source outside the customer\'s accounts → 403 naming the funding source', async () => {
    const { send } = setup(() => accounts({ id: 'IA:1', customerId: A }));
    expect(await send('/auth/delegated-keys?fundingSourceId=IA:9')).toEqual({ status: 403, code: 'FORBIDDEN', reason: 'This funding source is not yours.' });
    expect(await send(`/transactions?customerId=${B}`)).toEqual({ status: 403, code: 'FORBIDDEN', reason: 'This customer is not yours.' });
  });
});

describe('credentials and sessions', () => {
  it('are listed for each EMBEDDED_WALLET account of the customer only; found → forwarded, listed once', async () => {
    const { send, lookups } = setup((path, query) => {
      if (path === '/internal-account') return accounts({ id: 'IA:w1', customerId: A, type: 'EMBEDDED_WALLET' }, { id: 'IA:u', customerId: A, type: 'INTERNAL_CRYPTO' }, { id: 'IA:w2', customerId: A, type: 'EMBEDDED_WALLET' });
      if (path === '/auth/credentials') return Response.json({ data: query.get('accountId') === 'IA:w2' ? [{ id: 'AuthMethod:1' }, { nope: 1 }] : [] });
      if (path === '/auth/sessions') return Response.json({ data: [{ id: 'Session:1' }] });
      return undefined;
    });
    expect((await send('/auth/credentials/AuthMethod:1', { method: 'DELETE' })).status).toBe(202);
    expect(lookups.filter((l) => l.path === '/auth/credentials').map((l) => l.query.get('accountId'))).toEqual(['IA:w1', 'IA:w2']);
    expect((await send('/auth/credentials/AuthMethod:1', { method: 'DELETE' })).status).toBe(202);
    expect(lookups.filter((l) => l.path === '/auth/credentials')).toHaveLength(2);
    expect((await send('/auth/sessions/Session:1', { method: 'DELETE' })).status).toBe(202);
    expect(await send('/auth/credentials/AuthMethod:2', { method: 'DELETE' })).toEqual({ status: 404, code: 'AUTH_METHOD_NOT_FOUND', reason: 'No credential with this id.' });
    expect(await send('/auth/sessions/Session:2', { method: 'DELETE' })).toEqual({ status: 404, code: 'SESSION_NOT_FOUND', reason: 'No active session with this id.' });
  });

  it('a credential of a wallet outside accountIds is not found for the narrowed user', async () => {
    const { send } = setup(
      (path) => {
        if (path === '/internal-account') return accounts({ id: 'IA:w1', customerId: A, type: 'EMBEDDED_WALLET' }, { id: 'IA:w2', customerId: A, type: 'EMBEDDED_WALLET' });
        if (path === '/auth/credentials') return Response.json({ data: [{ id: 'AuthMethod:1' }] });
        return undefined;
      },
      { customerId: A, accountIds: ['IA:w2'] },
    );
    // Both wallets list AuthMethod:1 here; the fact kept is the last listing's (IA:w2), which the user may use.
    expect((await send('/auth/credentials/AuthMethod:1', { method: 'DELETE' })).status).toBe(202);
  });

  it('a listing that answers other than 200 → 502 LOOKUP_FAILED naming it', async () => {
    const { send } = setup((path) => {
      if (path === '/internal-account') return accounts({ id: 'IA:w1', customerId: A, type: 'EMBEDDED_WALLET' });
      return new Response('{}', { status: 503 });
    });
    expect(await send('/auth/sessions/Session:1', { method: 'DELETE' })).toEqual({ status: 502, code: 'LOOKUP_FAILED', reason: 'The active session lookup (GET /auth/sessions) answered 503.' });
  });
});

describe('records read by id', () => {
  it.each([
    ['/quotes/Quote:9', 'QUOTE_NOT_FOUND', 'No quote with this id.'],
    ['/cards/Card:9', 'NOT_FOUND', 'No card with this id.'],
    ['/auth/delegated-keys/DK:9', 'NOT_FOUND', 'No delegated key with this id.'],
  ])('%s unknown → 404 %s', async (path, code, reason) => {
    const { send } = setup(() => undefined);
    expect(await send(path)).toEqual({ status: 404, code, reason });
  });

  it('reads the record at its path (id with a literal colon), caches its owners, and refuses another customer\'s', async () => {
    const { send, lookups } = setup((path) => {
      if (path === '/internal-account') return accounts({ id: 'IA:1', customerId: A });
      if (path === '/quotes/Quote:1') return Response.json({ id: 'Quote:1', source: { accountId: 'IA:1' } });
      if (path === '/quotes/Quote:2') return Response.json({ id: 'Quote:2', source: { customerId: B } });
      return undefined;
    });
    expect((await send('/quotes/Quote:1')).status).toBe(202);
    expect((await send('/quotes/Quote:1')).status).toBe(202);
    expect(lookups.filter((l) => l.path === '/quotes/Quote:1')).toHaveLength(1);
    // S11: another customer's quote answers as an unknown one.
    expect(await send('/quotes/Quote:2')).toEqual({ status: 404, code: 'QUOTE_NOT_FOUND', reason: 'No quote with this id.' });
  });

  it.each([
    ['a 500', () => new Response('{}', { status: 500 }), 'The card lookup (GET /cards/{id}) answered 500.'],
    ['a 200 that is not JSON', () => new Response('<html>', { status: 200 }), 'The card lookup (GET /cards/{id}) answered 200.'],
    ['a 200 array', () => Response.json([{ fundingSource: 'IA:1' }]), 'The card lookup (GET /cards/{id}) answered 200.'],
  ])('%s → 502 LOOKUP_FAILED', async (_label, answer, reason) => {
    const { send } = setup((path) => (path === '/internal-account' ? accounts({ id: 'IA:1', customerId: A }) : answer()));
    expect(await send('/cards/Card:1')).toEqual({ status: 502, code: 'LOOKUP_FAILED', reason });
  });

  it('the service unreachable → 502 UPSTREAM_UNAVAILABLE (not a crash)', async () => {
    const proxy = createProxy({
      baseUrl: 'https://service.test/v1',
      clientId: 'client',
      clientSecret: 'secret-0123456789',
      currentUser: () => ({ customerId: A }),
      logger: false,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const response = await proxy(new Request('http://app.test/cards/Card:1'));
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
  });
});

describe('DEFAULT_OWNERS', () => {
  const o = DEFAULT_OWNERS;
  it('customer, account, credential, session', () => {
    expect(o.customer({ id: A })).toEqual([{ customerId: A }]);
    expect(o.customer({})).toEqual([]);
    expect(o.account({ id: 'IA:1', customerId: A })).toEqual([{ accountId: 'IA:1' }, { customerId: A }]);
    expect(o.account({ id: 'IA:1' })).toEqual([{ accountId: 'IA:1' }]);
    expect(o.account({ customerId: A })).toEqual([]);
    expect(o.credential({ accountId: 'IA:1' })).toEqual([{ accountId: 'IA:1' }]);
    expect(o.session({ accountId: '' })).toEqual([]);
    expect(o.session({ accountId: 'IA:1' })).toEqual([{ accountId: 'IA:1' }]);
  });

  it('delegated key, quote, card', () => {
    expect(o.delegatedKey({ accountId: 'IA:1', fundingSourceId: 'IA:2' })).toEqual([{ accountId: 'IA:1' }, { accountId: 'IA:2' }]);
    expect(o.delegatedKey({ accountId: 'IA:1' })).toEqual([{ accountId: 'IA:1' }]);
    expect(o.delegatedKey({ fundingSourceId: 'IA:2' })).toEqual([]);
    expect(o.quote({ source: { accountId: 'IA:1', customerId: B } })).toEqual([{ accountId: 'IA:1' }]);
    expect(o.quote({ source: { customerId: A } })).toEqual([{ customerId: A }]);
    expect(o.quote({ source: ['IA:1'] })).toEqual([]);
    expect(o.quote({ destination: { accountId: 'IA:1' } })).toEqual([]);
    expect(o.card({ fundingSource: 'IA:1', cardholderId: B })).toEqual([{ accountId: 'IA:1' }]);
    // A closed card (no funding source): its cardholder, by the sandbox's field name (a documented fallback).
    expect(o.card({ cardholderId: A })).toEqual([{ customerId: A }]);
    expect(o.card({ status: 'CLOSED' })).toEqual([]);
  });

  it('transaction: its customer and the account on its own side', () => {
    const t = { customerId: A, source: { accountId: 'IA:s' }, destination: { accountId: 'IA:d' } };
    expect(o.transaction({ ...t, type: 'OUTGOING' })).toEqual([{ customerId: A }, { accountId: 'IA:s' }]);
    expect(o.transaction({ ...t, type: 'INCOMING' })).toEqual([{ customerId: A }, { accountId: 'IA:d' }]);
    expect(o.transaction({ ...t, type: 'OTHER' })).toEqual([{ customerId: A }]);
    expect(o.transaction({ type: 'OUTGOING', source: { accountId: 'IA:s' } })).toEqual([]);
    expect(o.transaction({ customerId: A, type: 'INCOMING' })).toEqual([{ customerId: A }]);
  });
});
