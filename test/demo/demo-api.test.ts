/**
 * The demo backend's own routes (`/demo/*`, demo/server/demo-api.ts) over HTTP: sign-up binds a
 * browser with an httpOnly cookie, `/demo/me`, logout, sign-in of a second browser, bad bodies,
 * and the sandbox clock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../demo/server/stack.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../src/sandbox/index.js';
import { Browser, COOKIE_NAME, enc, signUp, signupBody, type Me } from './browser.js';
import { emailCredentialId, otpLogin } from './wallet.js';

const BASIC = `Basic ${Buffer.from(`${DEFAULT_CLIENT_ID}:${DEFAULT_CLIENT_SECRET}`).toString('base64')}`;

let stack: DemoStack;

/** A call straight to the sandbox with the platform credentials (what only a backend can do). */
async function sandboxCall(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(stack.sandboxUrl + path, {
    method,
    headers: { Authorization: BASIC, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

beforeAll(async () => {
  stack = await startDemoStack({ port: 0, quiet: true, watch: false });
});
afterAll(() => stack?.close());

describe('POST /demo/signup', () => {
  it('creates the customer upstream and binds the browser with an httpOnly, SameSite=Lax cookie → 201 /demo/me', async () => {
    const browser = new Browser(stack.url);
    const body = signupBody('Ada Lovelace');
    const answer = await browser.post('/demo/signup', body);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');

    const cookies = answer.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair = '', ...attributes] = (cookies[0] ?? '').split(';').map((s) => s.trim());
    expect(pair).toMatch(new RegExp(`^${COOKIE_NAME}=[A-Za-z0-9_-]{40,}$`));
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));

    const me = answer.json as Me;
    expect(me.customer).toMatchObject({ email: body.email, phoneNumber: body.phoneNumber, fullName: 'Ada Lovelace' });
    expect(me.customer.id).toMatch(/^Customer:/);
    // The customer really exists upstream.
    const upstream = await sandboxCall('GET', `/customers/${enc(me.customer.id)}`);
    expect(upstream.status).toBe(200);
    expect(upstream.json.email).toBe(body.email);
  });

  it('each sign-up is a new customer and a new, unguessable token', async () => {
    const one = await signUp(stack.url);
    const two = await signUp(stack.url);
    expect(one.me.customer.id).not.toBe(two.me.customer.id);
    expect(one.browser.cookie).not.toBe(two.browser.cookie);
  });

  it('a formatted phone number is accepted and stored in E.164', async () => {
    const browser = new Browser(stack.url);
    const answer = await browser.post('/demo/signup', { ...signupBody(), phoneNumber: '+1 (415) 555-0123' });
    expect(answer.status, answer.text).toBe(201);
    expect((answer.json as Me).customer.phoneNumber).toBe('+14155550123');
  });

  const good = signupBody();
  const badBodies: [string, string][] = [
    ['no body', ''],
    ['not JSON', '{"fullName":'],
    ['a JSON array', JSON.stringify([good])],
    ['JSON null', 'null'],
    ['a JSON string', '"hello"'],
    ['an empty object', '{}'],
    ['fullName missing', JSON.stringify({ email: good.email, phoneNumber: good.phoneNumber })],
    ['email missing', JSON.stringify({ fullName: good.fullName, phoneNumber: good.phoneNumber })],
    ['phoneNumber missing', JSON.stringify({ fullName: good.fullName, email: good.email })],
    ['blank fullName', JSON.stringify({ ...good, fullName: '   ' })],
    ['fullName a number', JSON.stringify({ ...good, fullName: 42 })],
    ['email an object', JSON.stringify({ ...good, email: { address: good.email } })],
    ['phoneNumber a number', JSON.stringify({ ...good, phoneNumber: 14155550123 })],
    ['fullName too long', JSON.stringify({ ...good, fullName: 'x'.repeat(201) })],
    ['email too long', JSON.stringify({ ...good, email: `${'x'.repeat(250)}@example.com` })],
    ['email not an address (the service says)', JSON.stringify({ ...good, email: 'not-an-email' })],
    ['phone not E.164 (the service says)', JSON.stringify({ ...good, phoneNumber: 'call me' })],
    ['phoneNumber too long', JSON.stringify({ ...good, phoneNumber: '+1 555 555 5555 5555 5555 5555 55' })],
    ['phone too long once formatting is dropped (the service says)', JSON.stringify({ ...good, phoneNumber: '+1 (555) 555-5555-5555-55' })],
    ['a body over the demo limit', JSON.stringify({ ...good, fullName: 'x'.repeat(64 * 1024) })],
  ];

  it.each(badBodies)('%s → 4xx with a code, no cookie', async (_label, raw) => {
    const browser = new Browser(stack.url);
    const answer = await browser.call('POST', '/demo/signup', { raw });
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text).toBeLessThan(500);
    expect(answer.json?.code, answer.text).toMatch(/^[A-Z][A-Z_]+$/);
    expect(typeof answer.json?.reason).toBe('string');
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  it('field errors name the field (details.errors[])', async () => {
    const answer = await new Browser(stack.url).post('/demo/signup', { email: good.email, phoneNumber: good.phoneNumber });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [expect.objectContaining({ field: 'fullName' })] } });
  });
});

describe('GET /demo/me', () => {
  let browser: Browser;
  let me: Me;
  beforeAll(async () => {
    ({ browser, me } = await signUp(stack.url, 'Grace Hopper'));
  });

  it('answers the bound customer, its accounts, its wallet and the sandbox enclave key', async () => {
    const answer = await browser.get('/demo/me');
    expect(answer.status, answer.text).toBe(200);
    const body = answer.json as Me;
    expect(body.customer.id).toBe(me.customer.id);
    expect(body.customer.fullName).toBe('Grace Hopper');
    expect(body.accounts.length).toBeGreaterThanOrEqual(2);
    expect(body.accounts.every((a) => a.customerId === me.customer.id)).toBe(true);
    const wallets = body.accounts.filter((a) => a.type === 'EMBEDDED_WALLET');
    expect(wallets).toHaveLength(1);
    expect(body.walletAccountId).toBe(wallets[0]?.id);
    expect(body.sandbox).toBe(true);

    const enclave = await sandboxCall('GET', '/sandbox/enclave');
    expect(enclave.status).toBe(200);
    expect(body.trustedKeys).toEqual([enclave.json.enclaveQuorumPublic]);

    expect(body.oauth?.authorizeUrl).toBe(`${stack.sandboxUrl}/sandbox/oauth/authorize`);
    // Transfer destinations: someone else's account, and the user's own USDC account.
    const own = new Set(body.accounts.map((a) => a.id));
    expect(body.payees.some((p) => !own.has(p.accountId))).toBe(true);
    expect(body.payees.every((p) => p.accountId !== body.walletAccountId)).toBe(true);
  });

  it('the trusted keys really verify the bundles: an email-OTP login through /api works with them', async () => {
    const login = await otpLogin(browser, await emailCredentialId(browser, me.walletAccountId ?? ''), me);
    expect(login.session.accountId).toBe(me.walletAccountId);
  });

  it('no cookie, an unknown token, an empty cookie → 204, no body (nobody bound is not an error)', async () => {
    for (const cookie of [undefined, `${COOKIE_NAME}=${'A'.repeat(43)}`, `${COOKIE_NAME}=`, 'other=1']) {
      const stranger = new Browser(stack.url);
      stranger.cookie = cookie;
      const answer = await stranger.get('/demo/me');
      expect(answer.status).toBe(204);
      expect(answer.text).toBe('');
    }
  });

  it('the cookie is found among other cookies', async () => {
    const other = new Browser(stack.url);
    other.cookie = `theme=dark; ${browser.cookie ?? ''}; lang=en`;
    const answer = await other.get('/demo/me');
    expect(answer.status).toBe(200);
    expect(answer.json.customer.id).toBe(me.customer.id);
  });
});

describe('POST /demo/logout', () => {
  it('clears the cookie (Max-Age=0) and forgets the token server side → 204', async () => {
    const { browser } = await signUp(stack.url);
    const stolen = browser.cookie;
    const answer = await browser.post('/demo/logout', {});
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    const [cleared = ''] = answer.headers.getSetCookie();
    expect(cleared).toMatch(new RegExp(`^${COOKIE_NAME}=;`));
    expect(cleared).toMatch(/Max-Age=0/);
    expect(cleared).toMatch(/HttpOnly/);
    expect(browser.cookie).toBeUndefined();
    expect((await browser.get('/demo/me')).status).toBe(204);

    // A copy of the old cookie is worthless now, on /demo and on /api.
    const replay = new Browser(stack.url);
    replay.cookie = stolen;
    expect((await replay.get('/demo/me')).status).toBe(204);
    const api = await replay.get('/api/transactions');
    expect([api.status, api.json.code]).toEqual([401, 'LOGIN_REQUIRED']);
  });

  it('without a cookie it still answers 204', async () => {
    expect((await new Browser(stack.url).post('/demo/logout', {})).status).toBe(204);
  });
});

describe('POST /demo/signin', () => {
  it('binds a second browser to the customer this demo created with that email (case and spaces ignored)', async () => {
    const first = await signUp(stack.url, 'Katherine Johnson');
    const second = new Browser(stack.url);
    const answer = await second.post('/demo/signin', { email: `  ${first.me.customer.email.toUpperCase()} ` });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.customer.id).toBe(first.me.customer.id);
    expect(answer.json.walletAccountId).toBe(first.me.walletAccountId);
    expect(second.cookie).toBeDefined();
    expect(second.cookie).not.toBe(first.browser.cookie);
    expect(answer.headers.getSetCookie()[0]).toMatch(/HttpOnly/);

    // Both browsers act for the customer; logging one out leaves the other bound.
    const list = await second.get(`/api/internal-account?customerId=${enc(first.me.customer.id)}`);
    expect(list.status, list.text).toBe(200);
    expect((await second.post('/demo/logout', {})).status).toBe(204);
    expect((await first.browser.get('/demo/me')).status).toBe(200);
  });

  it('a second signup with the same email → 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS from the service; sign-in finds the first', async () => {
    const body = signupBody();
    const first = new Browser(stack.url);
    const created = await first.post('/demo/signup', body);
    expect(created.status).toBe(201);
    // The service ties an email to one wallet's EMAIL_OTP credential (spec §7.4).
    const again = await new Browser(stack.url).post('/demo/signup', body);
    expect([again.status, again.json.code]).toEqual([409, 'EMAIL_OTP_EMAIL_ALREADY_EXISTS']);
    const answer = await new Browser(stack.url).post('/demo/signin', { email: body.email });
    expect(answer.json.customer.id).toBe(created.json.customer.id);
  });

  it('a customer the demo did not create (made by the platform directly) → 404 NO_DEMO_CUSTOMER, no cookie', async () => {
    const email = `platform-${randomUUID()}@example.com`;
    const made = await sandboxCall('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}`, email, currencies: ['USDC'] });
    expect(made.status).toBe(201);
    const browser = new Browser(stack.url);
    const answer = await browser.post('/demo/signin', { email });
    expect([answer.status, answer.json.code]).toEqual([404, 'NO_DEMO_CUSTOMER']);
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(answer.text).not.toContain(made.json.id);
  });

  it('bad bodies → 400 INVALID_INPUT', async () => {
    for (const raw of ['', '{}', '{"email":5}', '{"email":"  "}', '[1]', '{"email":']) {
      const answer = await new Browser(stack.url).call('POST', '/demo/signin', { raw });
      expect([answer.status, answer.json?.code], raw).toEqual([400, 'INVALID_INPUT']);
    }
  });
});

describe('CSRF: every /demo POST needs Content-Type: application/json', () => {
  /** What an HTML form on another site (or a body-less no-cors fetch) can send. */
  const FOREIGN_TYPES: [string, (json: string, form: string) => { raw?: string; headers?: Record<string, string> }][] = [
    ['form-encoded', (_json, form) => ({ raw: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })],
    ['text/plain holding JSON', (json) => ({ raw: json, headers: { 'Content-Type': 'text/plain' } })],
    ['text/plain;charset=UTF-8 holding JSON', (json) => ({ raw: json, headers: { 'Content-Type': 'text/plain;charset=UTF-8' } })],
    ['multipart', () => ({ raw: '--b\r\nContent-Disposition: form-data; name="email"\r\n\r\nx@example.com\r\n--b--\r\n', headers: { 'Content-Type': 'multipart/form-data; boundary=b' } })],
    ['application/json in a parameter only', (json) => ({ raw: json, headers: { 'Content-Type': 'text/plain; x=application/json' } })],
    ['no Content-Type and no body', () => ({})],
  ];

  /** The newest customer the sandbox holds: unchanged means nothing was created upstream. */
  const newestCustomer = async () => {
    const list = await sandboxCall('GET', '/customers?limit=1');
    expect(list.status).toBe(200);
    return (list.json.data as { id: string }[])[0]?.id;
  };

  function expectRefused(answer: Awaited<ReturnType<Browser['call']>>, label: string): void {
    expect([answer.status, answer.json?.code], label).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(answer.json.reason, label).toEqual(expect.any(String));
    expect(answer.headers.getSetCookie(), label).toEqual([]);
  }

  it.each(FOREIGN_TYPES)('sign-up %s → 415, no customer created, no cookie', async (label, make) => {
    const body = signupBody();
    const form = new URLSearchParams(body).toString();
    const before = await newestCustomer();
    const browser = new Browser(stack.url);
    expectRefused(await browser.call('POST', '/demo/signup', make(JSON.stringify(body), form)), label);
    expect(browser.cookie).toBeUndefined();
    expect(await newestCustomer()).toBe(before);
    // The email is unknown to the demo: nothing was registered for it either.
    expect((await new Browser(stack.url).post('/demo/signin', { email: body.email })).json.code).toBe('NO_DEMO_CUSTOMER');
  });

  it.each(FOREIGN_TYPES)("sign-in %s → 415: the visitor's browser is not bound to the attacker's customer", async (label, make) => {
    const attacker = await signUp(stack.url, 'Attacker');
    const email = attacker.me.customer.email;
    const victim = new Browser(stack.url);
    expectRefused(await victim.call('POST', '/demo/signin', make(JSON.stringify({ email }), new URLSearchParams({ email }).toString())), label);
    expect(victim.cookie).toBeUndefined();
    expect((await victim.get('/demo/me')).status).toBe(204);
  });

  it.each(FOREIGN_TYPES)('logout %s → 415: the binding and the cookie stay', async (label, make) => {
    const { browser, me } = await signUp(stack.url);
    const cookie = browser.cookie;
    expectRefused(await browser.call('POST', '/demo/logout', make('{}', '')), label);
    expect(browser.cookie).toBe(cookie);
    const still = await browser.get('/demo/me');
    expect([still.status, still.json.customer.id]).toEqual([200, me.customer.id]);
  });

  it.each(FOREIGN_TYPES)('sandbox clock %s → 415: the clock does not move', async (label, make) => {
    const before = await sandboxCall('GET', '/sandbox/clock');
    expectRefused(await new Browser(stack.url).call('POST', '/demo/sandbox/clock', make('{"seconds":86400}', 'seconds=86400')), label);
    const after = await sandboxCall('GET', '/sandbox/clock');
    expect(Date.parse(after.json.now) - Date.parse(before.json.now)).toBeLessThan(60_000);
  });

  it('application/json with parameters or in another case is accepted; a body-less logout with it → 204', async () => {
    const browser = new Browser(stack.url);
    const body = JSON.stringify(signupBody());
    const answer = await browser.call('POST', '/demo/signup', { raw: body, headers: { 'Content-Type': 'Application/JSON; charset=utf-8' } });
    expect(answer.status, answer.text).toBe(201);
    expect(browser.cookie).toBeDefined();
    const out = await browser.call('POST', '/demo/logout', { headers: { 'Content-Type': 'application/json' } });
    expect(out.status).toBe(204);
    expect(browser.cookie).toBeUndefined();
  });
});

describe('other /demo routes', () => {
  it('an unknown route or method → 404 NOT_FOUND (JSON)', async () => {
    const browser = new Browser(stack.url);
    for (const [method, path] of [['GET', '/demo/signup'], ['GET', '/demo/nope'], ['DELETE', '/demo/me'], ['GET', '/demo/sandbox/clock']] as const) {
      const answer = await browser.call(method, path);
      expect([answer.status, answer.json?.code], `${method} ${path}`).toEqual([404, 'NOT_FOUND']);
    }
  });
});

describe('POST /demo/sandbox/clock', () => {
  it('advances the sandbox clock → 200 {now}; GET /sandbox/clock agrees', async () => {
    const before = await sandboxCall('GET', '/sandbox/clock');
    expect(before.status).toBe(200);
    const answer = await new Browser(stack.url).post('/demo/sandbox/clock', { seconds: 3600 });
    expect(answer.status, answer.text).toBe(200);
    const moved = Date.parse(answer.json.now) - Date.parse(before.json.now);
    expect(moved).toBeGreaterThanOrEqual(3600_000);
    expect(moved).toBeLessThan(3600_000 + 60_000);
    const after = await sandboxCall('GET', '/sandbox/clock');
    expect(Date.parse(after.json.now)).toBeGreaterThanOrEqual(Date.parse(answer.json.now));
  });

  it('a session expires when the clock passes its expiry', async () => {
    const { browser, me } = await signUp(stack.url);
    const wallet = me.walletAccountId ?? '';
    await otpLogin(browser, await emailCredentialId(browser, wallet), me);
    const sessions = async () => (await browser.get(`/api/auth/sessions?accountId=${enc(wallet)}`)).json.data as { expiresAt: string }[];
    const active = await sessions();
    expect(active).toHaveLength(1);
    const clock = await sandboxCall('GET', '/sandbox/clock');
    const seconds = Math.ceil((Date.parse(active[0]?.expiresAt ?? '') - Date.parse(clock.json.now)) / 1000) + 1;
    expect((await browser.post('/demo/sandbox/clock', { seconds })).status).toBe(200);
    expect(await sessions()).toEqual([]);
  });

  it('bad seconds → 400 with a code; the clock does not move', async () => {
    const before = await sandboxCall('GET', '/sandbox/clock');
    for (const body of [{}, { seconds: -1 }, { seconds: '60' }, { seconds: null }, { seconds: 1e12 }]) {
      const answer = await new Browser(stack.url).post('/demo/sandbox/clock', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.code).toBe('INVALID_INPUT');
    }
    const after = await sandboxCall('GET', '/sandbox/clock');
    expect(Date.parse(after.json.now) - Date.parse(before.json.now)).toBeLessThan(60_000);
  });
});
