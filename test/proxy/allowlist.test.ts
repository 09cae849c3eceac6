import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { createProxy, DEFAULT_ALLOW } from '../../src/proxy/index.js';
import { ACCOUNT, CLIENT_ID, CLIENT_SECRET, errorBody, harness } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const SAMPLE: Record<string, string> = {
  credentialId: 'AuthMethod:6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  sessionId: 'Session:1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  delegatedKeyId: 'DelegatedKey:2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  accountId: ACCOUNT,
  quoteId: 'Quote:3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f',
  customerId: 'Customer:4d5e6f7a-8b9c-4d0e-1f2a-3b4c5d6e7f8a',
  cardId: 'Card:5e6f7a8b-9c0d-4e1f-2a3b-4c5d6e7f8a9b',
};

describe('default allowlist', () => {
  it('holds exactly the routes the library calls', () => {
    expect(DEFAULT_ALLOW.map((r) => `${r.method} ${r.pattern}`)).toEqual([
      'POST /auth/credentials',
      'GET /auth/credentials',
      'POST /auth/credentials/{credentialId}/challenge',
      'POST /auth/credentials/{credentialId}/verify',
      'DELETE /auth/credentials/{credentialId}',
      'GET /auth/sessions',
      'DELETE /auth/sessions/{sessionId}',
      'POST /auth/sessions/{sessionId}/refresh',
      'POST /auth/delegated-keys',
      'GET /auth/delegated-keys',
      'GET /auth/delegated-keys/{delegatedKeyId}',
      'DELETE /auth/delegated-keys/{delegatedKeyId}',
      'GET /internal-account',
      'PATCH /internal-accounts/{accountId}',
      'POST /internal-accounts/{accountId}/export',
      'POST /quotes',
      'GET /quotes/{quoteId}',
      'POST /quotes/{quoteId}/execute',
      'GET /transactions',
      'GET /customers/{customerId}',
      'PATCH /customers/{customerId}',
      'POST /cards',
      'GET /cards/{cardId}',
    ]);
  });

  it('is frozen, list and entries', () => {
    expect(Object.isFrozen(DEFAULT_ALLOW)).toBe(true);
    expect(DEFAULT_ALLOW.every((rule) => Object.isFrozen(rule))).toBe(true);
  });

  it.each(DEFAULT_ALLOW.map((rule) => [rule.method, rule.pattern] as const))('forwards %s %s', async (method, pattern) => {
    const { call } = harness(upstream);
    const path = pattern.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLE[name] ?? 'x');
    const init: RequestInit = method === 'GET' || method === 'DELETE' ? { method } : { method, headers: { 'content-type': 'application/json' }, body: '{}' };
    // A declared parameter of the route (S1 of scope.ts: undeclared ones are refused).
    const rule = DEFAULT_ALLOW.find((r) => r.method === method && r.pattern === pattern);
    const [name] = Object.keys(rule?.query ?? {});
    const query = name === undefined ? "" : `?${name}=${name === "customerId" ? SAMPLE.customerId! : ACCOUNT}`;
    const before = upstream.received.length;
    const response = await call(`${path}${query}`, init);
    expect(response.status).toBe(200);
    const got = upstream.received[before];
    expect(got?.method).toBe(method);
    expect(got?.url).toBe(`/2025-10-13${path}${query}`);
  });
});

describe('refused routes', () => {
  const refused: [string, string][] = [
    ['POST', '/customers'],
    ['GET', '/customers'],
    ['DELETE', '/customers/Customer:1'],
    ['GET', '/platform/internal-accounts'],
    ['POST', '/sandbox/internal-accounts/InternalAccount:1/fund'],
    ['POST', '/transactions/Transaction:1/approve'],
    ['GET', '/tokens'],
    ['POST', '/cards/Card:1/reveal'],
    ['PATCH', '/cards/Card:1'],
    ['GET', '/auth/credentials/AuthMethod:1'],
    ['POST', '/auth/sessions'],
    ['GET', '/internal-accounts/InternalAccount:1/export'],
    ['GET', '/quotes'],
    ['POST', '/quotes/Quote:1/execute/extra'],
    ['GET', '/Auth/sessions'],
    ['GET', '/'],
  ];

  it.each(refused)('%s %s → 404 NOT_FOUND, nothing forwarded', async (method, path) => {
    const { call, lines } = harness(upstream);
    const before = upstream.received.length;
    const init: RequestInit = method === 'GET' || method === 'DELETE' ? { method } : { method, headers: { 'content-type': 'application/json' }, body: '{}' };
    const response = await call(path, init);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await errorBody(response);
    expect(body.code).toBe('NOT_FOUND');
    expect(typeof body.reason).toBe('string');
    expect(upstream.received.length).toBe(before);
    expect(lines.at(-1)).toMatch(/^proxy \S+ \S+ 404 \d+ms NOT_FOUND$/);
  });

  it.each(['PUT', 'HEAD', 'OPTIONS', 'TRACEX'])('%s → 405 with Allow', async (method) => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    const response = await call('/quotes', { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, PATCH, DELETE');
    if (method !== 'HEAD') expect((await errorBody(response)).code).toBe('METHOD_NOT_ALLOWED');
    expect(upstream.received.length).toBe(before);
  });

  it('accepts a lower-case method and forwards it upper-cased', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    const response = await call(`/internal-accounts/${ACCOUNT}`, { method: 'patch', headers: { 'content-type': 'application/json' }, body: '{"privateEnabled":true}' });
    expect(response.status).toBe(200);
    expect(upstream.received[before]?.method).toBe('PATCH');
  });
});

describe('prefix and extension', () => {
  it('strips the prefix and refuses paths outside it', async () => {
    const { call } = harness(upstream, { prefix: '/api/' });
    const before = upstream.received.length;
    expect((await call('/api/auth/sessions?accountId=a')).status).toBe(200);
    expect(upstream.received[before]?.url).toBe('/2025-10-13/auth/sessions?accountId=a');
    expect((await call('/auth/sessions')).status).toBe(404);
    expect((await call('/apix/auth/sessions')).status).toBe(404);
    expect((await call('/api')).status).toBe(404);
    expect(upstream.received.length).toBe(before + 1);
  });

  it('forwards an app-added route such as the sandbox fund call', async () => {
    const { call } = harness(upstream, { allow: [...DEFAULT_ALLOW, { method: 'POST', pattern: '/sandbox/internal-accounts/{accountId}/fund' }] });
    const before = upstream.received.length;
    const response = await call(`/sandbox/internal-accounts/${ACCOUNT}/fund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1000}' });
    expect(response.status).toBe(200);
    expect(upstream.received[before]?.url).toBe(`/2025-10-13/sandbox/internal-accounts/${ACCOUNT}/fund`);
  });

  it('an empty allowlist forwards nothing', async () => {
    const { call } = harness(upstream, { allow: [] });
    expect((await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
  });
});

describe('options are checked at creation', () => {
  const base = { baseUrl: 'http://127.0.0.1:1/2025-10-13', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, dangerouslyAllowEveryCaller: true } as const;
  const bad: [string, Record<string, unknown>][] = [
    ['baseUrl not a URL', { baseUrl: 'not a url' }],
    ['baseUrl with credentials', { baseUrl: 'http://u:p@127.0.0.1/x' }],
    ['baseUrl with a query', { baseUrl: 'http://127.0.0.1/x?y=1' }],
    ['baseUrl ftp', { baseUrl: 'ftp://127.0.0.1/x' }],
    ['empty clientId', { clientId: '' }],
    ['clientId with a colon', { clientId: 'a:b' }],
    ['empty clientSecret', { clientSecret: '' }],
    ['secret with a newline', { clientSecret: 'abc\ndef' }],
    ['bad method', { allow: [{ method: 'PUT', pattern: '/x' }] }],
    ['pattern without slash', { allow: [{ method: 'GET', pattern: 'x' }] }],
    ['pattern with a dot segment', { allow: [{ method: 'GET', pattern: '/a/../b' }] }],
    ['pattern with a bad placeholder', { allow: [{ method: 'GET', pattern: '/a/{b c}' }] }],
    ['repeated placeholder', { allow: [{ method: 'GET', pattern: '/a/{id}/{id}' }] }],
    ['zero body limit', { maxBodyBytes: 0 }],
    ['fractional timeout', { timeoutMs: 1.5 }],
    ['prefix with a dot segment', { prefix: '/api/..' }],
    ['forwarding Authorization', { forwardHeaders: ['Authorization'] }],
    ['forwarding Cookie', { forwardHeaders: ['cookie'] }],
    ['forwarding a Proxy- header', { forwardHeaders: ['Proxy-Foo'] }],
    ['signature header with a space', { signatureHeader: 'Bad Name' }],
  ];
  it.each(bad)('%s → WalletError INVALID_ARGUMENT', (_label, patch) => {
    let caught: unknown;
    try {
      createProxy({ ...base, ...patch } as Parameters<typeof createProxy>[0]);
    } catch (error) {
      caught = error;
    }
    expect(isWalletError(caught, 'INVALID_ARGUMENT')).toBe(true);
    expect(String((caught as Error).message)).not.toContain(CLIENT_SECRET);
  });

  it('exposes its prefix and body limit for the Node adapter', () => {
    const proxy = createProxy({ ...base, prefix: '/api', maxBodyBytes: 2048, logger: false });
    expect(proxy.prefix).toBe('/api');
    expect(proxy.maxBodyBytes).toBe(2048);
  });
});
