/**
 * Edges of S1–S7 (src/proxy/scope.ts) and of the lookups that the mutation run showed no test
 * defended: exact refusal reasons, body shapes, routes without an answer kind or with scope 'none',
 * byte-exact pass-through, pagination bounds and the re-listing boundary.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProxy, DEFAULT_ALLOW, DEFAULT_OWNERS, type AllowRule, type ProxyOptions } from '../../src/proxy/index.js';
import { BODY_ID_FIELDS, compileRules } from '../../src/proxy/routes.js';

const A = 'Customer:a';
const A1 = 'InternalAccount:a1';
const A2 = 'InternalAccount:a2';

interface Setup {
  answer?: (path: string) => Response;
  accounts?: (query: URLSearchParams) => Response;
  /** Other lookups (by path); default 404. */
  lookup?: (path: string) => Response;
}

function setup(script: Setup, options: Partial<ProxyOptions> = {}, user: { customerId: string; accountIds?: string[] } = { customerId: A }) {
  const lines: string[] = [];
  const lookups: URL[] = [];
  const forwarded: URL[] = [];
  const proxy = createProxy({
    baseUrl: 'https://service.test/v1',
    clientId: 'client',
    clientSecret: 'secret-0123456789',
    currentUser: () => user,
    logger: (line) => lines.push(line),
    fetch: async (input, init) => {
      const url = new URL(input);
      const path = decodeURIComponent(url.pathname.replace('/v1', ''));
      if (new Headers(init.headers).get('request-id') !== null) {
        forwarded.push(url);
        return script.answer?.(path) ?? Response.json({}, { status: 202 });
      }
      lookups.push(url);
      if (path === '/internal-account') {
        return script.accounts?.(url.searchParams) ?? Response.json({ data: [{ id: A1, customerId: A, type: 'EMBEDDED_WALLET' }, { id: A2, customerId: A }], hasMore: false });
      }
      return script.lookup?.(path) ?? Response.json({ code: 'NOT_FOUND' }, { status: 404 });
    },
    ...options,
  });
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await proxy(new Request(`http://app.test${path}`, { ...init, headers: { 'request-id': 'Request:1', ...(init.headers as Record<string, string>) } }));
    const text = await response.text();
    let json: { code?: string; reason?: string } = {};
    try {
      json = JSON.parse(text);
    } catch {
      json = {};
    }
    return { status: response.status, text, code: json.code, reason: json.reason };
  };
  return { send, lines, lookups, forwarded };
}

const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

afterEach(() => vi.restoreAllMocks());

describe('S1, S3 refusal reasons', () => {
  it('an undeclared parameter is named, cut to 64 characters', async () => {
    const { send } = setup({});
    const long = 'p'.repeat(100);
    const answer = await send(`/transactions?${long}=1`);
    expect(answer.reason).toBe(`The query parameter ${'p'.repeat(64)} is not accepted on GET /transactions.`);
  });

  it('an undeclared id field, a non-string id field, two values of one kind', async () => {
    const { send } = setup({}, { allow: [...DEFAULT_ALLOW, { method: 'POST', pattern: '/x/{accountId}', body: { accountId: 'accountId', 'a.b': 'accountId' } }] });
    expect((await send('/cards', post(`{"fundingSource":"${A1}","cardId":"Card:1"}`, { 'idempotency-key': 'k' }))).reason).toBe('The body field cardId is not accepted on POST /cards.');
    expect((await send('/quotes', post('{"source":{"accountId":7}}'))).reason).toBe('The body field source.accountId must be a string.');
    const two = await send(`/x/${A1}`, post(`{"accountId":"${A2}"}`));
    expect([two.status, two.reason]).toEqual([400, 'The request names more than one accountId.']);
    expect((await send(`/x/${A1}`, post(`{"accountId":"${A1}","a":{"b":"${A1}"}}`))).status).toBe(202);
  });

  it('body shapes that name nothing: null, a string, an array, a null or inherited field', async () => {
    const { send, forwarded } = setup({}, { allow: [...DEFAULT_ALLOW, { method: 'POST', pattern: '/y/{accountId}', body: { 'a.toString': 'accountId' } }] });
    for (const body of ['null', '"x"', '[1]', '{"source":null}', '{"source":"x"}', '{"source":[]}']) {
      const answer = await send('/quotes', post(body));
      expect([answer.status, answer.code], body).toEqual([403, 'FORBIDDEN']);
    }
    // `toString` is inherited, not the body's own field: it names nothing.
    expect((await send(`/y/${A1}`, post('{"a":{}}'))).status).toBe(202);
    expect(forwarded).toHaveLength(1);
  });

  it('an empty account filter value is nobody\'s account', async () => {
    const { send } = setup({ accounts: () => Response.json({ data: [{ id: '', customerId: A }, { id: 5, customerId: A }, { id: A1, customerId: A }], hasMore: false }) });
    expect((await send('/auth/credentials?accountId=')).status).toBe(403);
    expect((await send('/auth/credentials?accountId=5')).status).toBe(403);
  });
});

describe('routes you add', () => {
  it('a placeholder that is not an id kind is not an id; scope "none" is forwarded to any signed-in user; no answer kind → not checked', async () => {
    const seen: string[][] = [];
    const rules: AllowRule[] = [...DEFAULT_ALLOW, { method: 'GET', pattern: '/jobs/{jobId}', scope: 'none' }];
    const { send } = setup({ answer: () => Response.json({ id: 'Customer:b', email: 'b@x.test' }) }, { allow: rules, authorize: (_r, ctx) => (seen.push(Object.keys(ctx).sort()), true) });
    const answer = await send('/jobs/J1');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"id":"Customer:b","email":"b@x.test"}');
    expect(seen[0]).not.toContain('jobId');
  });
});

describe('S3: every id-named body field', () => {
  it.each(['customerId', 'accountId', 'internalAccountId', 'cardholderId', 'cardId', 'fundingSource', 'fundingSourceId', 'quoteId', 'sessionId', 'credentialId', 'delegatedKeyId', 'transactionId', 'platformCustomerId'])(
    '%s is refused where the route does not declare it',
    async (name) => {
      expect(BODY_ID_FIELDS).toContain(name);
      const { send, forwarded } = setup({});
      const answer = await send(`/internal-accounts/${A1}`, { ...post(JSON.stringify({ nickname: 'n', [name]: 'x' })), method: 'PATCH' });
      expect([answer.status, answer.reason]).toEqual([400, `The body field ${name} is not accepted on PATCH /internal-accounts/{accountId}.`]);
      expect(forwarded).toEqual([]);
    },
  );

  it("an account record without id withholds the answer, naming the account's owner", async () => {
    const { send } = setup({ answer: () => Response.json({ customerId: A }) });
    const answer = await send(`/internal-accounts/${A1}`, { ...post('{"nickname":"n"}'), method: 'PATCH' });
    expect([answer.status, answer.reason]).toEqual([502, "The account's owner could not be read from the service's record."]);
  });
});

describe('the authorize context', () => {
  it('holds ids only: a plain filter such as status adds no key', async () => {
    const seen: string[][] = [];
    const { send } = setup({ answer: () => Response.json({ data: [] }) }, { authorize: (_r, ctx) => (seen.push(Object.keys(ctx).sort()), true) });
    expect((await send('/transactions?status=COMPLETED&limit=5')).status).toBe(200);
    expect(seen[0]).toEqual(['customerId', 'method', 'params', 'path', 'pattern', 'query']);
  });
});

describe('S4 edges', () => {
  it('an account listing that fails while an answer is checked → 502 LOOKUP_FAILED', async () => {
    const { send } = setup({
      accounts: () => new Response('{}', { status: 500 }),
      answer: () => Response.json({ data: [{ id: 'T1', customerId: A, type: 'OUTGOING', source: { accountId: A1 } }] }),
    });
    const answer = await send('/transactions');
    expect([answer.status, answer.code, answer.reason]).toEqual([502, 'LOOKUP_FAILED', 'The account lookup (GET /internal-account) answered 500.']);
  });

  it('a 2xx answer is checked at 299 too', async () => {
    const { send } = setup({ answer: () => Response.json({ id: 'Customer:b' }, { status: 299 }) });
    expect((await send(`/customers/${A}`)).status).toBe(502);
  });

  it('reasons and the log line say what was withheld and why', async () => {
    const cases: [string, () => Response, string, string][] = [
      [`/customers/${A}`, () => new Response('<html>'), 'The service answer is not JSON; it was withheld.', ''],
      [`/customers/${A}`, () => Response.json(['x']), 'The service answer is not a record; it was withheld.', ''],
      [`/customers/${A}`, () => Response.json({ id: 'Customer:b' }), "The service answered a record that is not the user's; it was withheld.", ''],
      [`/customers/${A}`, () => Response.json({ email: 'a@x.test' }), "The customer's owner could not be read from the service's record.", ' (set owners.customer)'],
      ['/transactions', () => Response.json({ items: [] }), 'The service answer is not a list; it was withheld.', ''],
      ['/transactions', () => Response.json({ data: [{ id: 'T', customerId: 'Customer:b' }] }), "The service answered a record that is not the user's; it was withheld.", ''],
      ['/transactions', () => Response.json({ data: [null] }), "The transaction's owner could not be read from the service's record.", ' (set owners.transaction)'],
    ];
    for (const [path, answer, reason, detail] of cases) {
      const { send, lines } = setup({ answer });
      const got = await send(path);
      expect([got.status, got.code, got.reason], path).toEqual([502, 'ANSWER_WITHHELD', reason]);
      expect(lines.at(-1)?.endsWith(`ANSWER_WITHHELD${detail}`), lines.at(-1)).toBe(true);
    }
  });

  it('an answer with only the user\'s records passes byte for byte (not re-serialised)', async () => {
    const text = `{ "data": [ { "id": "T1", "customerId": "${A}" } ], "hasMore": false }`;
    const { send } = setup({ answer: () => new Response(text, { headers: { 'content-type': 'application/json' } }) });
    expect((await send('/transactions')).text).toBe(text);
  });

  it('a narrowed list without totalCount gets none (the proxy pages it: S8, hasMore is its own)', async () => {
    const { send } = setup({ answer: () => Response.json({ data: [{ id: A1, customerId: A }, { id: A2, customerId: A }] }) }, {}, { customerId: A, accountIds: [A2] });
    expect(JSON.parse((await send('/internal-account')).text)).toEqual({ data: [{ id: A2, customerId: A }], hasMore: false });
  });

  it('a record without id and without PROCESSING status is a record (its owner is read)', async () => {
    const { send } = setup({ answer: () => Response.json({ status: 'DONE' }) });
    expect((await send(`/customers/${A}`)).status).toBe(502);
  });
});

describe('account listing bounds', () => {
  it('follows nextCursor only while hasMore is true, and at most 10 pages', async () => {
    const once = setup({ accounts: () => Response.json({ data: [{ id: A1, customerId: A }], hasMore: false, nextCursor: 'c' }) });
    await once.send(`/auth/credentials?accountId=${A2}`);
    expect(once.lookups.filter((u) => u.searchParams.has('cursor'))).toHaveLength(0);
    const endless = setup({ accounts: (q) => Response.json({ data: [{ id: `${A}-${q.get('cursor') ?? 0}`, customerId: A }], hasMore: true, nextCursor: String(Number(q.get('cursor') ?? 0) + 1) }) });
    await endless.send(`/auth/credentials?accountId=${A1}`);
    // 10 pages; the miss does not re-list within the second that listing was read.
    expect(endless.lookups.length).toBe(10);
  });

  it('re-lists on a miss once a full second has passed, not before', async () => {
    let now = 5_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const { send, lookups } = setup({});
    await send(`/auth/credentials?accountId=${A1}`);
    expect(lookups).toHaveLength(1);
    now += 999;
    await send('/auth/credentials?accountId=InternalAccount:new');
    expect(lookups).toHaveLength(1);
    now += 1;
    await send('/auth/credentials?accountId=InternalAccount:new');
    expect(lookups).toHaveLength(2);
  });
});

describe('lookups: odd answers and the cache', () => {
  it('a record read as null → 502 LOOKUP_FAILED', async () => {
    const { send } = setup({ lookup: () => new Response('null', { status: 200 }) });
    expect((await send('/cards/Card:1')).code).toBe('LOOKUP_FAILED');
  });

  it('owners that are not non-empty strings are no owners (403 OWNER_UNKNOWN)', async () => {
    for (const record of [{ fundingSource: 5 }, { fundingSource: '' }]) {
      const { send } = setup({ lookup: () => Response.json(record) });
      expect((await send('/cards/Card:1')).code, JSON.stringify(record)).toBe('OWNER_UNKNOWN');
    }
    expect(DEFAULT_OWNERS.quote({ source: null })).toEqual([]);
    expect(DEFAULT_OWNERS.card({ fundingSource: 5 })).toEqual([]);
  });

  it('listed credentials without an id are not facts; the account list is not re-read for a credential lookup', async () => {
    let now = 7_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const { send, lookups } = setup({ lookup: (path) => (path === '/auth/credentials' ? Response.json({ data: [{ nickname: 'no id' }, { id: 'AuthMethod:1' }] }) : Response.json({}, { status: 404 })) });
    expect((await send('/auth/credentials/AuthMethod:1', { method: 'DELETE' })).status).toBe(202);
    now += 2_000;
    expect((await send('/auth/credentials/undefined', { method: 'DELETE' })).code).toBe('AUTH_METHOD_NOT_FOUND');
    expect(lookups.filter((u) => u.pathname.endsWith('/internal-account'))).toHaveLength(1);
  });

  it('the service unreachable while an answer is checked → 502 UPSTREAM_UNAVAILABLE, named', async () => {
    const proxy = createProxy({
      baseUrl: 'https://service.test/v1',
      clientId: 'client',
      clientSecret: 'secret-0123456789',
      currentUser: () => ({ customerId: A }),
      logger: false,
      fetch: async (input, init) => {
        if (new Headers(init.headers).get('request-id') === null) throw new TypeError('fetch failed');
        return Response.json({ data: [{ id: 'T1', customerId: A, type: 'OUTGOING', source: { accountId: A1 } }] });
      },
    });
    for (const path of ['/transactions', '/cards/Card:1']) {
      const response = await proxy(new Request(`http://app.test${path}`, { headers: { 'request-id': 'Request:1' } }));
      expect([response.status, await response.json()], path).toEqual([502, { code: 'UPSTREAM_UNAVAILABLE', reason: 'The ownership lookup could not reach the service.' }]);
    }
  });
});

describe('compileRules refusals (each with its message)', () => {
  it.each([
    ['x', 'allow must be an array of {method, pattern}'],
    [[null], 'allow[0] must be an object {method, pattern}'],
    [[7], 'allow[0] must be an object {method, pattern}'],
    [[{ method: 'PUT', pattern: '/x' }], 'allow[0].method must be one of GET, POST, PATCH, DELETE'],
    [[{ method: 'GET', pattern: 7 }], 'allow[0].pattern must be a path starting with / such as /quotes/{quoteId}'],
    [[{ method: 'GET', pattern: 'x' }], 'allow[0].pattern must be a path starting with / such as /quotes/{quoteId}'],
    [[{ method: 'GET', pattern: '/' }], 'allow[0].pattern must be a path starting with / such as /quotes/{quoteId}'],
    [[{ method: 'GET', pattern: '/x/{a}/{a}' }], 'allow[0].pattern must be free of repeated placeholder names'],
    [[{ method: 'GET', pattern: '/x/./y' }], 'allow[0].pattern must be made of literal segments and {name} placeholders'],
    [[{ method: 'GET', pattern: '/x/../y' }], 'allow[0].pattern must be made of literal segments and {name} placeholders'],
    [[{ method: 'GET', pattern: '/x y' }], 'allow[0].pattern must be made of literal segments and {name} placeholders'],
    [[{ method: 'GET', pattern: '/x/a{id}' }], 'allow[0].pattern must be made of literal segments and {name} placeholders'],
    [[{ method: 'GET', pattern: '/x/{id}b' }], 'allow[0].pattern must be made of literal segments and {name} placeholders'],
    [[{ method: 'GET', pattern: '/x', query: { a: 'accountId', c: 'customerId' }, scope: { accountFilter: ['a', 'c'] } }], 'allow[0].scope.accountFilter must be query parameters the rule declares as accountId or fundingSourceId'],
    [[{ method: 'POST', pattern: '/x', body: { a: 'accountId' }, scope: { body: ['a', 'z'] } }], 'allow[0].scope.body must be body fields the rule declares'],
    [[{ method: 'GET', pattern: '/ok', scope: 'none' }, { method: 'GET', pattern: '/x', scope: 'none', answer: 'x' }], 'allow[1].answer must be one of customer, account, credential, session, delegatedKey, quote, card, transaction'],
  ])('%j → %s', (rules, message) => {
    expect(() => compileRules(rules as never)).toThrow(message);
  });
});

