/**
 * Deny by default: a proxy without an authorization rule refuses to be created, and a call that
 * names no owning id is refused whatever the rule says, unless its route is listed in
 * `allowUnscoped`. Plus the owner cache's bounds.
 */
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { OwnerCache } from '../../src/proxy/owner-cache.js';
import { createProxy, DEFAULT_ALLOW, type ProxyOptions } from '../../src/proxy/index.js';

const base = { baseUrl: 'https://service.test/2025-10-13', clientId: 'platform-id', clientSecret: 'platform-secret-4d1f', logger: false } as const;

function creationError(options: Record<string, unknown>): unknown {
  try {
    createProxy(options as unknown as ProxyOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a proxy without an authorization rule', () => {
  it('refuses to be created, saying what to pass', () => {
    const error = creationError({ ...base });
    expect(isWalletError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(String((error as Error).message)).toMatch(/currentUser.*authorize.*dangerouslyAllowEveryCaller/s);
    expect(String((error as Error).message)).not.toContain(base.clientSecret);
  });

  it.each([
    ['dangerouslyAllowEveryCaller: false', { dangerouslyAllowEveryCaller: false }],
    ['dangerouslyAllowEveryCaller: "yes"', { dangerouslyAllowEveryCaller: 'yes' }],
    ['dangerouslyAllowEveryCaller with authorize', { dangerouslyAllowEveryCaller: true, authorize: () => true }],
    ['dangerouslyAllowEveryCaller with currentUser', { dangerouslyAllowEveryCaller: true, currentUser: () => null }],
    ['currentUser not a function', { currentUser: 'Customer:1' }],
    ['authorize undefined and an unknown opt-out', { allowEveryone: true }],
  ])('%s → INVALID_ARGUMENT', (_label, patch) => {
    expect(isWalletError(creationError({ ...base, ...patch }), 'INVALID_ARGUMENT')).toBe(true);
  });

  it('is created with the explicit opt-out, and then forwards a call naming no id', async () => {
    const calls: string[] = [];
    const proxy = createProxy({ ...base, dangerouslyAllowEveryCaller: true, fetch: async (input) => (calls.push(input), new Response('{"data":[]}', { status: 200 })) });
    expect((await proxy(new Request('http://app.test/transactions'))).status).toBe(200);
    expect(calls).toEqual(['https://service.test/2025-10-13/transactions']);
  });
});

describe('calls that name no owning id', () => {
  /** Every default route, called with no id in path, query or body: only routes without placeholders can be. */
  const bare = DEFAULT_ALLOW.filter((rule) => !rule.pattern.includes('{'));

  it('every default route without a placeholder → 403 even when authorize says yes; nothing forwarded', async () => {
    expect(bare.length).toBeGreaterThanOrEqual(8);
    const calls: string[] = [];
    const proxy = createProxy({ ...base, authorize: () => true, fetch: async (input) => (calls.push(input), new Response('{}', { status: 200 })) });
    for (const rule of bare) {
      const init: RequestInit = rule.method === 'GET' ? {} : { method: rule.method, headers: { 'content-type': 'application/json' }, body: '{"nickname":"x"}' };
      const response = await proxy(new Request(`http://app.test${rule.pattern}`, init));
      expect([response.status, ((await response.json()) as { code: string }).code], `${rule.method} ${rule.pattern}`).toEqual([403, 'FORBIDDEN']);
    }
    expect(calls).toEqual([]);
  });

  it('a route listed in allowUnscoped is forwarded (the rule allows it explicitly)', async () => {
    const calls: string[] = [];
    const proxy = createProxy({
      ...base,
      authorize: () => true,
      allowUnscoped: [{ method: 'GET', pattern: '/transactions' }],
      fetch: async (input) => (calls.push(input), new Response('{"data":[]}', { status: 200 })),
    });
    expect((await proxy(new Request('http://app.test/transactions'))).status).toBe(200);
    expect((await proxy(new Request('http://app.test/internal-account'))).status).toBe(403);
    expect(calls).toEqual(['https://service.test/2025-10-13/transactions']);
  });

  it('the authorize hook still runs first: its own answer (e.g. 401) wins', async () => {
    const proxy = createProxy({ ...base, authorize: () => new Response('{"code":"LOGIN_REQUIRED"}', { status: 401 }) });
    expect((await proxy(new Request('http://app.test/transactions'))).status).toBe(401);
  });
});

describe('the owner cache', () => {
  it('forgets a fact after its TTL', () => {
    let now = 1_000;
    const cache = new OwnerCache<string>({ ttlMs: 100 }, () => now);
    cache.set('quoteId:Q1', 'Customer:A');
    now += 99;
    expect(cache.get('quoteId:Q1')).toBe('Customer:A');
    now += 1;
    expect(cache.get('quoteId:Q1')).toBeUndefined();
  });

  it('keeps at most maxEntries facts, dropping the oldest', () => {
    const cache = new OwnerCache<number>({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([cache.get('k6'), cache.get('k7'), cache.get('k8'), cache.get('k9')]).toEqual([undefined, 7, 8, 9]);
  });
});
