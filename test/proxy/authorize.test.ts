import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizeContext } from '../../src/proxy/index.js';
import { ACCOUNT, CUSTOMER, errorBody, harness, json } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';
import { flush } from '../helpers/wait-for.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const OTHER_ACCOUNT = 'InternalAccount:ffffffff-0000-4000-8000-000000000000';
const OTHER_CUSTOMER = 'Customer:eeeeeeee-0000-4000-8000-000000000000';
/** A request the default allowlist has for an account id in the path (the library's account update). */
const PATCH_PRIVATE = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"privateEnabled":true}' };

/** A proxy whose hook records every context it sees and answers with `verdict`. */
function recording(verdict: (ctx: AuthorizeContext) => boolean | Response | Promise<boolean | Response> = () => true) {
  const seen: AuthorizeContext[] = [];
  const h = harness(upstream, {
    authorize: (_request, ctx) => {
      seen.push(ctx);
      return verdict(ctx);
    },
  });
  return { ...h, seen };
}

describe('authorize hook: the ids it is given', () => {
  it('from the path, named by the pattern placeholder', async () => {
    const { call, seen } = recording();
    await call(`/internal-accounts/${ACCOUNT}/export`, json({ clientPublicKey: '04ab' }));
    await call('/auth/credentials/AuthMethod:1/verify', json({ type: 'OAUTH' }));
    await call('/auth/sessions/Session:2/refresh', json({ clientPublicKey: '02ab' }));
    await call(`/customers/${CUSTOMER}`);
    await call('/auth/delegated-keys/DelegatedKey:3', { method: 'DELETE' });
    await call('/quotes/Quote:4/execute', { method: 'POST' });
    await call('/cards/Card:5');
    expect(seen.map((c) => [c.method, c.pattern, c.params])).toEqual([
      ['POST', '/internal-accounts/{accountId}/export', { accountId: ACCOUNT }],
      ['POST', '/auth/credentials/{credentialId}/verify', { credentialId: 'AuthMethod:1' }],
      ['POST', '/auth/sessions/{sessionId}/refresh', { sessionId: 'Session:2' }],
      ['GET', '/customers/{customerId}', { customerId: CUSTOMER }],
      ['DELETE', '/auth/delegated-keys/{delegatedKeyId}', { delegatedKeyId: 'DelegatedKey:3' }],
      ['POST', '/quotes/{quoteId}/execute', { quoteId: 'Quote:4' }],
      ['GET', '/cards/{cardId}', { cardId: 'Card:5' }],
    ]);
    expect(seen[0]?.accountId).toBe(ACCOUNT);
    expect(seen[0]?.path).toBe(`/internal-accounts/${ACCOUNT}/export`);
    expect(seen[1]?.credentialId).toBe('AuthMethod:1');
    expect(seen[2]?.sessionId).toBe('Session:2');
    expect(seen[3]?.customerId).toBe(CUSTOMER);
    expect(seen[4]?.delegatedKeyId).toBe('DelegatedKey:3');
    expect(seen[5]?.quoteId).toBe('Quote:4');
    expect(seen[6]?.cardId).toBe('Card:5');
  });

  it('from the query', async () => {
    const { call, seen } = recording();
    await call(`/internal-account?customerId=${CUSTOMER}&currency=USD`);
    await call(`/auth/credentials?accountId=${ACCOUNT}`);
    await call('/auth/delegated-keys?fundingSourceId=InternalAccount:9');
    await call(`/transactions?senderAccountIdentifier=${ACCOUNT}&limit=5`);
    expect(seen[0]?.customerId).toBe(CUSTOMER);
    expect(seen[0]?.accountId).toBeUndefined();
    expect(seen[1]?.accountId).toBe(ACCOUNT);
    expect(seen[2]?.fundingSourceId).toBe('InternalAccount:9');
    expect(seen[3]?.accountId).toBe(ACCOUNT);
    expect(seen[3]?.customerId).toBeUndefined();
  });

  it('from the JSON body', async () => {
    const { call, seen } = recording();
    await call('/auth/credentials', json({ type: 'SMS_OTP', accountId: ACCOUNT }));
    await call('/auth/delegated-keys', json({ cardId: 'Card:1', internalAccountId: ACCOUNT, nickname: 'k' }));
    await call('/quotes', json({ source: { sourceType: 'ACCOUNT', accountId: ACCOUNT }, destination: { destinationType: 'ACCOUNT', accountId: OTHER_ACCOUNT }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 }));
    await call('/quotes', json({ source: { sourceType: 'REALTIME_FUNDING', customerId: CUSTOMER, currency: 'USD' } }));
    await call('/cards', json({ cardholderId: CUSTOMER, fundingSource: ACCOUNT }));
    expect(seen[0]?.accountId).toBe(ACCOUNT);
    expect(seen[0]?.body).toEqual({ type: 'SMS_OTP', accountId: ACCOUNT });
    expect([seen[1]?.accountId, seen[1]?.cardId]).toEqual([ACCOUNT, 'Card:1']);
    // The destination is somebody else's account on purpose: only the source is the caller's.
    expect(seen[2]?.accountId).toBe(ACCOUNT);
    expect(seen[3]?.customerId).toBe(CUSTOMER);
    expect([seen[4]?.customerId, seen[4]?.fundingSourceId]).toEqual([CUSTOMER, ACCOUNT]);
  });

  it('refuses two different ids of one kind before the hook runs (400 INVALID_INPUT)', async () => {
    const { call, seen } = recording();
    const before = upstream.received.length;
    const cases: [string, RequestInit | undefined][] = [
      [`/internal-accounts/${ACCOUNT}/export`, json({ accountId: OTHER_ACCOUNT })],
      [`/auth/credentials?accountId=${ACCOUNT}&accountId=${OTHER_ACCOUNT}`, undefined],
      [`/transactions?customerId=${CUSTOMER}&senderAccountIdentifier=${ACCOUNT}&customerId=${OTHER_CUSTOMER}`, undefined],
      ['/auth/delegated-keys', json({ accountId: ACCOUNT, internalAccountId: OTHER_ACCOUNT, cardId: 'Card:1' })],
      [`/customers/${CUSTOMER}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerId: OTHER_CUSTOMER }) }],
      [`/auth/credentials?accountId=${ACCOUNT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accountId: OTHER_ACCOUNT }) }],
    ];
    for (const [path, init] of cases) {
      const response = await call(path, init);
      expect(response.status, path).toBe(400);
      expect((await errorBody(response)).code).toBe('INVALID_INPUT');
    }
    expect(seen).toHaveLength(0);
    expect(upstream.received.length).toBe(before);
  });

  it('refuses an id field that is not a string', async () => {
    const { call, seen } = recording();
    for (const body of [{ accountId: [ACCOUNT, OTHER_ACCOUNT] }, { source: { accountId: { id: OTHER_ACCOUNT } } }, { customerId: null }]) {
      const response = await call('/quotes', json(body));
      expect(response.status).toBe(400);
    }
    expect(seen).toHaveLength(0);
  });

  it('S3: a body field naming an id that the route does not declare → 400, even with the same value as the path', async () => {
    const { call, seen } = recording();
    const response = await call(`/internal-accounts/${ACCOUNT}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accountId: ACCOUNT, privateEnabled: true }) });
    expect(response.status).toBe(400);
    expect(seen).toEqual([]);
  });

  it('the same id in two declared places with the same value is fine', async () => {
    const { call, seen } = recording();
    const response = await call(`/transactions?customerId=${CUSTOMER}&senderAccountIdentifier=${ACCOUNT}`);
    expect(response.status).toBe(200);
    expect(seen[0]?.accountId).toBe(ACCOUNT);
  });

  it('decodes %3A in a path id to the same id (and forwards it with a colon)', async () => {
    const { call, seen } = recording();
    const before = upstream.received.length;
    await call(`/internal-accounts/${ACCOUNT.replace(':', '%3A')}`, PATCH_PRIVATE);
    expect(seen[0]?.accountId).toBe(ACCOUNT);
    expect(upstream.received[before]?.url).toBe(`/2025-10-13/internal-accounts/${ACCOUNT}`);
  });
});

describe('authorize hook: verdicts', () => {
  /** Confines the caller to one customer and one account, as the demo does. */
  const confine = (ctx: AuthorizeContext): boolean =>
    (ctx.customerId === undefined || ctx.customerId === CUSTOMER) &&
    (ctx.accountId === undefined || ctx.accountId === ACCOUNT) &&
    (ctx.customerId !== undefined || ctx.accountId !== undefined);

  it('false → 403 FORBIDDEN and nothing forwarded; true → forwarded', async () => {
    const { call } = recording(confine);
    const before = upstream.received.length;
    const denied = [
      await call(`/internal-accounts/${OTHER_ACCOUNT}`, PATCH_PRIVATE),
      await call(`/auth/sessions?accountId=${OTHER_ACCOUNT}`),
      await call(`/customers/${OTHER_CUSTOMER}`),
      await call('/quotes', json({ source: { sourceType: 'ACCOUNT', accountId: OTHER_ACCOUNT } })),
      await call('/transactions'),
    ];
    for (const response of denied) {
      expect(response.status).toBe(403);
      expect(await errorBody(response)).toEqual({ code: 'FORBIDDEN', reason: expect.any(String) });
    }
    expect(upstream.received.length).toBe(before);
    expect((await call(`/internal-accounts/${ACCOUNT}`, PATCH_PRIVATE)).status).toBe(200);
    expect((await call(`/transactions?customerId=${CUSTOMER}`)).status).toBe(200);
    expect(upstream.received.length).toBe(before + 2);
  });

  it('an async hook and a truthy non-boolean: only `true` lets a request through', async () => {
    const { call } = recording(async () => {
      await flush(); // answers in a later task
      return 1 as unknown as boolean;
    });
    expect((await call(`/internal-accounts/${ACCOUNT}`, PATCH_PRIVATE)).status).toBe(403);
    const ok = recording(async () => true);
    expect((await ok.call(`/internal-accounts/${ACCOUNT}`, PATCH_PRIVATE)).status).toBe(200);
  });

  it('a Response from the hook is sent as it is', async () => {
    const { call, lines } = recording(() => new Response('{"code":"LOGIN_REQUIRED","reason":"log in"}', { status: 401, headers: { 'content-type': 'application/json', 'set-cookie': 'demo=; Max-Age=0' } }));
    const before = upstream.received.length;
    const response = await call(`/internal-accounts/${ACCOUNT}`, PATCH_PRIVATE);
    expect(response.status).toBe(401);
    expect(response.headers.getSetCookie()).toEqual(['demo=; Max-Age=0']);
    expect(await response.json()).toEqual({ code: 'LOGIN_REQUIRED', reason: 'log in' });
    expect(upstream.received.length).toBe(before);
    expect(lines.at(-1)).toMatch(/^proxy PATCH \/internal-accounts\/InternalAccount:\S+ 401 \d+ms$/);
  });

  it('a hook that throws → 500 INTERNAL_ERROR, its message neither sent nor logged', async () => {
    const { call, lines } = recording(() => {
      throw new Error('db password is hunter2');
    });
    const response = await call(`/internal-accounts/${ACCOUNT}`, PATCH_PRIVATE);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text).code).toBe('INTERNAL_ERROR');
    expect(text).not.toContain('hunter2');
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('is not asked about requests the allowlist or the path check already refused', async () => {
    const { call, seen } = recording();
    await call('/customers', json({}));
    await call('/internal-accounts/a%2Fb');
    await call('/quotes', { method: 'PUT' });
    expect(seen).toHaveLength(0);
  });

  it('receives the original request (e.g. to read the app session cookie)', async () => {
    let cookie: string | null = null;
    const h = harness(upstream, {
      authorize: (request) => {
        cookie = request.headers.get('cookie');
        return true;
      },
    });
    await h.call(`/customers/${CUSTOMER}`, { headers: { cookie: 'demo_session=s1' } });
    expect(cookie).toBe('demo_session=s1');
  });
});
