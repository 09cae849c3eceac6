/**
 * The ownership checks when the service misbehaves or the app's resolver does: lookups that fail
 * are 502 (never a guess, never forwarded), a resolver that throws is 500, a bad answer from it is
 * 500, and `accountIds` narrows the user's accounts. The service here is a small in-memory fake
 * behind the proxy's `fetch` option.
 */
import { describe, expect, it } from 'vitest';
import { createProxy, type CurrentUserResolver } from '../../src/proxy/index.js';

const CUSTOMER = 'Customer:alice';
const WALLET = 'InternalAccount:wallet';
const USDC = 'InternalAccount:usdc';

type Fake = (method: string, url: URL) => Response | Promise<Response>;

function setup(fake: Fake, currentUser: CurrentUserResolver = () => ({ customerId: CUSTOMER })) {
  const forwarded: string[] = [];
  const proxy = createProxy({
    baseUrl: 'https://service.test/v1',
    clientId: 'id',
    clientSecret: 'secret-value-123',
    logger: false,
    currentUser,
    fetch: async (input, init) => {
      const url = new URL(input);
      if (new Headers(init.headers).get('request-id') === 'forwarded') forwarded.push(`${init.method} ${url.pathname}${url.search}`);
      return fake(String(init.method), url);
    },
  });
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await proxy(new Request(`http://app.test${path}`, { ...init, headers: { 'request-id': 'forwarded', ...(init.headers as Record<string, string>) } }));
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };
  return { call, forwarded };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const accounts = () => json(200, { data: [{ id: WALLET, customerId: CUSTOMER, type: 'EMBEDDED_WALLET' }, { id: USDC, customerId: CUSTOMER, type: 'INTERNAL_FIAT' }], hasMore: false });

describe('ownership lookups that fail', () => {
  it('the service unreachable during a lookup → 502 UPSTREAM_UNAVAILABLE, nothing forwarded', async () => {
    const { call, forwarded } = setup(() => {
      throw new TypeError('connect ECONNREFUSED');
    });
    expect(await call('/quotes/Quote:1')).toEqual({ status: 502, body: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE' }) });
    expect(forwarded).toEqual([]);
  });

  it('a lookup answered 500 → 502, not "yours" and not "unknown"', async () => {
    const { call, forwarded } = setup((_m, url) => (url.pathname.endsWith('/internal-account') ? accounts() : json(500, { code: 'INTERNAL' })));
    expect((await call('/cards/Card:1')).status).toBe(502);
    expect((await call(`/auth/sessions/Session:1`, { method: 'DELETE' })).status).toBe(502);
    expect(forwarded).toEqual([]);
  });

  it('a record without an owner field → 403 (not assumed to be the user\'s)', async () => {
    const { call, forwarded } = setup((_m, url) => (url.pathname.endsWith('/internal-account') ? accounts() : json(200, { id: 'DelegatedKey:1' })));
    expect((await call('/auth/delegated-keys/DelegatedKey:1')).status).toBe(403);
    expect(forwarded).toEqual([]);
  });
});

describe("the app's resolver", () => {
  it('throws → 500 INTERNAL_ERROR, its message not sent', async () => {
    const { call } = setup(accounts, () => {
      throw new Error('session store down: secret-session-id');
    });
    const answer = await call(`/internal-account?customerId=${CUSTOMER}`);
    expect([answer.status, answer.body.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(JSON.stringify(answer.body)).not.toContain('secret-session-id');
  });

  it('answers something that is not {customerId} → 500, nothing forwarded', async () => {
    const { call, forwarded } = setup(accounts, () => ({ customerId: '' }));
    expect((await call(`/internal-account?customerId=${CUSTOMER}`)).status).toBe(500);
    expect(forwarded).toEqual([]);
  });

  it('accountIds narrows the accounts: the customer\'s other account → 403', async () => {
    const { call, forwarded } = setup(
      (_m, url) => (url.pathname.endsWith('/internal-account') ? accounts() : json(200, { data: [] })),
      async () => ({ customerId: CUSTOMER, accountIds: [WALLET] }),
    );
    expect((await call(`/auth/credentials?accountId=${WALLET}`)).status).toBe(200);
    expect((await call(`/auth/credentials?accountId=${USDC}`)).status).toBe(403);
    expect(forwarded).toEqual([`GET /v1/auth/credentials?accountId=${WALLET}`]);
  });

  it("an account listed for the customer but naming another customer is not the user's", async () => {
    const { call } = setup((_m, url) =>
      url.pathname.endsWith('/internal-account') ? json(200, { data: [{ id: 'InternalAccount:odd', customerId: 'Customer:bob', type: 'EMBEDDED_WALLET' }] }) : json(200, { data: [] }),
    );
    expect((await call('/auth/credentials?accountId=InternalAccount:odd')).status).toBe(403);
  });
});
