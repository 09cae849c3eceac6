/**
 * Issue 34's rules against a scripted service that sends only what the spec defines (no `type` on
 * an internal account, no `accountId` on a session): the wallet rule of src/proxy/wallets.ts, the
 * closed card, S11 (foreign = unknown), S12 (narrowed users read the customer, write through their
 * accounts), S13 (sessions by the request's account), S15 (contact conflicts from every route).
 */
import { describe, expect, it } from 'vitest';
import { createProxy, DEFAULT_ALLOW, type CurrentUser, type ProxyOptions } from '../../src/proxy/index.js';
import { narrowedCustomerWrite } from '../../src/proxy/scope.js';

const A = 'Customer:a';
const B = 'Customer:b';
const A1 = 'acct-a1';
const A2 = 'acct-a2';
const B1 = 'acct-b1';
// No `type`: the spec defines no field that says which account is the wallet.
const ACCOUNTS: Record<string, { id: string; customerId: string }[]> = {
  [A]: [
    { id: A1, customerId: A },
    { id: A2, customerId: A },
  ],
  [B]: [{ id: B1, customerId: B }],
};
const WALLETS = new Set([A1, B1]);

interface Script {
  answer?: (url: URL, init: RequestInit) => Response;
  records?: Record<string, unknown>;
  credentials?: Record<string, { id: string }[]>;
  sessions?: Record<string, { id: string }[]>;
}

function setup(script: Script, options: Partial<ProxyOptions> = {}) {
  const sent: string[] = [];
  let user: CurrentUser = { customerId: A };
  const proxy = createProxy({
    baseUrl: 'https://service.test/v1',
    clientId: 'client',
    clientSecret: 'secret-0123456789',
    currentUser: () => user,
    logger: false,
    fetch: async (input, init) => {
      const url = new URL(input);
      const lookup = new Headers(init.headers).get('request-id') === null;
      const path = decodeURIComponent(url.pathname.replace('/v1', ''));
      sent.push(`${lookup ? 'lookup' : 'forward'} ${init.method} ${path}${url.search}`);
      if (lookup && path === '/internal-account') return Response.json({ data: ACCOUNTS[url.searchParams.get('customerId') ?? ''] ?? [], hasMore: false });
      if (lookup && (path === '/auth/credentials' || path === '/auth/sessions')) {
        const account = url.searchParams.get('accountId') ?? '';
        // The service serves these lists for an embedded-wallet account only (spec §4.5).
        if (!WALLETS.has(account)) return Response.json({ code: 'INVALID_INPUT', reason: 'not an embedded wallet' }, { status: 400 });
        return Response.json({ data: (path === '/auth/credentials' ? script.credentials : script.sessions)?.[account] ?? [] });
      }
      if (lookup) {
        const record = script.records?.[path];
        return record === undefined ? Response.json({ code: 'NOT_FOUND', reason: 'x' }, { status: 404 }) : Response.json(record);
      }
      return script.answer?.(url, init) ?? Response.json({});
    },
    ...options,
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await proxy(
      new Request(`http://app.test${path}`, {
        method,
        headers: { 'request-id': 'Request:1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, text: await response.text() };
  };
  return { call, sent, as: (next: CurrentUser) => void (user = next) };
}

const sessionAnswer = (id: string) => () => Response.json({ id, expiresAt: '2030-01-01T00:00:00Z' });

describe('wallets without a type field (src/proxy/wallets.ts)', () => {
  it('a credential is found by asking each account; an account the service refuses (400) is not asked again', async () => {
    const { call, sent } = setup({ credentials: { [A1]: [{ id: 'cred-1' }] }, answer: () => Response.json({ otpEncryptionTargetBundle: 'x' }) });
    expect((await call('POST', '/auth/credentials/cred-1/challenge', {})).status).toBe(200);
    expect(sent.filter((l) => l.startsWith('lookup GET /auth/credentials'))).toEqual([`lookup GET /auth/credentials?accountId=${A1}`, `lookup GET /auth/credentials?accountId=${A2}`]);
    sent.length = 0;
    expect((await call('POST', '/auth/credentials/cred-unknown/challenge', {})).status).toBe(404);
    // A2 is known not to be a wallet: only A1 is listed again.
    expect(sent.filter((l) => l.startsWith('lookup GET /auth/credentials'))).toEqual([`lookup GET /auth/credentials?accountId=${A1}`]);
  });

  it('isWallet replaces the rule: false skips an account, true makes its refusal a lookup failure', async () => {
    const skip = setup({ credentials: { [A1]: [{ id: 'cred-1' }] } }, { isWallet: (a) => a.id === A1 });
    expect((await skip.call('POST', '/auth/credentials/cred-1/challenge', {})).status).toBe(200);
    expect(skip.sent.filter((l) => l.startsWith('lookup GET /auth/credentials'))).toEqual([`lookup GET /auth/credentials?accountId=${A1}`]);
    const strict = setup({}, { isWallet: () => true });
    const refused = await strict.call('POST', '/auth/credentials/cred-1/challenge', {});
    expect([refused.status, JSON.parse(refused.text).code]).toEqual([502, 'LOOKUP_FAILED']);
    expect(() => setup({}, { isWallet: 'type' as never })).toThrow(/isWallet/);
  });
});

describe('S13: credentials and sessions by the account the request names', () => {
  it('a verify answer without accountId is passed on and its session learnt (no listing to end it)', async () => {
    const { call, sent } = setup({ credentials: { [A1]: [{ id: 'cred-1' }] }, answer: sessionAnswer('sess-new') });
    const verified = await call('POST', '/auth/credentials/cred-1/verify', {});
    expect(verified.status, verified.text).toBe(200);
    sent.length = 0;
    expect((await call('DELETE', '/auth/sessions/sess-new')).status).toBe(200);
    expect(sent).toEqual(['forward DELETE /auth/sessions/sess-new']);
  });

  it('a session list without accountId is judged by the query account; a record naming another account withholds it', async () => {
    const fine = setup({ answer: () => Response.json({ data: [{ id: 's1', expiresAt: 'x' }] }) });
    expect((await fine.call('GET', `/auth/sessions?accountId=${A1}`)).status).toBe(200);
    const lying = setup({ answer: () => Response.json({ data: [{ id: 's1', accountId: B1 }] }) });
    expect((await lying.call('GET', `/auth/sessions?accountId=${A1}`)).status).toBe(502);
    // Even another account of the same customer: the record must agree with the request.
    const other = setup({ credentials: { [A1]: [{ id: 'cred-1' }] }, answer: () => Response.json({ id: 's2', accountId: A2 }) });
    expect((await other.call('POST', '/auth/credentials/cred-1/verify', {})).status).toBe(502);
  });
});

describe('a closed card (spec §3.4: its funding source detached) stays its cardholder\'s', () => {
  it('by the funding account the proxy saw, also for a user narrowed to it', async () => {
    const records: Record<string, unknown> = { '/cards/card-1': { id: 'card-1', status: 'ACTIVE', fundingSource: A1 } };
    const { call, as } = setup({ records, answer: () => Response.json(records['/cards/card-1']) });
    as({ customerId: A, accountIds: [A1] });
    expect((await call('GET', '/cards/card-1')).status).toBe(200);
    records['/cards/card-1'] = { id: 'card-1', status: 'CLOSED', statusReason: 'CLOSED_BY_PLATFORM' };
    expect((await call('GET', '/cards/card-1')).status).toBe(200);
    as({ customerId: A, accountIds: [A2] });
    expect((await call('GET', '/cards/card-1')).status).toBe(404);
    as({ customerId: B });
    expect((await call('GET', '/cards/card-1')).status).toBe(404);
  });

  it('never seen funded: by its cardholder (the fallback of owners.ts), for the whole customer only', async () => {
    const closed = { id: 'card-2', status: 'CLOSED', cardholderId: A };
    const { call, as } = setup({ records: { '/cards/card-2': closed }, answer: () => Response.json(closed) });
    expect((await call('GET', '/cards/card-2')).status).toBe(200);
    as({ customerId: A, accountIds: [A1] });
    expect((await call('GET', '/cards/card-2')).status).toBe(404);
    as({ customerId: A, accountIds: [A1], customerAccess: 'write' });
    expect((await call('GET', '/cards/card-2')).status).toBe(200);
    as({ customerId: B });
    expect((await call('GET', '/cards/card-2')).status).toBe(404);
  });
});

describe('S11: a foreign id answers exactly as an unknown one', () => {
  it.each([
    ['/quotes/q-b', { id: 'q-b', source: { accountId: B1 } }],
    ['/cards/card-b', { id: 'card-b', fundingSource: B1 }],
    ['/auth/delegated-keys/dk-b', { id: 'dk-b', accountId: B1 }],
    ['/transactions/tx-b', { id: 'tx-b', customerId: B, type: 'OUTGOING', source: { accountId: B1 } }],
  ])('%s', async (path, record) => {
    // GET /transactions/{id} is not a library route: an app adds it (path-scoped by its placeholder).
    const { call, sent } = setup({ records: { [path]: record } }, { allow: [...DEFAULT_ALLOW, { method: 'GET', pattern: '/transactions/{transactionId}', answer: 'transaction' }] });
    const foreign = await call('GET', path);
    const unknown = await call('GET', path.replace(/[^/]+$/, 'nothing-here'));
    expect([foreign.status, foreign.text]).toEqual([unknown.status, unknown.text]);
    expect(foreign.status).toBe(404);
    expect(sent.filter((l) => l.startsWith('forward'))).toEqual([]);
  });
});

describe('S12: a narrowed user reads the customer and writes only through their accounts', () => {
  const narrowed: CurrentUser = { customerId: A, accountIds: [A1] };
  it('GET the customer passes; PATCH it and a quote with a customer source are refused, nothing forwarded', async () => {
    const { call, sent, as } = setup({ answer: () => Response.json({ id: A }) });
    as(narrowed);
    expect((await call('GET', `/customers/${A}`)).status).toBe(200);
    expect((await call('PATCH', `/customers/${A}`, { email: 'x@example.com' })).status).toBe(403);
    expect((await call('POST', '/quotes', { source: { sourceType: 'REALTIME_FUNDING', customerId: A, currency: 'USD' }, destination: { accountId: B1 } })).status).toBe(403);
    expect(sent.filter((l) => l.startsWith('forward'))).toEqual([`forward GET /customers/${A}`]);
  });

  it('a write through their account passes; customerAccess: write allows the customer-level ones', async () => {
    const { call, as } = setup({ answer: () => Response.json({ id: 'q1', source: { accountId: A1 } }) });
    as(narrowed);
    expect((await call('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: A1 }, destination: { accountId: B1 } })).status).toBe(200);
    const wide = setup({ answer: () => Response.json({ id: A }) });
    wide.as({ ...narrowed, customerAccess: 'write' });
    expect((await wide.call('PATCH', `/customers/${A}`, { email: 'x@example.com' })).status).toBe(200);
  });

  it('a quote sourced by the customer alone is not a narrowed user\'s', async () => {
    const records = { '/quotes/q-c': { id: 'q-c', source: { customerId: A } } };
    const { call, as } = setup({ records, answer: () => Response.json(records['/quotes/q-c']) });
    as(narrowed);
    expect((await call('POST', '/quotes/q-c/execute')).status).toBe(404);
    as({ customerId: A });
    expect((await call('POST', '/quotes/q-c/execute')).status).toBe(200);
  });

  it('currentUser must answer customerAccess read or write', async () => {
    const { call, as } = setup({});
    as({ customerId: A, customerAccess: 'all' as never });
    expect((await call('GET', `/customers/${A}`)).status).toBe(500);
  });
});

describe('S15: contact conflicts from every route', () => {
  const conflict = (code: string) => () => Response.json({ code, reason: `${code}: held by Customer:b` }, { status: 409 });

  it('without the hook: one answer for email and phone, on POST /auth/credentials and PATCH /customers', async () => {
    const answers = new Set<string>();
    for (const code of ['EMAIL_OTP_EMAIL_ALREADY_EXISTS', 'SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS']) {
      const { call } = setup({ answer: conflict(code) });
      for (const [method, path, body] of [
        ['POST', '/auth/credentials', { type: 'SMS_OTP', accountId: A1 }],
        ['PATCH', `/customers/${A}`, { phoneNumber: '+15550000000' }],
      ] as const) {
        const answer = await call(method, path, body);
        answers.add(`${answer.status} ${answer.text}`);
      }
    }
    expect([...answers]).toEqual(['409 {"code":"CONTACT_UNAVAILABLE","reason":"This email address or phone number cannot be used."}']);
  });

  it('the hook sees the route; other 409s pass unchanged', async () => {
    const seen: string[] = [];
    const { call } = setup({ answer: conflict('SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS') }, {
      onContactConflict: (_request, c) => {
        seen.push(`${c.code} ${c.customerId} ${c.method} ${c.pattern}`);
        return Response.json({ code: 'GENERIC' }, { status: 400 });
      },
    });
    expect((await call('POST', '/auth/credentials', { type: 'SMS_OTP', accountId: A1 })).status).toBe(400);
    expect(seen).toEqual([`SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS ${A} POST /auth/credentials`]);
    const other = setup({ answer: conflict('CONFLICT') });
    expect(JSON.parse((await other.call('POST', '/auth/credentials', { type: 'SMS_OTP', accountId: A1 })).text).code).toBe('CONFLICT');
  });

  it('contactRateLimit answers instead of forwarding, on the contact routes only', async () => {
    const seen: string[] = [];
    const { call, sent } = setup({ answer: () => Response.json({ id: A }) }, {
      contactRateLimit: (_request, c) => {
        seen.push(`${c.method} ${c.pattern}`);
        return new Response(null, { status: 429, headers: { 'retry-after': '60' } });
      },
    });
    expect((await call('POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: A1 })).status).toBe(429);
    expect((await call('PATCH', `/customers/${A}`, { email: 'x@example.com' })).status).toBe(429);
    expect((await call('GET', `/customers/${A}`)).status).toBe(200);
    expect(seen).toEqual(['POST /auth/credentials', 'PATCH /customers/{customerId}']);
    expect(sent.filter((l) => l.startsWith('forward'))).toEqual([`forward GET /customers/${A}`]);
  });
});

describe('the edges of issue 34\'s rules', () => {
  it('S13: a record that names the request\'s own account passes; one withheld is not learnt', async () => {
    const agreeing = setup({ answer: () => Response.json({ data: [{ id: 's1', accountId: A1 }] }) });
    expect((await agreeing.call('GET', `/auth/sessions?accountId=${A1}`)).status).toBe(200);
    const lying = setup({ sessions: { [A1]: [] }, answer: (url) => (url.pathname.endsWith('/auth/sessions') ? Response.json({ data: [{ id: 's-b', accountId: B1 }] }) : Response.json({})) });
    expect((await lying.call('GET', `/auth/sessions?accountId=${A1}`)).status).toBe(502);
    lying.sent.length = 0;
    // Not learnt as A1's: ending it lists A1's sessions (it is not there) and forwards nothing.
    expect((await lying.call('DELETE', '/auth/sessions/s-b')).status).toBe(404);
    expect(lying.sent.filter((l) => l.startsWith('forward'))).toEqual([]);
  });

  it('S13: a record withheld for naming another customer (an app\'s owner resolver) is not learnt either', async () => {
    const owners: ProxyOptions['owners'] = { session: (r) => [{ accountId: String(r.accountId) }, { customerId: String(r.customerId) }] };
    const { call, sent } = setup({ sessions: { [A1]: [] }, answer: () => Response.json({ data: [{ id: 's-x', accountId: A1, customerId: B }] }) }, { owners });
    expect((await call('GET', `/auth/sessions?accountId=${A1}`)).status).toBe(502);
    sent.length = 0;
    expect((await call('DELETE', '/auth/sessions/s-x')).status).toBe(404);
    expect(sent.filter((l) => l.startsWith('forward'))).toEqual([]);
  });

  it('S12: a narrowed write naming an account or funding source of theirs beside the customer is not refused here', () => {
    const narrowed: CurrentUser = { customerId: A, accountIds: [A1] };
    expect(narrowedCustomerWrite('POST', { customerId: A, accountId: A1 }, narrowed)).toBeUndefined();
    expect(narrowedCustomerWrite('POST', { customerId: A, fundingSourceId: A1 }, narrowed)).toBeUndefined();
    expect(narrowedCustomerWrite('POST', { customerId: A }, narrowed)?.code).toBe('FORBIDDEN');
  });

  it('a narrowed user keeps reading their card once it is closed (the remembered funding account, not the cardholder)', async () => {
    const records: Record<string, unknown> = { '/cards/card-1': { id: 'card-1', fundingSource: A1 } };
    const { call, as } = setup({ records, answer: (url) => Response.json(records[decodeURIComponent(url.pathname.replace('/v1', ''))]) });
    as({ customerId: A, accountIds: [A1] });
    expect((await call('GET', '/cards/card-1')).status).toBe(200);
    records['/cards/card-1'] = { id: 'card-1', status: 'CLOSED', cardholderId: A };
    expect((await call('GET', '/cards/card-1')).status).toBe(200);
  });

  it('a card\'s facts are a card\'s: a quote with the same id (ids are opaque, spec §2) is judged by its own source', async () => {
    const records: Record<string, unknown> = {
      '/cards/x-1': { id: 'x-1', fundingSource: A1 },
      '/quotes/x-1': { id: 'x-1', source: { customerId: B } },
    };
    const { call, sent } = setup({ records, answer: (url) => Response.json(records[decodeURIComponent(url.pathname.replace('/v1', ''))]) });
    expect((await call('GET', '/cards/x-1')).status).toBe(200);
    expect((await call('GET', '/quotes/x-1')).status).toBe(404);
    expect(sent.filter((l) => l.startsWith('forward'))).toEqual(['forward GET /cards/x-1']);
    // Each record was looked up (GET) under its own path.
    expect(sent.filter((l) => / \/(cards|quotes)\//.test(l) && l.startsWith('lookup'))).toEqual(['lookup GET /cards/x-1', 'lookup GET /quotes/x-1']);
  });

  it('S12: a narrowed write naming the customer beside an account of theirs passes (a card for the cardholder on their account)', async () => {
    const { call, as } = setup({ answer: () => Response.json({ id: 'card-9', fundingSource: A1 }) });
    as({ customerId: A, accountIds: [A1] });
    const made = await call('POST', '/cards', { cardholderId: A, fundingSource: A1 });
    expect(made.status, made.text).toBe(200);
    const refused = await call('PATCH', `/customers/${A}`, { fullName: 'x' });
    expect(JSON.parse(refused.text)).toEqual({ code: 'FORBIDDEN', reason: 'This user may read the customer but change it only through their own accounts.' });
  });

  it('a card\'s funding facts are per card, and a card moved to another customer\'s account is not theirs', async () => {
    const records: Record<string, unknown> = {
      '/cards/card-1': { id: 'card-1', fundingSource: A1 },
      '/cards/card-3': { id: 'card-3', status: 'CLOSED', cardholderId: B },
    };
    const { call } = setup({ records, answer: (url) => Response.json(records[decodeURIComponent(url.pathname.replace('/v1', ''))]) });
    expect((await call('GET', '/cards/card-1')).status).toBe(200);
    // Another card, never seen funded, is judged by its own cardholder (not by card-1's account).
    expect((await call('GET', '/cards/card-3')).status).toBe(404);
    records['/cards/card-1'] = { id: 'card-1', fundingSource: B1 };
    expect((await call('GET', '/cards/card-1')).status).toBe(404);
  });

  it('allowUnscoped names routes only: no scope needed there', () => {
    expect(() => setup({}, { allowUnscoped: [{ method: 'GET', pattern: '/auth/credentials' }] })).not.toThrow();
  });

  it('S15: only a 409 is a contact conflict; the default answer is logged with its code', async () => {
    const lines: string[] = [];
    const other = setup({ answer: () => Response.json({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', reason: 'x' }, { status: 400 }) });
    expect((await other.call('PATCH', `/customers/${A}`, { email: 'x@example.com' })).status).toBe(400);
    const logged = setup({ answer: () => Response.json({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', reason: 'x' }, { status: 409 }) }, { logger: (line) => lines.push(line) });
    expect((await logged.call('PATCH', `/customers/${A}`, { email: 'x@example.com' })).status).toBe(409);
    expect(lines.at(-1)).toMatch(/ 409 \d+ms CONTACT_UNAVAILABLE$/);
    // A 409 whose body is not JSON, or is JSON's null, names no code: not a contact conflict.
    for (const body of ['taken', 'null']) {
      const plain = setup({ answer: () => new Response(body, { status: 409, headers: { 'content-type': 'application/json' } }) }, { logger: (line) => lines.push(line) });
      const answer = await plain.call('PATCH', `/customers/${A}`, { email: 'x@example.com' });
      expect(answer.status, answer.text).toBe(409);
      expect(answer.text).not.toMatch(/CONTACT_UNAVAILABLE/);
      expect(lines.at(-1)).not.toMatch(/CONTACT_UNAVAILABLE/);
    }
  });
});
