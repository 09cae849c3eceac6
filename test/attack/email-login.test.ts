/**
 * Attacks on the email-first login mode (src/proxy/email-login.ts, L1–L8 in its header and src/proxy/README.md), against
 * the real sandbox: enumeration (a known and an unknown email answer alike), a login ticket of one
 * email used to verify as another, a session cookie of one customer replayed or edited for another,
 * a verify that did not succeed setting a cookie, and the rate limit.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailLoginProxy, readAppSession, type ProxyHandler } from '../../src/proxy/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sealOtp } from '../sandbox/helpers/bundles.js';
import { newKey, stamp, type TestKey } from '../sandbox/helpers/keys.js';

const SECRET = 'attack-secret-of-at-least-32-characters';
let sandbox: RunningSandbox;
let proxy: ProxyHandler;
const forwarded: string[] = [];

interface Answer { status: number; json: any; text: string; cookies: Record<string, string | null>; headers: Headers }

/** Set-Cookie lines as name → value (null: cleared). */
function cookiesOf(response: Response): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    out[pair.slice(0, eq)] = /max-age=0/i.test(line) ? null : pair.slice(eq + 1);
  }
  return out;
}

async function call(handler: ProxyHandler, method: string, path: string, options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await handler(
    new Request(`http://app.test/api${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    }),
  );
  const text = await response.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: response.status, json, text, cookies: cookiesOf(response), headers: response.headers };
}

function makeProxy(extra: Partial<Parameters<typeof emailLoginProxy>[0]> = {}): ProxyHandler {
  return emailLoginProxy({
    baseUrl: sandbox.url,
    clientId: 'sandbox-client',
    clientSecret: 'sandbox-secret',
    prefix: '/api',
    secret: SECRET,
    logger: false,
    limits: { perContact: { max: 1000, windowMs: 60_000 }, perAddress: { max: 1000, windowMs: 60_000 } },
    fetch: (input, init) => {
      forwarded.push(`${init.method ?? 'GET'} ${new URL(input).pathname}`);
      return globalThis.fetch(input, init);
    },
    ...extra,
  });
}

/** A login started for `email`: its answer and ticket cookie. */
async function start(email: string, handler = proxy): Promise<{ answer: Answer; ticket: string }> {
  const answer = await call(handler, 'POST', '/login/start', { body: { email } });
  expect(answer.status, answer.text).toBe(200);
  return { answer, ticket: answer.cookies.ews_login as string };
}

/** The two legs of the verify through the proxy with `cookie`; the code sealed to the start's bundle. */
async function verify(credentialId: string, bundle: string, cookie: string, code = '000000', key: TestKey = newKey()): Promise<{ first: Answer; second?: Answer }> {
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(bundle, code, key.compressed) };
  const path = `/auth/credentials/${encodeURIComponent(credentialId)}/verify`;
  const first = await call(proxy, 'POST', path, { body, cookie });
  if (first.status !== 202) return { first };
  const second = await call(proxy, 'POST', path, { body, cookie, headers: { 'service-wallet-signature': stamp(first.json.payloadToSign, key), 'request-id': first.json.requestId } });
  return { first, second };
}

const sessionOf = (value: string) => readAppSession(new Request('http://app.test/', { headers: { cookie: `ews_session=${value}` } }), SECRET);

/** A customer signed in by email: its ids and its app session cookie. */
async function signedIn(email: string): Promise<{ customerId: string; accountId: string; credentialId: string; session: string }> {
  const { answer, ticket } = await start(email);
  const { second } = await verify(answer.json.credentialId, answer.json.otpEncryptionTargetBundle, `ews_login=${ticket}`);
  expect(second?.status, second?.text).toBe(200);
  const session = second!.cookies.ews_session as string;
  const read = await sessionOf(session);
  return { customerId: read!.customerId, accountId: answer.json.accountId, credentialId: answer.json.credentialId, session };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  proxy = makeProxy();
});
afterAll(() => sandbox.close());

/** An answer with what differs between customers (ids, bundle, cookie value) replaced by its kind. */
function shape(answer: Answer): unknown {
  return {
    status: answer.status,
    headers: [...answer.headers.keys()].sort(),
    body: Object.fromEntries(Object.entries(answer.json ?? {}).map(([k, v]) => [k, k === 'type' ? v : typeof v])),
    cookies: Object.keys(answer.cookies).sort(),
  };
}

describe('enumeration (L2): a known and an unknown email answer alike', () => {
  it('same status, headers, body shape and cookies; the service calls differ by at most one lookup', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z0-9]{2,12}$/), fc.boolean(), async (local, upper) => {
        const known = `${local}-known@example.com`;
        await start(known); // now known
        let mark = forwarded.length;
        const again = await call(proxy, 'POST', '/login/start', { body: { email: upper ? known.toUpperCase() : known } });
        const knownCalls = forwarded.slice(mark);
        mark = forwarded.length;
        const fresh = await call(proxy, 'POST', '/login/start', { body: { email: `${local}-${Math.random().toString(36).slice(2)}@example.com` } });
        const freshCalls = forwarded.slice(mark);
        expect(shape(again)).toEqual(shape(fresh));
        expect(again.status).toBe(200);
        expect(Math.abs(knownCalls.length - freshCalls.length)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 6 },
    );
  });

  it('bad input answers the same whatever the email, before anything is looked up', async () => {
    const before = forwarded.length;
    for (const body of [{}, { email: 'not-an-email' }, { email: 'a@b.co', phone: '+14155550123' }, { email: 5 }, ['a@b.co']]) {
      const answer = await call(proxy, 'POST', '/login/start', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.code).toBe('INVALID_INPUT');
      expect(answer.cookies).toEqual({});
    }
    expect(forwarded.length).toBe(before);
  });
});

describe('login ticket (L4): one email\'s ticket never verifies or signs in as another', () => {
  it("A's ticket on B's credential: 401, nothing forwarded, no cookie", async () => {
    const a = await start('ticket-a@example.com');
    const b = await start('ticket-b@example.com');
    const before = forwarded.length;
    const { first } = await verify(b.answer.json.credentialId, b.answer.json.otpEncryptionTargetBundle, `ews_login=${a.ticket}`);
    expect(first.status).toBe(401);
    expect(first.cookies).toEqual({});
    expect(forwarded.length).toBe(before);
  });

  it('an edited ticket (any character changed, or its payload re-pointed at B) is no ticket', async () => {
    const a = await start('edit-a@example.com');
    const b = await start('edit-b@example.com');
    const [payload, mac] = a.ticket.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const repointed = Buffer.from(JSON.stringify({ ...decoded, c: 'x', k: b.answer.json.credentialId })).toString('base64url') + '.' + mac;
    const before = forwarded.length;
    expect((await verify(b.answer.json.credentialId, b.answer.json.otpEncryptionTargetBundle, `ews_login=${repointed}`)).first.status).toBe(401);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: a.ticket.length - 1 }), fc.constantFrom(...'AZaz09-_.'), async (at, ch) => {
        fc.pre(a.ticket[at] !== ch);
        const edited = a.ticket.slice(0, at) + ch + a.ticket.slice(at + 1);
        const answer = await call(proxy, 'POST', `/auth/credentials/${encodeURIComponent(a.answer.json.credentialId)}/challenge`, { body: {}, cookie: `ews_login=${edited}` });
        expect(answer.status).toBe(401);
      }),
      { numRuns: 40 },
    );
    // The MAC's last base64url character carries 4 bits and 2 unused ones: the three other
    // characters with the same 4 bits decode to the same MAC, and must not open either.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(a.ticket.at(-1) ?? '');
    const siblings = [0, 1, 2, 3].map((low) => alphabet[(last & ~3) | low]).filter((ch) => ch !== a.ticket.at(-1));
    expect(siblings).toHaveLength(3);
    for (const ch of siblings) {
      const answer = await call(proxy, 'POST', `/auth/credentials/${encodeURIComponent(a.answer.json.credentialId)}/challenge`, { body: {}, cookie: `ews_login=${a.ticket.slice(0, -1)}${ch}` });
      expect(answer.status, ch).toBe(401);
    }
    expect(forwarded.length).toBe(before);
  });

  it('a ticket is not a session: other routes refuse it; as a session cookie it is not read', async () => {
    const a = await start('not-a-session@example.com');
    const list = await call(proxy, 'GET', `/auth/sessions?accountId=${encodeURIComponent(a.answer.json.accountId)}`, { cookie: `ews_login=${a.ticket}` });
    expect(list.status).toBe(401);
    const swapped = await call(proxy, 'GET', `/auth/sessions?accountId=${encodeURIComponent(a.answer.json.accountId)}`, { cookie: `ews_session=${a.ticket}` });
    expect(swapped.status).toBe(401);
    expect(await sessionOf(a.ticket)).toBeNull();
  });
});

describe('session cookie (L5, L7): one customer\'s cookie never acts for another', () => {
  it("A's cookie replayed for B's account: the proxy's ownership answer (B's data never reached)", async () => {
    const a = await signedIn('cookie-a@example.com');
    const b = await signedIn('cookie-b@example.com');
    const mine = await call(proxy, 'GET', `/auth/sessions?accountId=${encodeURIComponent(a.accountId)}`, { cookie: `ews_session=${a.session}` });
    expect(mine.status).toBe(200);
    const theirs = await call(proxy, 'GET', `/auth/sessions?accountId=${encodeURIComponent(b.accountId)}`, { cookie: `ews_session=${a.session}` });
    expect(theirs.status).toBe(403);
    expect(theirs.text).not.toContain(b.accountId.slice(-8) + '"');
  });

  it('an edited cookie (payload re-pointed at B, or any character changed) is read as no session', async () => {
    const a = await signedIn('edit-cookie-a@example.com');
    const b = await signedIn('edit-cookie-b@example.com');
    const [payload, mac] = a.session.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, c: b.customerId, a: b.accountId })).toString('base64url') + '.' + mac;
    expect(await sessionOf(forged)).toBeNull();
    expect((await call(proxy, 'GET', `/auth/sessions?accountId=${encodeURIComponent(b.accountId)}`, { cookie: `ews_session=${forged}` })).status).toBe(401);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: a.session.length - 1 }), fc.constantFrom(...'AZaz09-_.'), async (at, ch) => {
        fc.pre(a.session[at] !== ch);
        const edited = a.session.slice(0, at) + ch + a.session.slice(at + 1);
        expect(await sessionOf(edited)).toBeNull();
      }),
      { numRuns: 200 },
    );
    // Signed with another secret: not read.
    const other = emailLoginProxy({ baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', prefix: '/api', secret: 'another-secret-of-at-least-32-characters', logger: false });
    expect((await call(other, 'GET', `/auth/sessions?accountId=${encodeURIComponent(a.accountId)}`, { cookie: `ews_session=${a.session}` })).status).toBe(401);
  });

  it('the cookie is HttpOnly, SameSite=Lax, Path=/, with a Max-Age; Secure over https', async () => {
    const { answer, ticket } = await start('attrs@example.com');
    const key = newKey();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(answer.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    const url = `https://app.test/api/auth/credentials/${encodeURIComponent(answer.json.credentialId)}/verify`;
    const headers = { 'content-type': 'application/json', cookie: `ews_login=${ticket}` };
    const first = await proxy(new Request(url, { method: 'POST', headers, body: JSON.stringify(body) }));
    const challenge = (await first.json()) as { payloadToSign: string; requestId: string };
    const second = await proxy(new Request(url, { method: 'POST', headers: { ...headers, 'service-wallet-signature': stamp(challenge.payloadToSign, key), 'request-id': challenge.requestId }, body: JSON.stringify(body) }));
    expect(second.status).toBe(200);
    const line = second.headers.getSetCookie().find((l) => l.startsWith('ews_session='))!;
    expect(line.split('; ').slice(1).sort()).toEqual(['HttpOnly', `Max-Age=${7 * 24 * 3600}`, 'Path=/', 'SameSite=Lax', 'Secure']);
    expect(answer.headers.getSetCookie()[0]).toMatch(/; Path=\/api; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });
});

describe('the cookie follows the wallet session (L8)', () => {
  it('a refresh re-points it at the new session; ending another session keeps it; ending its session clears it', async () => {
    const { answer, ticket } = await start('follows@example.com');
    const key = newKey();
    const { second } = await verify(answer.json.credentialId, answer.json.otpEncryptionTargetBundle, `ews_login=${ticket}`, '000000', key);
    let cookie = `ews_session=${second!.cookies.ews_session}`;
    const sessionId = second!.json.id as string;
    const path = `/auth/sessions/${encodeURIComponent(sessionId)}/refresh`;
    const next = newKey();
    const first = await call(proxy, 'POST', path, { body: { clientPublicKey: next.compressed }, cookie });
    expect(first.status, first.text).toBe(202);
    const refreshed = await call(proxy, 'POST', path, { body: { clientPublicKey: next.compressed }, cookie, headers: { 'service-wallet-signature': stamp(first.json.payloadToSign, key), 'request-id': first.json.requestId } });
    expect([200, 201]).toContain(refreshed.status);
    const updated = refreshed.cookies.ews_session as string;
    expect((await sessionOf(updated))?.sessionId).toBe(refreshed.json.id);
    expect((await sessionOf(updated))?.expiresAt).toBe((await sessionOf(cookie.slice('ews_session='.length)))?.expiresAt);
    cookie = `ews_session=${updated}`;
    // Ending the old (already replaced) session does not sign the app out.
    const old = await call(proxy, 'DELETE', `/auth/sessions/${encodeURIComponent(sessionId)}`, { cookie });
    expect(old.cookies).toEqual({});
    // Ending its session: the 202 signature challenge keeps the cookie (the retry needs it); the done answer clears it.
    const end = `/auth/sessions/${encodeURIComponent(refreshed.json.id)}`;
    const challenge = await call(proxy, 'DELETE', end, { cookie });
    let ended = challenge;
    if (challenge.status === 202) {
      expect(challenge.cookies).toEqual({});
      ended = await call(proxy, 'DELETE', end, { cookie, headers: { 'service-wallet-signature': stamp(challenge.json.payloadToSign, next), 'request-id': challenge.json.requestId } });
    }
    expect([200, 204], ended.text).toContain(ended.status);
    expect(ended.cookies).toEqual({ ews_session: null });
    const out = await call(proxy, 'POST', '/login/logout', {});
    expect(out.status).toBe(204);
    expect(out.cookies).toEqual({ ews_session: null });
  });
});

describe('a verify that did not succeed sets no cookie (L7)', () => {
  it('the 202 leg, a wrong code, a bad signature: no session cookie', async () => {
    const { answer, ticket } = await start('wrong-code@example.com');
    const wrong = await verify(answer.json.credentialId, answer.json.otpEncryptionTargetBundle, `ews_login=${ticket}`, '123456');
    expect(wrong.first.cookies).toEqual({});
    if (wrong.second) {
      expect(wrong.second.status).not.toBe(200);
      expect(wrong.second.cookies).toEqual({});
    } else expect(wrong.first.status).toBeGreaterThanOrEqual(400);
    // A right code but a stamp by another key: refused, no cookie.
    await call(proxy, 'POST', `/auth/credentials/${encodeURIComponent(answer.json.credentialId)}/challenge`, { body: {}, cookie: `ews_login=${ticket}` }).then(async (resent) => {
      expect(resent.status).toBe(200);
      const key = newKey();
      const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(resent.json.otpEncryptionTargetBundle, '000000', key.compressed) };
      const path = `/auth/credentials/${encodeURIComponent(answer.json.credentialId)}/verify`;
      const first = await call(proxy, 'POST', path, { body, cookie: `ews_login=${ticket}` });
      expect(first.status).toBe(202);
      expect(first.cookies).toEqual({});
      const forged = await call(proxy, 'POST', path, { body, cookie: `ews_login=${ticket}`, headers: { 'service-wallet-signature': stamp(first.json.payloadToSign, newKey()), 'request-id': first.json.requestId } });
      expect(forged.status).toBe(401);
      expect(forged.cookies).toEqual({});
    });
  });
});

describe('rate limit (L3)', () => {
  it('per contact: the third start for one email is 429 with Retry-After, known or not; another email still starts', async () => {
    const limited = makeProxy({ limits: { perContact: { max: 2, windowMs: 60_000 }, perAddress: { max: 100, windowMs: 60_000 } } });
    for (const email of ['limit-new@example.com', 'cookie-a@example.com']) {
      await start(email, limited);
      await start(email.toUpperCase(), limited);
      const before = forwarded.length;
      const third = await call(limited, 'POST', '/login/start', { body: { email } });
      expect(third.status).toBe(429);
      expect(third.json.code).toBe('RATE_LIMITED');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(forwarded.length).toBe(before);
    }
    await start('limit-other@example.com', limited);
  });

  it('per client address (last X-Forwarded-For hop), and resends count against the email', async () => {
    const limited = makeProxy({ limits: { perContact: { max: 3, windowMs: 60_000 }, perAddress: { max: 2, windowMs: 60_000 } } });
    const from = (ip: string, email: string) => call(limited, 'POST', '/login/start', { body: { email }, headers: { 'x-forwarded-for': `6.6.6.6, ${ip}` } });
    expect((await from('10.0.0.1', 'addr-1@example.com')).status).toBe(200);
    expect((await from('10.0.0.1', 'addr-2@example.com')).status).toBe(200);
    expect((await from('10.0.0.1', 'addr-3@example.com')).status).toBe(429);
    expect((await from('10.0.0.2', 'addr-3@example.com')).status).toBe(200);
    const { answer, ticket } = await start('resend@example.com', limited);
    const resend = () => call(limited, 'POST', `/auth/credentials/${encodeURIComponent(answer.json.credentialId)}/challenge`, { body: {}, cookie: `ews_login=${ticket}`, headers: { 'x-forwarded-for': '10.0.0.9' } });
    expect((await resend()).status).toBe(200);
    expect((await resend()).status).toBe(200);
    expect((await resend()).status).toBe(429);
  });
});
