/**
 * P5 of THREAT-MODEL.md (src/proxy/signer-origin.ts): with `signerOrigins` declared, only the
 * signer frame logs in, refreshes or signs through the proxy. Generated requests — every route of
 * the table and one the app added, called with its own or another method, × Origin (the app's,
 * the signer's, none, another, `null`, near-misses of the signer's) × signature headers — against
 * an oracle written from the rule, not from the code's table; and in-origin mode unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { createProxy, DEFAULT_ALLOW, emailLoginProxy, type AllowRule, type ProxyOptions } from '../../src/proxy/index.js';

const APP = 'http://localhost:5173';
const SIGNER = 'http://localhost:5174';
const base = { baseUrl: 'https://service.test/v1', clientId: 'platform-id', clientSecret: 'platform-secret-5e2a9c', logger: false } as const;
const FUND: AllowRule = { method: 'POST', pattern: '/sandbox/internal-accounts/{accountId}/fund' };
const ROUTES: readonly AllowRule[] = [...DEFAULT_ALLOW, FUND];
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

/** The oracle's own list: what the app's page may call unsigned in frame mode (the reads, a quote, a card). */
function appRoute(method: string, pattern: string, extra: readonly AllowRule[]): boolean {
  if (extra.some((r) => r.method === method && r.pattern === pattern)) return true;
  if (method === 'GET') return DEFAULT_ALLOW.some((r) => r.method === 'GET' && r.pattern === pattern);
  return method === 'POST' && (pattern === '/quotes' || pattern === '/cards');
}

interface Case {
  route: AllowRule;
  method: (typeof METHODS)[number];
  origin: string | undefined;
  signature: string | undefined;
  requestId: string | undefined;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  route: fc.constantFrom(...ROUTES),
  // Mostly the route's own method; sometimes another (no such route, or another route's pattern).
  method: fc.option(fc.constantFrom(...METHODS), { freq: 3, nil: undefined }),
  origin: fc.constantFrom(APP, SIGNER, undefined, 'https://evil.example', 'null', `${SIGNER}/`, 'http://localhost:51740', 'http://127.0.0.1:5174', 'HTTP://LOCALHOST:5174'),
  signature: fc.constantFrom(undefined, 'sandbox-valid-signature', ''),
  requestId: fc.constantFrom(undefined, 'Request:2f0c', ''),
}).map(({ method, ...rest }) => ({ ...rest, method: method ?? rest.route.method }));

function requestOf(c: Case): Request {
  const path = c.route.pattern.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}:7d1e`);
  const headers = new Headers();
  if (c.origin !== undefined) headers.set('origin', c.origin);
  if (c.signature !== undefined) headers.set('service-wallet-signature', c.signature);
  if (c.requestId !== undefined) headers.set('request-id', c.requestId);
  if (c.method === 'GET') return new Request(`${APP}/api${path}`, { headers });
  headers.set('content-type', 'application/json');
  return new Request(`${APP}/api${path}`, { method: c.method, headers, body: '{"nickname":"x"}' });
}

type Fetch = (input: string, init: RequestInit) => Promise<Response>;

function recording(): { fetch: Fetch; calls: string[] } {
  const calls: string[] = [];
  return { calls, fetch: async (input, init) => (calls.push(`${String(init.method)} ${input}`), new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } })) };
}

describe('frame mode: signerOrigins', () => {
  it('every route × method × Origin × signature headers is refused SIGNER_ORIGIN_REQUIRED or forwarded exactly as the rule says (2,000 requests)', async () => {
    let refusedCount = 0;
    let forwardedSigned = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, fc.boolean(), async (c, fundIsAppRoute) => {
        const upstream = recording();
        const extra = fundIsAppRoute ? [FUND] : [];
        const proxy = createProxy({ ...base, prefix: '/api', allow: ROUTES, dangerouslyAllowEveryCaller: true, fetch: upstream.fetch, signerOrigins: [SIGNER], ...(fundIsAppRoute ? { appRoutes: [...DEFAULT_ALLOW.filter((r) => r.method === 'GET'), { method: 'POST', pattern: '/quotes' }, { method: 'POST', pattern: '/cards' }, FUND] } : {}) });
        const response = await proxy(requestOf(c));
        const body = (await response.json()) as { code?: string };
        const onTable = ROUTES.some((r) => r.method === c.method && r.pattern === c.route.pattern);
        const signed = c.signature !== undefined || c.requestId !== undefined;
        const frameOnly = !appRoute(c.method, c.route.pattern, extra) || signed;
        if (!onTable) {
          expect([response.status, body.code]).toEqual([404, 'NOT_FOUND']);
          expect(upstream.calls).toEqual([]);
        } else if (frameOnly && c.origin !== SIGNER) {
          refusedCount++;
          expect([response.status, body.code]).toEqual([403, 'SIGNER_ORIGIN_REQUIRED']);
          expect(upstream.calls).toEqual([]);
        } else {
          if (signed) forwardedSigned++;
          expect(response.status).toBe(200);
          expect(upstream.calls).toHaveLength(1);
          expect(upstream.calls[0]?.startsWith(`${c.method} ${base.baseUrl}/`)).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
    // The generator reaches both sides of the rule.
    expect(refusedCount).toBeGreaterThan(300);
    expect(forwardedSigned).toBeGreaterThan(50);
  });

  it('in-origin mode (no signerOrigins) is unchanged: the same requests are forwarded from any origin (1,000 requests)', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const upstream = recording();
        const proxy = createProxy({ ...base, prefix: '/api', allow: ROUTES, dangerouslyAllowEveryCaller: true, fetch: upstream.fetch });
        const response = await proxy(requestOf(c));
        const onTable = ROUTES.some((r) => r.method === c.method && r.pattern === c.route.pattern);
        expect(response.status).toBe(onTable ? 200 : 404);
        expect(upstream.calls).toHaveLength(onTable ? 1 : 0);
      }),
      { numRuns: 1_000 },
    );
  });

  it('a refused request reaches no hook: neither currentUser nor authorize is asked, nothing is read from the service', async () => {
    const upstream = recording();
    const asked: string[] = [];
    const proxy = createProxy({
      ...base,
      signerOrigins: [SIGNER],
      fetch: upstream.fetch,
      currentUser: () => (asked.push('currentUser'), { customerId: 'Customer:1' }),
      authorize: () => (asked.push('authorize'), true),
    });
    const verify = await proxy(new Request(`${APP}/auth/credentials/AuthMethod:1/verify`, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json' }, body: '{"type":"OAUTH","oidcToken":"t","clientPublicKey":"02ab"}' }));
    expect(await verify.json()).toEqual({ code: 'SIGNER_ORIGIN_REQUIRED', reason: 'Frame mode: only the signer frame may log in, refresh or sign through this proxy.' });
    expect(verify.status).toBe(403);
    expect(asked).toEqual([]);
    expect(upstream.calls).toEqual([]);
  });

  it('logs the refusal with its code and whether Origin was absent, never the origin or the body', async () => {
    const lines: string[] = [];
    const proxy = createProxy({ ...base, dangerouslyAllowEveryCaller: true, signerOrigins: [SIGNER], fetch: recording().fetch, logger: (line) => lines.push(line) });
    await proxy(new Request(`${APP}/auth/sessions/Session:1/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"clientPublicKey":"02cafe"}' }));
    await proxy(new Request(`${APP}/auth/sessions/Session:1/refresh`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"clientPublicKey":"02cafe"}' }));
    expect(lines).toEqual([
      expect.stringMatching(/^proxy POST \/auth\/sessions\/Session:1\/refresh 403 \d+ms SIGNER_ORIGIN_REQUIRED \(Origin absent\)$/),
      expect.stringMatching(/^proxy POST \/auth\/sessions\/Session:1\/refresh 403 \d+ms SIGNER_ORIGIN_REQUIRED \(Origin not a signer origin\)$/),
    ]);
    expect(lines.join('\n')).not.toMatch(/evil|cafe/);
  });

  it.each([
    ['an empty list', { signerOrigins: [] }, /signerOrigins.*non-empty array of origins/],
    ['not a list', { signerOrigins: 'http://localhost:5174' }, /signerOrigins.*non-empty array of origins/],
    ['a URL with a path', { signerOrigins: ['http://localhost:5174/'] }, /signerOrigins.*exact origins/],
    ['not http(s)', { signerOrigins: ['file://x'] }, /signerOrigins.*exact origins/],
    ['ftp', { signerOrigins: ['ftp://signer.example'] }, /signerOrigins.*exact origins/],
    ['not a string', { signerOrigins: [5174] }, /signerOrigins.*exact origins/],
    ['appRoutes without signerOrigins', { appRoutes: [{ method: 'POST', pattern: '/cards' }] }, /appRoutes.*absent without signerOrigins/],
    ['a login verify among appRoutes', { signerOrigins: [SIGNER], appRoutes: [{ method: 'POST', pattern: '/auth/credentials/{credentialId}/verify' }] }, /appRoutes.*POST \/auth\/credentials\/\{credentialId\}\/verify.*signer frame/],
    ['a login challenge among appRoutes', { signerOrigins: [SIGNER], appRoutes: [{ method: 'POST', pattern: '/auth/credentials/{credentialId}/challenge' }] }, /appRoutes.*challenge/],
    ['a refresh among appRoutes', { signerOrigins: [SIGNER], appRoutes: [{ method: 'POST', pattern: '/auth/sessions/{sessionId}/refresh' }] }, /appRoutes.*refresh/],
  ])('%s → INVALID_ARGUMENT at creation, naming the option', (_label, patch, message) => {
    let error: unknown;
    try {
      createProxy({ ...base, dangerouslyAllowEveryCaller: true, ...(patch as Partial<ProxyOptions>) });
    } catch (e) {
      error = e;
    }
    expect(isWalletError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(String((error as Error).message)).toMatch(message);
  });

  it('accepts https and http origins exactly as browsers send them', async () => {
    const upstream = recording();
    const proxy = createProxy({ ...base, dangerouslyAllowEveryCaller: true, signerOrigins: ['https://signer.app.example', SIGNER], fetch: upstream.fetch });
    for (const origin of ['https://signer.app.example', SIGNER]) {
      const response = await proxy(new Request(`${APP}/auth/sessions/Session:1/refresh`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{"clientPublicKey":"02ab"}' }));
      expect(response.status).toBe(200);
    }
    expect(upstream.calls).toHaveLength(2);
  });
});

describe('frame mode: the email-first login', () => {
  const login = (calls: string[]) =>
    emailLoginProxy({
      ...base,
      prefix: '/api',
      secret: 'signer-origin-test-secret-of-32-characters!',
      signerOrigins: [SIGNER],
      fetch: async (input, init) => (calls.push(`${String(init.method)} ${input}`), new Response('{"data":[]}', { status: 200, headers: { 'content-type': 'application/json' } })),
    });
  const start = (origin: string | undefined) =>
    new Request(`${APP}/api/login/start`, { method: 'POST', headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) }, body: '{"email":"someone@example.com"}' });

  it.each([[APP], [undefined], ['https://evil.example']])('POST /login/start from %s → 403 SIGNER_ORIGIN_REQUIRED, nothing asked of the service, no ticket', async (origin) => {
    const calls: string[] = [];
    const response = await login(calls)(start(origin));
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([403, 'SIGNER_ORIGIN_REQUIRED']);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(calls).toEqual([]);
  });

  it('POST /login/start from the signer goes on to the login (the service is asked); logout stays open to the app', async () => {
    const calls: string[] = [];
    const proxy = login(calls);
    const response = await proxy(start(SIGNER));
    expect(((await response.json()) as { code?: string }).code).not.toBe('SIGNER_ORIGIN_REQUIRED');
    expect(calls.length).toBeGreaterThan(0);
    const logout = await proxy(new Request(`${APP}/api/login/logout`, { method: 'POST', headers: { origin: APP } }));
    expect(logout.status).toBe(204);
  });
});
