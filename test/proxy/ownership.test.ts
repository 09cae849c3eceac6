/**
 * The proxy's ownership checks (`createProxy({ currentUser })`) against a real local sandbox with
 * two customers. The table of cases is keyed by the allowlist itself: a route added to
 * DEFAULT_ALLOW without cases here fails the first test. For every route, Alice's request naming
 * each of Bob's ids is refused (403, or 404 where the service offers no per-id read), is never
 * forwarded, and its answer holds no byte of Bob's: none of his ids, his email or his name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, DEFAULT_ALLOW, type AllowRule, type ProxyHandler } from '../../src/proxy/index.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../src/sandbox/index.js';
import type { Api } from '../sandbox/helpers/http.js';
import { secretsOf, startParties, type Party } from './parties.js';

/** Not in DEFAULT_ALLOW (the library does not call it); an app may add it, and it is checked too. */
const TRANSACTION_READ: AllowRule = { method: 'GET', pattern: '/transactions/{transactionId}' };
const ALLOW = [...DEFAULT_ALLOW, TRANSACTION_READ];

let api: Api;
let alice: Party;
let bob: Party;
let proxy: ProxyHandler;
/** Every request the proxy sent upstream: `marker` is the caller's Request-Id when it was a forwarded call (lookups carry none). */
const upstream: { method: string; url: string; marker: string | null }[] = [];
let markerCount = 0;

beforeAll(async () => {
  ({ api, alice, bob } = await startParties());
  const users: Record<string, Party> = { alice, bob };
  proxy = createProxy({
    baseUrl: api.url,
    clientId: DEFAULT_CLIENT_ID,
    clientSecret: DEFAULT_CLIENT_SECRET,
    prefix: '/api',
    allow: ALLOW,
    logger: false,
    // A real app reads its session cookie here.
    currentUser: (request) => {
      const user = users[request.headers.get('x-test-user') ?? ''];
      return user === undefined ? null : { customerId: user.customerId };
    },
    fetch: (input, init) => {
      upstream.push({ method: String(init.method), url: input, marker: new Headers(init.headers).get('request-id') });
      return fetch(input, init);
    },
  });
}, 60_000);
afterAll(() => api?.sandbox.close());

interface Case {
  readonly label: string;
  readonly path: string;
  readonly body?: unknown;
  /** 403 for a customer or account, 404 for any id looked up (S11: not Alice's and unknown look alike). */
  readonly status: 403 | 404;
}

const c = (label: string, path: string, status: 403 | 404, body?: unknown): Case => ({ label, path, status, ...(body === undefined ? {} : { body }) });
const e = encodeURIComponent;
const COMPRESSED_KEY = '02' + 'ab'.repeat(32);

/** For each allowed route: the requests Alice (`me`) can make with Bob's (`them`) ids in it. */
const CASES: Record<string, (me: Party, them: Party) => Case[]> = {
  'POST /auth/credentials': (_me, t) => [c("a credential on Bob's wallet", '/auth/credentials', 403, { type: 'SMS_OTP', accountId: t.walletId })],
  'GET /auth/credentials': (_me, t) => [c("Bob's wallet's credentials", `/auth/credentials?accountId=${e(t.walletId)}`, 403), c("Bob's USDC account's credentials", `/auth/credentials?accountId=${e(t.usdcId)}`, 403)],
  'POST /auth/credentials/{credentialId}/challenge': (_me, t) => [c("Bob's credential challenged", `/auth/credentials/${e(t.credentialId)}/challenge`, 404, {})],
  'POST /auth/credentials/{credentialId}/verify': (_me, t) => [c("Bob's credential verified", `/auth/credentials/${e(t.credentialId)}/verify`, 404, { type: 'EMAIL_OTP', encryptedOtpBundle: 'x' })],
  'DELETE /auth/credentials/{credentialId}': (_me, t) => [c("Bob's credential deleted", `/auth/credentials/${e(t.credentialId)}`, 404)],
  'GET /auth/sessions': (_me, t) => [c("Bob's sessions", `/auth/sessions?accountId=${e(t.walletId)}`, 403)],
  'DELETE /auth/sessions/{sessionId}': (_me, t) => [c("Bob's session ended", `/auth/sessions/${e(t.sessionId)}`, 404)],
  'POST /auth/sessions/{sessionId}/refresh': (_me, t) => [c("Bob's session refreshed", `/auth/sessions/${e(t.sessionId)}/refresh`, 404, { clientPublicKey: COMPRESSED_KEY })],
  'POST /auth/delegated-keys': (me, t) => [
    c("a key for Bob's card on Alice's wallet", '/auth/delegated-keys', 404, { cardId: t.cardId, internalAccountId: me.walletId, nickname: 'x' }),
    c("a key for Alice's card on Bob's wallet", '/auth/delegated-keys', 403, { cardId: me.cardId, internalAccountId: t.walletId, nickname: 'x' }),
  ],
  'GET /auth/delegated-keys': (_me, t) => [c("Bob's keys by account", `/auth/delegated-keys?accountId=${e(t.walletId)}`, 403), c("Bob's keys by funding source", `/auth/delegated-keys?fundingSourceId=${e(t.walletId)}`, 403)],
  'GET /auth/delegated-keys/{delegatedKeyId}': (_me, t) => [c("Bob's key read", `/auth/delegated-keys/${e(t.delegatedKeyId)}`, 404)],
  'DELETE /auth/delegated-keys/{delegatedKeyId}': (_me, t) => [c("Bob's key revoked", `/auth/delegated-keys/${e(t.delegatedKeyId)}`, 404)],
  'GET /internal-account': (_me, t) => [c("Bob's accounts", `/internal-account?customerId=${e(t.customerId)}`, 403)],
  'PATCH /internal-accounts/{accountId}': (_me, t) => [c("Bob's wallet changed", `/internal-accounts/${e(t.walletId)}`, 403, { nickname: 'mine now' })],
  'POST /internal-accounts/{accountId}/export': (_me, t) => [c("Bob's wallet exported", `/internal-accounts/${e(t.walletId)}/export`, 403, { clientPublicKey: COMPRESSED_KEY })],
  'POST /quotes': (me, t) => [
    c("a quote paid from Bob's wallet", '/quotes', 403, { source: { sourceType: 'ACCOUNT', accountId: t.walletId }, destination: { destinationType: 'ACCOUNT', accountId: me.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 }),
    c("a quote funded by Bob's customer", '/quotes', 403, { source: { sourceType: 'REALTIME_FUNDING', customerId: t.customerId, currency: 'USDC' }, destination: { destinationType: 'ACCOUNT', accountId: me.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 }),
  ],
  'GET /quotes/{quoteId}': (_me, t) => [c("Bob's quote read", `/quotes/${e(t.quoteId)}`, 404)],
  'POST /quotes/{quoteId}/execute': (_me, t) => [c("Bob's quote executed", `/quotes/${e(t.quoteId)}/execute`, 404)],
  'GET /transactions': (me, t) => [
    c("Bob's transactions by customer", `/transactions?customerId=${e(t.customerId)}`, 403),
    c("Bob's transactions by account", `/transactions?senderAccountIdentifier=${e(t.walletId)}`, 403),
    c("Alice's customer with Bob's account", `/transactions?customerId=${e(me.customerId)}&senderAccountIdentifier=${e(t.walletId)}`, 403),
  ],
  'GET /customers/{customerId}': (_me, t) => [c("Bob's customer read", `/customers/${e(t.customerId)}`, 403)],
  'PATCH /customers/{customerId}': (_me, t) => [c("Bob's customer changed", `/customers/${e(t.customerId)}`, 403, { fullName: 'Mallory' })],
  'POST /cards': (me, t) => [
    c("a card for Bob on his wallet", '/cards', 403, { cardholderId: t.customerId, fundingSource: t.walletId }),
    c("a card for Alice on Bob's wallet", '/cards', 403, { cardholderId: me.customerId, fundingSource: t.walletId }),
    c("a card for Bob on Alice's wallet", '/cards', 403, { cardholderId: t.customerId, fundingSource: me.walletId }),
  ],
  'GET /cards/{cardId}': (_me, t) => [c("Bob's card read", `/cards/${e(t.cardId)}`, 404)],
  'GET /transactions/{transactionId}': (_me, t) => [c("Bob's transaction read", `/transactions/${e(t.transactionId)}`, 404)],
};

const keyOf = (rule: AllowRule) => `${rule.method} ${rule.pattern}`;
const methodOf = (key: string) => key.split(' ')[0] as string;

async function send(user: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: any; marker: string }> {
  const marker = `Request:test-${++markerCount}`;
  const headers: Record<string, string> = { 'request-id': marker, ...(user === undefined ? {} : { 'x-test-user': user }) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await proxy(new Request(`http://app.test/api${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, marker };
}

const forwarded = (marker: string) => upstream.some((u) => u.marker === marker);

describe('every allowlisted route, Alice with each of Bob\'s ids', () => {
  it('the cases cover the allowlist exactly (a new route needs its cases)', () => {
    expect(Object.keys(CASES).sort()).toEqual(ALLOW.map(keyOf).sort());
  });

  const rows = ALLOW.map((rule) => [keyOf(rule)] as const);
  it.each(rows)('%s → refused, not forwarded, nothing of Bob\'s in the answer', async (key) => {
    const cases = (CASES[key] as (me: Party, them: Party) => Case[])(alice, bob);
    expect(cases.length).toBeGreaterThan(0);
    for (const row of cases) {
      const answer = await send('alice', methodOf(key), row.path, row.body);
      expect(answer.status, `${row.label}: ${answer.text}`).toBe(row.status);
      expect(forwarded(answer.marker), row.label).toBe(false);
      for (const secret of secretsOf(bob)) expect(answer.text, row.label).not.toContain(secret);
      expect(answer.text).not.toContain('payloadToSign');
      expect(answer.json?.code, row.label).toMatch(row.status === 403 ? /^FORBIDDEN$/ : /NOT_FOUND$/);
    }
  });

  it('and the same for Bob with each of Alice\'s ids (the checks do not depend on who asked first)', async () => {
    for (const rule of ALLOW) {
      for (const row of (CASES[keyOf(rule)] as (me: Party, them: Party) => Case[])(bob, alice)) {
        const answer = await send('bob', rule.method, row.path, row.body);
        expect(answer.status, `${row.label}: ${answer.text}`).toBe(row.status);
        expect(forwarded(answer.marker)).toBe(false);
        for (const secret of secretsOf(alice)) expect(answer.text, row.label).not.toContain(secret);
      }
    }
  });
});

describe('unknown ids → 404, never forwarded', () => {
  const UNKNOWN: [string, string, string][] = [
    ['GET', '/quotes/Quote:00000000-0000-4000-8000-000000000000', 'QUOTE_NOT_FOUND'],
    ['GET', '/cards/Card:00000000-0000-4000-8000-000000000000', 'NOT_FOUND'],
    ['GET', '/auth/delegated-keys/DelegatedKey:00000000-0000-4000-8000-000000000000', 'NOT_FOUND'],
    ['GET', '/transactions/Transaction:00000000-0000-4000-8000-000000000000', 'TRANSACTION_NOT_FOUND'],
    ['DELETE', '/auth/credentials/AuthMethod:00000000-0000-4000-8000-000000000000', 'AUTH_METHOD_NOT_FOUND'],
    ['DELETE', '/auth/sessions/Session:00000000-0000-4000-8000-000000000000', 'SESSION_NOT_FOUND'],
  ];
  it.each(UNKNOWN)('%s %s → 404 %s', async (method, path, code) => {
    const answer = await send('alice', method, path);
    expect([answer.status, answer.json?.code], answer.text).toEqual([404, code]);
    expect(forwarded(answer.marker)).toBe(false);
  });
});

describe("Alice's own ids go through", () => {
  /** Alice's own version of each route (read-only or first legs, so nothing of hers is used up). */
  const OWN: Record<string, (me: Party) => { path: string; body?: unknown }> = {
    'POST /auth/credentials': (m) => ({ path: '/auth/credentials', body: { type: 'SMS_OTP', accountId: m.walletId } }),
    'GET /auth/credentials': (m) => ({ path: `/auth/credentials?accountId=${e(m.walletId)}` }),
    'POST /auth/credentials/{credentialId}/challenge': (m) => ({ path: `/auth/credentials/${e(m.credentialId)}/challenge`, body: {} }),
    'POST /auth/credentials/{credentialId}/verify': (m) => ({ path: `/auth/credentials/${e(m.credentialId)}/verify`, body: { type: 'EMAIL_OTP', encryptedOtpBundle: 'x' } }),
    'DELETE /auth/credentials/{credentialId}': (m) => ({ path: `/auth/credentials/${e(m.credentialId)}` }),
    'GET /auth/sessions': (m) => ({ path: `/auth/sessions?accountId=${e(m.walletId)}` }),
    'DELETE /auth/sessions/{sessionId}': (m) => ({ path: `/auth/sessions/${e(m.sessionId)}` }),
    'POST /auth/sessions/{sessionId}/refresh': (m) => ({ path: `/auth/sessions/${e(m.sessionId)}/refresh`, body: { clientPublicKey: COMPRESSED_KEY } }),
    'POST /auth/delegated-keys': (m) => ({ path: '/auth/delegated-keys', body: { cardId: m.cardId, internalAccountId: m.walletId, nickname: 'again' } }),
    'GET /auth/delegated-keys': (m) => ({ path: `/auth/delegated-keys?accountId=${e(m.walletId)}` }),
    'GET /auth/delegated-keys/{delegatedKeyId}': (m) => ({ path: `/auth/delegated-keys/${e(m.delegatedKeyId)}` }),
    'DELETE /auth/delegated-keys/{delegatedKeyId}': (m) => ({ path: `/auth/delegated-keys/${e(m.delegatedKeyId)}` }),
    'GET /internal-account': (m) => ({ path: `/internal-account?customerId=${e(m.customerId)}` }),
    'PATCH /internal-accounts/{accountId}': (m) => ({ path: `/internal-accounts/${e(m.walletId)}`, body: { nickname: 'mine' } }),
    'POST /internal-accounts/{accountId}/export': (m) => ({ path: `/internal-accounts/${e(m.walletId)}/export`, body: { clientPublicKey: COMPRESSED_KEY } }),
    'POST /quotes': (m) => ({ path: '/quotes', body: { source: { sourceType: 'ACCOUNT', accountId: m.walletId }, destination: { destinationType: 'ACCOUNT', accountId: m.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 } }),
    'GET /quotes/{quoteId}': (m) => ({ path: `/quotes/${e(m.quoteId)}` }),
    'POST /quotes/{quoteId}/execute': (m) => ({ path: `/quotes/${e(m.quoteId)}/execute` }),
    'GET /transactions': (m) => ({ path: `/transactions?customerId=${e(m.customerId)}` }),
    'GET /customers/{customerId}': (m) => ({ path: `/customers/${e(m.customerId)}` }),
    'PATCH /customers/{customerId}': (m) => ({ path: `/customers/${e(m.customerId)}`, body: { fullName: m.fullName } }),
    'POST /cards': (m) => ({ path: '/cards', body: { cardholderId: m.customerId, fundingSource: m.usdcId } }),
    'GET /cards/{cardId}': (m) => ({ path: `/cards/${e(m.cardId)}` }),
    'GET /transactions/{transactionId}': (m) => ({ path: `/transactions/${e(m.transactionId)}` }),
  };

  it('every route is covered', () => {
    expect(Object.keys(OWN).sort()).toEqual(ALLOW.map(keyOf).sort());
  });

  it.each(ALLOW.map((rule) => [keyOf(rule)] as const))('%s → forwarded to the service', async (key) => {
    const own = (OWN[key] as (me: Party) => { path: string; body?: unknown })(alice);
    const answer = await send('alice', methodOf(key), own.path, own.body);
    expect(forwarded(answer.marker), `${key}: ${answer.status} ${answer.text}`).toBe(true);
    for (const secret of secretsOf(bob)) expect(answer.text).not.toContain(secret);
  });
});

describe('no owning id, no user', () => {
  it('a call that names no id → 403 for every route that can be called so, even for a signed-in user', async () => {
    const bare: [string, string, unknown?][] = [
      ['GET', '/auth/credentials'],
      ['GET', '/auth/sessions'],
      ['GET', '/auth/delegated-keys'],
      ['POST', '/auth/credentials', { type: 'SMS_OTP' }],
      ['POST', '/quotes', { destination: { destinationType: 'ACCOUNT', accountId: bob.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 }],
      ['POST', '/cards', { maxSpendPerDay: 1 }],
      ['POST', '/auth/delegated-keys', { nickname: 'x' }],
    ];
    for (const [method, path, body] of bare) {
      const answer = await send('alice', method, path, body);
      expect([answer.status, answer.json?.code], `${method} ${path}`).toEqual([403, 'FORBIDDEN']);
      expect(forwarded(answer.marker)).toBe(false);
    }
  });

  it('S2: a customer-filtered list without its filter is forwarded with the filter set to the user\'s customer', async () => {
    for (const path of ['/transactions', '/transactions?status=COMPLETED', '/internal-account']) {
      const answer = await send('alice', 'GET', path);
      expect(answer.status, path).toBe(200);
      const sent = upstream.find((u) => u.marker === answer.marker);
      expect(new URL(sent?.url ?? 'http://x/').searchParams.get('customerId'), path).toBe(alice.customerId);
      for (const secret of secretsOf(bob)) expect(answer.text, path).not.toContain(secret);
    }
  });

  it('no signed-in user → 401 LOGIN_REQUIRED on every route, nothing forwarded or looked up', async () => {
    const before = upstream.length;
    for (const rule of ALLOW) {
      for (const row of (CASES[keyOf(rule)] as (me: Party, them: Party) => Case[])(alice, bob)) {
        const answer = await send(undefined, rule.method, row.path, row.body);
        expect([answer.status, answer.json?.code], row.label).toEqual([401, 'LOGIN_REQUIRED']);
      }
    }
    expect(upstream.length).toBe(before);
  });

  it('an id looked up once is not looked up again (bounded TTL cache of owners)', async () => {
    await send('alice', 'GET', `/quotes/${e(bob.quoteId)}`);
    const before = upstream.length;
    const answer = await send('alice', 'GET', `/quotes/${e(bob.quoteId)}`);
    expect(answer.status).toBe(404);
    expect(upstream.length).toBe(before);
  });
});
