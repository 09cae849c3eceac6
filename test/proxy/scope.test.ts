/**
 * The invariants of src/proxy/scope.ts against a scripted service (a fetch function), for what a
 * well-behaved sandbox never does: answers naming another customer (S4), owners the resolver cannot
 * read (S7), lookups failing; and the cache, narrowing (S5) and Idempotency-Key (S6) rules.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProxy, PROXY_ERROR_CODES, type ProxyLogEntry, type ProxyOptions } from '../../src/proxy/index.js';

const A = 'Customer:a';
const B = 'Customer:b';
const A1 = 'InternalAccount:a1';
const A2 = 'InternalAccount:a2';
const B1 = 'InternalAccount:b1';
const ACCOUNTS: Record<string, { id: string; customerId: string; type: string }[]> = {
  [A]: [
    { id: A1, customerId: A, type: 'EMBEDDED_WALLET' },
    { id: A2, customerId: A, type: 'INTERNAL_CRYPTO' },
  ],
  [B]: [{ id: B1, customerId: B, type: 'EMBEDDED_WALLET' }],
};

interface Script {
  /** The answer to a forwarded (non-lookup) call. */
  answer?: (url: URL, init: RequestInit) => Response;
  /** Records read by id: `/cards/{id}` → record. */
  records?: Record<string, unknown>;
  accountStatus?: number;
}

function setup(script: Script, options: Partial<ProxyOptions> = {}) {
  const sent: { url: URL; init: RequestInit; lookup: boolean }[] = [];
  const entries: ProxyLogEntry[] = [];
  const lines: string[] = [];
  let user: { customerId: string; accountIds?: string[] } | null = { customerId: A };
  const proxy = createProxy({
    baseUrl: 'https://service.test/v1',
    clientId: 'client',
    clientSecret: 'secret-0123456789',
    currentUser: () => user,
    logger: (line, entry) => {
      lines.push(line);
      entries.push(entry);
    },
    fetch: async (input, init) => {
      const url = new URL(input);
      const lookup = new Headers(init.headers).get('request-id') === null;
      sent.push({ url, init, lookup });
      const path = url.pathname.replace('/v1', '');
      if (lookup && path === '/internal-account') {
        if (script.accountStatus !== undefined) return new Response('{"code":"UNAUTHORIZED","reason":"no"}', { status: script.accountStatus });
        return Response.json({ data: ACCOUNTS[url.searchParams.get('customerId') ?? ''] ?? [], hasMore: false });
      }
      if (lookup) {
        const record = script.records?.[decodeURIComponent(path)];
        return record === undefined ? Response.json({ code: 'NOT_FOUND', reason: 'x' }, { status: 404 }) : Response.json(record);
      }
      return script.answer?.(url, init) ?? Response.json({});
    },
    ...options,
  });
  const call = (path: string, init: RequestInit = {}) => proxy(new Request(`http://app.test${path}`, { ...init, headers: { 'request-id': 'Request:1', ...(init.headers as Record<string, string>) } }));
  return { proxy, sent, entries, lines, call, as: (next: typeof user) => void (user = next) };
}

const json = (value: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) });

describe('S1: only declared query parameters, each once, reach the service', () => {
  it.each([
    [`/internal-account?accountId=${A1}&limit=100`, 'accountId'],
    [`/internal-account?CustomerId=${B}&customerId=${A}`, 'CustomerId'],
    [`/transactions?accountId=${A1}&limit=100`, 'accountId'],
    [`/transactions?customerId=${A}&platformCustomerId=pc-b`, 'platformCustomerId'],
    [`/transactions?customerId=${A}&customerId=${A}`, 'more than once'],
    [`/auth/credentials?accountId=${A1}&accountid=${B1}`, 'accountid'],
  ])('%s → 400 naming %s, nothing forwarded', async (path, named) => {
    const { call, sent, entries } = setup({});
    const response = await call(path);
    const body = (await response.json()) as { code: string; reason: string };
    expect([response.status, body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(body.reason).toContain(named);
    expect(sent.filter((s) => !s.lookup)).toEqual([]);
    expect(entries.at(-1)?.code).toBe('INVALID_INPUT');
  });
});

describe('S2: lists carry the owning filter', () => {
  it('a customer filter is added when absent and refused when another customer', async () => {
    const { call, sent } = setup({ answer: () => Response.json({ data: [] }) });
    expect((await call('/transactions?status=COMPLETED')).status).toBe(200);
    const forwarded = sent.filter((s) => !s.lookup);
    expect(forwarded[0]?.url.search).toBe(`?status=COMPLETED&customerId=${A}`);
    expect((await call(`/transactions?customerId=${B}`)).status).toBe(403);
    expect(sent.filter((s) => !s.lookup)).toHaveLength(1);
  });

  it('an account filter must be present and the user\'s', async () => {
    const { call } = setup({ answer: () => Response.json({ data: [] }) });
    expect((await call('/auth/delegated-keys?limit=5')).status).toBe(403);
    expect((await call(`/auth/delegated-keys?fundingSourceId=${B1}`)).status).toBe(403);
    expect((await call(`/auth/delegated-keys?fundingSourceId=${A2}`)).status).toBe(200);
  });

  it('senderAccountIdentifier is checked as an account and the customer filter is still set', async () => {
    const { call, sent } = setup({ answer: () => Response.json({ data: [] }) });
    expect((await call(`/transactions?senderAccountIdentifier=${B1}`)).status).toBe(403);
    expect((await call(`/transactions?senderAccountIdentifier=${A1}`)).status).toBe(200);
    expect(sent.filter((s) => !s.lookup)[0]?.url.searchParams.get('customerId')).toBe(A);
  });
});

describe('S3: body fields', () => {
  it('an id-named field the route does not declare → 400; a non-string id → 400', async () => {
    const { call, sent } = setup({});
    expect((await call(`/internal-accounts/${A1}`, { ...json({ nickname: 'x', customerId: A }), method: 'PATCH' })).status).toBe(400);
    expect((await call('/cards', json({ fundingSource: [A1] }, { 'idempotency-key': 'k' }))).status).toBe(400);
    expect(sent.filter((s) => !s.lookup)).toEqual([]);
  });
});

describe('S4: every record of an answer is the user\'s', () => {
  it('a list with another customer\'s record is withheld: 502 ANSWER_WITHHELD, logged with its code', async () => {
    const { call, lines } = setup({ answer: () => Response.json({ data: [{ id: 'Transaction:1', customerId: A }, { id: 'Transaction:2', customerId: B }] }) });
    const response = await call('/transactions');
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(JSON.parse(text).code).toBe('ANSWER_WITHHELD');
    expect(text).not.toContain('Transaction:2');
    expect(lines.at(-1)).toMatch(/^proxy GET \/transactions 502 \d+ms ANSWER_WITHHELD$/);
    expect(PROXY_ERROR_CODES.ANSWER_WITHHELD).toMatch(/^502/);
  });

  it('a single record of another customer is withheld; the user\'s passes unchanged', async () => {
    // A customer record's owner is its id: A asks for A, a lying service answers B's record.
    const lying = setup({ answer: () => Response.json({ id: B, email: 'b@x.test' }) });
    const withheld = await lying.call(`/customers/${A}`);
    expect(withheld.status).toBe(502);
    expect(await withheld.text()).not.toContain('b@x.test');
    const honest = setup({ answer: () => Response.json({ id: A, email: 'a@x.test' }) });
    const ok = await honest.call(`/customers/${A}`);
    expect([ok.status, await ok.json()]).toEqual([200, { id: A, email: 'a@x.test' }]);
  });

  it('a transaction whose own side is another customer\'s account is withheld', async () => {
    const { call } = setup({ answer: () => Response.json({ data: [{ id: 'Transaction:1', customerId: A, type: 'OUTGOING', source: { accountId: B1 } }] }) });
    expect((await call('/transactions')).status).toBe(502);
  });

  it('a record outside accountIds is dropped from a list (totalCount lowered); the rest passes', async () => {
    const { call, as } = setup({ answer: () => Response.json({ data: ACCOUNTS[A], hasMore: false, totalCount: 2 }) });
    as({ customerId: A, accountIds: [A1] });
    const response = await call('/internal-account');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: [ACCOUNTS[A]?.[0]], hasMore: false, totalCount: 1 });
  });

  it('202 challenges, 204 and PROCESSING markers hold no record and pass', async () => {
    const challenge = { payloadToSign: 'p', requestId: 'r', expiresAt: '2030-01-01T00:00:00Z' };
    for (const [status, body] of [[202, challenge], [200, { status: 'PROCESSING' }]] as const) {
      const { call } = setup({ answer: () => Response.json(body, { status }) });
      const response = await call(`/internal-accounts/${A1}`, { ...json({ nickname: 'x' }), method: 'PATCH' });
      expect([response.status, await response.json()]).toEqual([status, body]);
    }
    const { call } = setup({ answer: () => new Response(null, { status: 204 }) });
    expect((await call(`/internal-accounts/${A1}`, { ...json({ nickname: 'x' }), method: 'PATCH' })).status).toBe(204);
  });

  it('a PROCESSING marker that carries an id is a record, and is checked', async () => {
    const { call } = setup({ answer: () => Response.json({ status: 'PROCESSING', id: B }) });
    expect((await call(`/customers/${A}`)).status).toBe(502);
  });

  it('an empty 200, and 3xx/4xx/5xx answers, are not records', async () => {
    for (const status of [200, 301, 404, 503]) {
      const { call } = setup({ answer: () => new Response(status === 200 ? '' : '{"id":"Customer:b"}', { status }) });
      expect((await call(`/customers/${A}`)).status, String(status)).toBe(status);
    }
  });

  it('a single-record answer that is an array or a string, or a list item that is not an object, is withheld', async () => {
    for (const body of [[{ id: A }], 'x', { data: [{ id: 'Transaction:1', customerId: A }, 'Transaction:2'] }]) {
      const route = Array.isArray(body) || typeof body === 'string' ? `/customers/${A}` : '/transactions';
      const { call } = setup({ answer: () => Response.json(body) });
      expect((await call(route)).status, JSON.stringify(body)).toBe(502);
    }
  });

  it('a 2xx answer that is not JSON, or a list without data, is withheld', async () => {
    const { call } = setup({ answer: () => new Response('<html>', { status: 200 }) });
    expect((await call(`/customers/${A}`)).status).toBe(502);
    const list = setup({ answer: () => Response.json({ items: [] }) });
    expect((await list.call('/transactions')).status).toBe(502);
  });

  it('error answers pass as they are (the service\'s codes)', async () => {
    const { call } = setup({ answer: () => Response.json({ code: 'QUOTE_EXPIRED', reason: 'x' }, { status: 400 }) });
    expect((await call(`/internal-accounts/${A1}`, { ...json({ nickname: 'x' }), method: 'PATCH' })).status).toBe(400);
  });
});

describe('S5: facts, not views, are cached; accountIds applies on the next request', () => {
  it('two users of one customer, one narrowed, in either order; a narrowing change takes effect at once', async () => {
    const { call, as, sent } = setup({ answer: () => Response.json({ id: A2, customerId: A }) });
    const patch = { ...json({ nickname: 'x' }), method: 'PATCH' };
    as({ customerId: A, accountIds: [A1] });
    expect((await call(`/internal-accounts/${A2}`, patch)).status).toBe(403);
    as({ customerId: A });
    expect((await call(`/internal-accounts/${A2}`, patch)).status).toBe(200);
    as({ customerId: A, accountIds: [A1] });
    expect((await call(`/internal-accounts/${A2}`, patch)).status).toBe(403);
    as({ customerId: A, accountIds: [A1, A2] });
    expect((await call(`/internal-accounts/${A2}`, patch)).status).toBe(200);
    // One account listing served all four (a fact about the service).
    expect(sent.filter((s) => s.lookup && s.url.pathname.endsWith('/internal-account'))).toHaveLength(1);
  });

  it('a card whose funding account is outside accountIds is refused', async () => {
    const { call, as } = setup({ records: { '/cards/Card:1': { id: 'Card:1', fundingSource: A2 } }, answer: () => Response.json({ id: 'Card:1', fundingSource: A2 }) });
    as({ customerId: A, accountIds: [A1] });
    // S11: outside the narrowing answers as an unknown card.
    expect((await call('/cards/Card:1')).status).toBe(404);
    as({ customerId: A });
    expect((await call('/cards/Card:1')).status).toBe(200);
  });
});

describe('S6: Idempotency-Key per customer', () => {
  it('one customer\'s retries carry one forwarded key; two customers never share one; the browser\'s key never reaches the service', async () => {
    const { call, as, sent } = setup({ answer: () => Response.json({ id: 'Card:1', fundingSource: A1 }, { status: 201 }) });
    const body = (fundingSource: string) => json({ fundingSource }, { 'idempotency-key': 'same-key' });
    await call('/cards', body(A1));
    await call('/cards', body(A1));
    as({ customerId: B });
    await call('/cards', body(B1));
    const keys = sent.filter((s) => !s.lookup).map((s) => new Headers(s.init.headers).get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    for (const key of keys) {
      expect(key).not.toBe('same-key');
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('is exactly HMAC-SHA256(HMAC-SHA256(secret, label), customerId ‖ 0x00 ‖ key), base64url without padding', async () => {
    const { call, sent } = setup({ answer: () => Response.json({ id: 'Card:1', fundingSource: A1 }, { status: 201 }) });
    const keys = ['k', 'a+b/c==', 'Ünïcode-key', 'x'.repeat(255)];
    for (const key of keys) await call('/cards', json({ fundingSource: A1 }, { 'idempotency-key': encodeURIComponent(key) }));
    const derived = createHmac('sha256', 'secret-0123456789').update('embedded-wallet-signer/proxy idempotency-key v1').digest();
    const expected = keys.map((key) => createHmac('sha256', derived).update(`${A}\u0000${encodeURIComponent(key)}`).digest('base64url'));
    expect(sent.filter((s) => !s.lookup).map((s) => new Headers(s.init.headers).get('idempotency-key'))).toEqual(expected);
  });

  it('depends on the client secret (another deployment derives other keys)', async () => {
    const one = setup({ answer: () => Response.json({ id: 'Card:1', fundingSource: A1 }, { status: 201 }) });
    const two = setup({ answer: () => Response.json({ id: 'Card:1', fundingSource: A1 }, { status: 201 }) }, { clientSecret: 'another-secret-42' });
    for (const { call } of [one, two]) await call('/cards', json({ fundingSource: A1 }, { 'idempotency-key': 'k' }));
    const key = (h: typeof one) => new Headers(h.sent.find((s) => !s.lookup)?.init.headers).get('idempotency-key');
    expect(key(one)).not.toBe(key(two));
  });
});

describe('S7: owners the resolver cannot read fail closed, naming the option', () => {
  it('a card record with neither fundingSource nor cardholderId → 403 OWNER_UNKNOWN, the log line says "set owners.card"', async () => {
    const { call, lines, entries } = setup({ records: { '/cards/Card:1': { id: 'Card:1', status: 'CLOSED' } } });
    const response = await call('/cards/Card:1');
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([403, 'OWNER_UNKNOWN']);
    expect(lines.at(-1)).toMatch(/ 403 \d+ms OWNER_UNKNOWN \(set owners\.card\)$/);
    expect(entries.at(-1)?.detail).toBe('set owners.card');
  });

  it('owners.card naming the cardholder by another field makes such a service usable', async () => {
    const { call } = setup(
      { records: { '/cards/Card:1': { id: 'Card:1', holder: A } }, answer: () => Response.json({ id: 'Card:1', holder: A }) },
      { owners: { card: (r) => (typeof r.holder === 'string' ? [{ customerId: r.holder }] : undefined) } },
    );
    expect((await call('/cards/Card:1')).status).toBe(200);
  });

  it('an answer record without an owner is withheld (502), naming the option', async () => {
    const { call, lines } = setup({ answer: () => Response.json({ data: [{ id: 'DelegatedKey:1' }] }) });
    expect((await call(`/auth/delegated-keys?accountId=${A1}`)).status).toBe(502);
    expect(lines.at(-1)).toContain('ANSWER_WITHHELD (set owners.delegatedKey)');
  });

  it('owners must be functions of known kinds', () => {
    expect(() => setup({}, { owners: { cards: () => [] } as never })).toThrow(/owners\.cards/);
    expect(() => setup({}, { owners: { card: 'fundingSource' } as never })).toThrow(/owners\.card/);
  });
});

describe('lookup failures are reported as what they are', () => {
  it('a non-200 account lookup → 502 LOOKUP_FAILED naming the lookup and the status', async () => {
    const { call, lines } = setup({ accountStatus: 401 });
    const response = await call(`/internal-accounts/${A1}`, { ...json({ nickname: 'x' }), method: 'PATCH' });
    const body = (await response.json()) as { code: string; reason: string };
    expect([response.status, body.code]).toEqual([502, 'LOOKUP_FAILED']);
    expect(body.reason).toContain('GET /internal-account');
    expect(body.reason).toContain('401');
    expect(lines.at(-1)).toContain('LOOKUP_FAILED');
  });

  it('every code the proxy answers with is in PROXY_ERROR_CODES', () => {
    for (const code of ['OWNER_UNKNOWN', 'LOOKUP_FAILED', 'ANSWER_WITHHELD', 'QUOTE_NOT_FOUND', 'TRANSACTION_NOT_FOUND', 'AUTH_METHOD_NOT_FOUND', 'SESSION_NOT_FOUND']) {
      expect(PROXY_ERROR_CODES, code).toHaveProperty(code);
    }
  });
});

describe('the email/phone membership oracle', () => {
  it('onContactConflict replaces the 409 of an email owned by someone else', async () => {
    const conflict = () => Response.json({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', reason: 'taken' }, { status: 409 });
    const seen: string[] = [];
    const { call } = setup(
      { answer: conflict },
      {
        onContactConflict: (_request, c) => {
          seen.push(`${c.code} ${c.customerId}`);
          return Response.json({ code: 'CONTACT_CHANGE_FAILED' }, { status: 400 });
        },
      },
    );
    const response = await call(`/customers/${A}`, { ...json({ email: 'b@x.test' }), method: 'PATCH' });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([400, 'CONTACT_CHANGE_FAILED']);
    expect(seen).toEqual([`EMAIL_OTP_EMAIL_ALREADY_EXISTS ${A}`]);
    const passthrough = setup({ answer: conflict }, { onContactConflict: () => undefined });
    expect((await passthrough.call(`/customers/${A}`, { ...json({ email: 'b@x.test' }), method: 'PATCH' })).status).toBe(409);
  });
});
