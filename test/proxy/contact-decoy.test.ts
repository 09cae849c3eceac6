/**
 * S16 of src/proxy/scope.ts (contact-decoy.ts), case by case: the decoy challenge, how its signed
 * retry is judged (the service's refusals in the service's order, a stamp verified over the decoy's
 * payload), the answers re-made alike, and the proxy's use of them. Stamps are made with node:crypto
 * (test/sandbox/helpers/keys.ts), independent of the proxy's verifier. The clock is the test's.
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decoys, DECOY_TTL_MS, RETRY_REFUSALS, type DecoyCall, type DecoyRetry } from '../../src/proxy/contact-decoy.js';
import { createProxy, type CurrentUser } from '../../src/proxy/index.js';
import { newKey, stamp, stampWith } from '../sandbox/helpers/keys.js';

const enc = new TextEncoder();
const CALL: DecoyCall = { customerId: 'Customer:a', method: 'PATCH', path: '/customers/Customer:a', body: enc.encode('{"email":"x@example.com"}'), route: 'PATCH /customers/{customerId}' };
const T0 = Date.UTC(2026, 10, 28, 6, 0, 0);

async function issued(d = decoys('secret-1', () => T0), call = CALL) {
  const response = await d.issue(call);
  const text = await response.text();
  return { d, response, text, body: JSON.parse(text) as { payloadToSign: string; requestId: string; expiresAt: string } };
}

const codeOf = async (r: Response | undefined) => (r === undefined ? undefined : `${r.status} ${(JSON.parse(await r.text()) as { code: string }).code}`);
/** A retry's judgement: is it one of ours, and its refusal's status and code. */
const judged = async (retry: Promise<DecoyRetry>) => {
  const r = await retry;
  return `${r.decoy ? 'decoy' : 'not ours'} ${await codeOf(r.refusal)}`;
};

/**
 * The construction of contact-decoy.ts's header, written again with node:crypto: HMAC-SHA-256 under
 * HMAC(secret, label); each part as its length in decimal, a zero byte, its bytes.
 */
function construction(secret: string) {
  const derived = createHmac('sha256', secret).update('embedded-wallet-signer/proxy contact decoy v1').digest();
  const mac = (...parts: (string | Uint8Array)[]): Buffer => {
    const h = createHmac('sha256', derived);
    for (const part of parts) {
      const bytes = Buffer.from(part);
      h.update(String(bytes.length)).update(Buffer.from([0])).update(bytes);
    }
    return h.digest();
  };
  return mac;
}

describe('S16: the decoy challenge', () => {
  it('is a 202 with exactly the spec\'s three fields, a v4-uuid request id and an expiry 5 minutes on', async () => {
    const { response, body, text } = await issued();
    expect(response.status).toBe(202);
    expect(Object.keys(body)).toEqual(['payloadToSign', 'requestId', 'expiresAt']);
    expect(body.requestId).toMatch(/^Request:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Date.parse(body.expiresAt) - (T0 + DECOY_TTL_MS)).toSatisfy((d: number) => d >= 0 && d < 1000);
    expect(new Date(Date.parse(body.expiresAt)).toISOString()).toBe(body.expiresAt);
    expect(body.payloadToSign).toMatch(/^[A-Za-z0-9_-]{344}$/);
    expect([...response.headers.keys()].sort()).toEqual(['cache-control', 'content-type', 'date']);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(text).toBe(JSON.stringify(body));
  });

  it('is made as the header says: tag, body tag, nonce, masked expiry; expiresAt and payloadToSign from the nonce (an independent HMAC)', async () => {
    const mac = construction('secret-1');
    for (let run = 0; run < 4; run++) {
      const { body } = await issued();
      const id = Buffer.from(body.requestId.slice('Request:'.length).replaceAll('-', ''), 'hex');
      const nonce = id.subarray(6, 12);
      const mask = mac('mask', nonce);
      const expiry = Buffer.from(id.subarray(12, 16).map((b, i) => b ^ (mask[i] as number)));
      const seconds = expiry.readUInt32BE(0);
      expect(seconds).toBe(Math.floor((T0 + DECOY_TTL_MS) / 1000));
      expect(id.subarray(0, 4)).toEqual(mac('tag', nonce, expiry, `${CALL.customerId}\u0000${CALL.method}\u0000${CALL.path}`).subarray(0, 4));
      expect(id.subarray(4, 6)).toEqual(mac('body', nonce, createHash('sha256').update(CALL.body).digest()).subarray(0, 2));
      const ms = mac('ms', nonce);
      expect(Date.parse(body.expiresAt)).toBe(seconds * 1000 + (((ms[0] as number) * 256 + (ms[1] as number)) % 1000));
      let payload = '';
      for (let i = 0; payload.length < 344; i++) payload += mac('payload', body.requestId, String(i)).toString('base64url');
      expect(body.payloadToSign).toBe(payload.slice(0, 344));
    }
  });

  it('two decoys of one call differ (random nonce), and both are recognised', async () => {
    const d = decoys('secret-1', () => T0);
    const [a, b] = [(await issued(d)).body, (await issued(d)).body];
    expect(a.requestId).not.toBe(b.requestId);
    expect(a.payloadToSign).not.toBe(b.payloadToSign);
    for (const id of [a.requestId, b.requestId]) expect((await d.retry(CALL, id, null)).decoy).toBe(true);
  });

  it('is recognised only for its customer, method and path, and only by a proxy with the same secret', async () => {
    const { d, body } = await issued();
    for (const call of [{ ...CALL, customerId: 'Customer:b' }, { ...CALL, method: 'POST' }, { ...CALL, path: '/customers/Customer:b' }]) {
      expect((await d.retry(call, body.requestId, null)).decoy).toBe(false);
    }
    expect((await decoys('secret-2', () => T0).retry(CALL, body.requestId, null)).decoy).toBe(false);
    expect((await decoys('secret-1', () => T0).retry(CALL, body.requestId, null)).decoy).toBe(true);
  });

  it('any id that is not one of ours is forwarded (generated ids and near misses)', async () => {
    const { d, body } = await issued();
    const flipped = (i: number) => body.requestId.slice(0, i) + (body.requestId[i] === '0' ? '1' : '0') + body.requestId.slice(i + 1);
    // Each hex digit of the tag (the uuid's first 8) matters.
    for (let i = 8; i < 16; i++) expect((await d.retry(CALL, flipped(i), null)).decoy).toBe(false);
    // Only the whole id: one of ours with anything before or after it is not.
    for (const near of [`x${body.requestId}`, `${body.requestId}0`]) expect(await judged(d.retry(CALL, near, null))).toBe('not ours undefined');
    d.alike(202, enc.encode(JSON.stringify({ payloadToSign: 'p', requestId: 'request_0123456789ab4def8123456789abcdef', expiresAt: 'e' })), CALL.route);
    const underscored = (await issued(d)).body.requestId;
    expect(await judged(d.retry(CALL, underscored, null))).toBe('decoy 401 WALLET_SIGNATURE_MISSING');
    for (const near of [`x${underscored}`, `${underscored}0`]) expect(await judged(d.retry(CALL, near, null))).toBe('not ours undefined');
    await fc.assert(
      fc.asyncProperty(fc.uuid(), fc.string(), async (uuid, other) => {
        expect((await d.retry(CALL, `Request:${uuid}`, null)).decoy).toBe(false);
        expect((await d.retry(CALL, other, null)).decoy).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('S16: the signed retry of a decoy, in the service\'s order', () => {
  it('no stamp → MISSING; unreadable → MALFORMED (sandbox-valid-signature too); other body → BODY_MISMATCH; bad signature → INVALID; a stamp that verifies → the conflict', async () => {
    const { d, body } = await issued();
    const key = newKey();
    const good = stamp(body.payloadToSign, key);
    expect(await judged(d.retry(CALL, body.requestId, null))).toBe('decoy 401 WALLET_SIGNATURE_MISSING');
    for (const s of ['x', 'sandbox-valid-signature', stampWith(key.compressed, 'zz')]) {
      expect(await judged(d.retry(CALL, body.requestId, s))).toBe('decoy 401 WALLET_SIGNATURE_MALFORMED');
    }
    expect(await judged(d.retry({ ...CALL, body: enc.encode('{}') }, body.requestId, good))).toBe('decoy 401 WALLET_SIGNATURE_BODY_MISMATCH');
    expect(await judged(d.retry(CALL, body.requestId, stamp('other bytes', key)))).toBe('decoy 401 WALLET_SIGNATURE_INVALID');
    expect(await judged(d.retry(CALL, body.requestId, stamp(body.payloadToSign.slice(1), key)))).toBe('decoy 401 WALLET_SIGNATURE_INVALID');
    expect(await d.retry(CALL, body.requestId, good)).toEqual({ decoy: true });
    // A stamp that cannot be checked (its signature is not over this key's curve point) is refused, not thrown.
    expect(await judged(d.retry(CALL, body.requestId, stampWith(newKey().compressed, JSON.parse(Buffer.from(good, 'base64url').toString()).signature)))).toBe('decoy 401 WALLET_SIGNATURE_INVALID');
  });

  it('a stamp that verifies is refused INVALID once the decoy expired, and a bad one still MALFORMED first', async () => {
    let now = T0;
    const d = decoys('secret-1', () => now);
    const { body } = await issued(d);
    const good = stamp(body.payloadToSign, newKey());
    now = Date.parse(body.expiresAt) - 1;
    expect(await d.retry(CALL, body.requestId, good)).toEqual({ decoy: true });
    now = Date.parse(body.expiresAt);
    expect(await judged(d.retry(CALL, body.requestId, good))).toBe('decoy 401 WALLET_SIGNATURE_INVALID');
    expect(await judged(d.retry(CALL, body.requestId, 'x'))).toBe('decoy 401 WALLET_SIGNATURE_MALFORMED');
    expect(await judged(d.retry(CALL, body.requestId, null))).toBe('decoy 401 WALLET_SIGNATURE_MISSING');
  });

  it('the expiry is on the service\'s clock (its Date) when it answered, with a millisecond part that varies', async () => {
    const served = 'Sat, 28 Nov 2026 07:00:00 GMT';
    const d = decoys('secret-1', () => T0 + 250);
    const expiries: number[] = [];
    for (let i = 0; i < 8; i++) {
      const response = await d.issue(CALL, served);
      expect(response.headers.get('date')).toBe(served);
      const at = Date.parse(((await response.json()) as { expiresAt: string }).expiresAt) - Date.parse(served) - DECOY_TTL_MS;
      expect(at >= 0 && at < 1000, String(at)).toBe(true);
      expiries.push(at);
    }
    expect(new Set(expiries).size).toBeGreaterThan(1);
    // An unreadable Date falls back to the proxy's clock.
    const fallback = Date.parse(((await (await d.issue(CALL, 'not a date')).json()) as { expiresAt: string }).expiresAt) - (T0 + 250 + DECOY_TTL_MS);
    expect(fallback > -1000 && fallback < 1000).toBe(true);
  });
});

describe('S16: answers re-made alike', () => {
  const bytes = (v: unknown) => enc.encode(JSON.stringify(v));

  it('a service challenge keeps only the spec\'s fields, in order; its id shape and payload length are what decoys take', async () => {
    const d = decoys('secret-1', () => T0);
    const service = { type: 'SMS_OTP', expiresAt: '2026-11-28T06:05:00.000Z', requestId: 'request_0123456789ab4def8123456789abcdef', payloadToSign: 'p'.repeat(500) };
    const alike = d.alike(202, bytes(service), 'POST /auth/credentials');
    expect(alike?.status).toBe(202);
    expect(await alike?.text()).toBe(JSON.stringify({ payloadToSign: service.payloadToSign, requestId: service.requestId, expiresAt: service.expiresAt }));
    const decoy = (await issued(d, { ...CALL, method: 'POST', path: '/auth/credentials', route: 'POST /auth/credentials' })).body;
    expect(decoy.requestId).toMatch(/^request_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(decoy.payloadToSign).toHaveLength(500);
    expect((await d.retry({ ...CALL, method: 'POST', path: '/auth/credentials', route: 'POST /auth/credentials' }, decoy.requestId, null)).decoy).toBe(true);
    // Another route keeps the default length.
    expect((await issued(d)).body.payloadToSign).toHaveLength(344);
    // An id of another shape teaches nothing.
    d.alike(202, bytes({ ...service, requestId: 'Request:123' }), 'POST /auth/credentials');
    expect((await issued(d)).body.requestId).toMatch(/^request_/);
    d.alike(202, bytes({ ...service, requestId: 'Request:01234567-89ab-4def-8123-456789abcdef' }), 'POST /auth/credentials');
    expect((await issued(d)).body.requestId).toMatch(/^Request:/);
  });

  it('each signed-retry refusal gets the proxy\'s one reason, only with its own status', async () => {
    const d = decoys('secret-1', () => T0);
    for (const [code, [status, reason]] of Object.entries(RETRY_REFUSALS)) {
      const alike = d.alike(status, bytes({ code, reason: `service text naming Customer:b`, details: { requestStatus: 'USED' } }), 'PATCH /customers/{customerId}');
      expect(alike?.status).toBe(status);
      expect(await alike?.text()).toBe(JSON.stringify({ code, reason }));
      expect([...(alike?.headers.keys() ?? [])].sort()).toEqual(['cache-control', 'content-type', 'date']);
      expect(d.alike(status === 401 ? 404 : 401, bytes({ code }), 'x')).toBeUndefined();
    }
  });

  it('any other answer is left as it is', () => {
    const d = decoys('secret-1', () => T0);
    for (const [status, payload] of [
      [202, enc.encode('not json')],
      [202, bytes(null)],
      [202, bytes('a string')],
      [202, bytes({ payloadToSign: 'p', requestId: 'r' })],
      [202, bytes({ payloadToSign: 1, requestId: 'r', expiresAt: 'e' })],
      [202, bytes({ payloadToSign: 'p', requestId: 2, expiresAt: 'e' })],
      [200, bytes({ payloadToSign: 'p', requestId: 'r', expiresAt: 'e' })],
      [401, bytes({ code: 'UNAUTHORIZED' })],
      [401, bytes({ code: 7 })],
      [401, bytes({ code: 'toString' })],
      [401, bytes({ code: ['WALLET_SIGNATURE_MISSING'] })],
      [409, bytes({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS' })],
    ] as const) {
      expect(d.alike(status, payload, 'x')).toBeUndefined();
    }
  });
});

describe('S16 through createProxy', () => {
  const A = 'Customer:a';
  const A1 = 'InternalAccount:a1';
  const served = new Date().toUTCString();
  function setup(options: Pick<Parameters<typeof createProxy>[0], 'onContactConflict' | 'logger'> = {}) {
    const forwarded: string[] = [];
    const user: CurrentUser = { customerId: A };
    const proxy = createProxy({
      baseUrl: 'https://service.test/v1',
      clientId: 'client',
      clientSecret: 'secret-of-the-test',
      logger: false,
      currentUser: () => user,
      ...options,
      fetch: async (input, init) => {
        const url = new URL(input);
        const headers = new Headers(init.headers);
        if (headers.get('request-id') === null && url.pathname === `/v1/customers/${A}` && init.method === 'GET') return Response.json({ id: A });
        if (url.pathname === '/v1/internal-accounts' || url.pathname === '/v1/internal-account') return Response.json({ data: [{ id: A1, customerId: A }] });
        forwarded.push(`${init.method} ${url.pathname} ${headers.get('request-id') ?? '-'}`);
        return Response.json({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', reason: 'held by Customer:b' }, { status: 409, headers: { date: served, 'retry-after': '9' } });
      },
    });
    const call = (headers: Record<string, string> = {}) =>
      proxy(new Request(`http://app.test/customers/${A}`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...headers }, body: '{"email":"b@example.com"}' }));
    return { call, forwarded };
  }

  it('first leg → decoy; its retry is never forwarded: refused, or with a stamp that verifies the one 409', async () => {
    const { call, forwarded } = setup();
    const first = await call();
    expect(first.status).toBe(202);
    expect([...first.headers]).toEqual([['cache-control', 'no-store'], ['content-type', 'application/json'], ['date', served]]);
    const challenge = (await first.json()) as { payloadToSign: string; requestId: string };
    expect(forwarded).toHaveLength(1);
    expect((await call({ 'request-id': challenge.requestId })).status).toBe(401);
    const done = await call({ 'request-id': ` ${challenge.requestId} `, 'service-wallet-signature': stamp(challenge.payloadToSign, newKey()) });
    expect(done.status, await done.clone().text()).toBe(409);
    expect(await done.json()).toEqual({ code: 'CONTACT_UNAVAILABLE', reason: 'This email address or phone number cannot be used.' });
    expect(forwarded).toHaveLength(1);
    // A blank signature header counts as absent (a first leg), as the service counts it.
    expect((await call({ 'service-wallet-signature': ' ', 'request-id': '' })).status).toBe(202);
    // A retry of an id that is not ours goes to the service; its conflict gets the one 409.
    expect((await call({ 'request-id': 'Request:x', 'service-wallet-signature': 'sandbox-valid-signature' })).status).toBe(409);
    expect(forwarded.at(-1)).toBe(`PATCH /v1/customers/${A} Request:x`);
  });

  it('a signature header without Request-Id is no first leg: no decoy, the one 409', async () => {
    const { call, forwarded } = setup();
    const answer = await call({ 'service-wallet-signature': stamp('bytes', newKey()) });
    expect(answer.status).toBe(409);
    expect(await answer.json()).toEqual({ code: 'CONTACT_UNAVAILABLE', reason: 'This email address or phone number cannot be used.' });
    expect(forwarded).toHaveLength(1);
  });

  it('the decoy and the conflict its verified retry reveals are logged as CONTACT_UNAVAILABLE; a refused retry without a code', async () => {
    const lines: string[] = [];
    const { call } = setup({ logger: (line) => void lines.push(line) });
    const challenge = (await (await call()).json()) as { payloadToSign: string; requestId: string };
    expect(lines.at(-1)).toMatch(new RegExp(`^proxy PATCH /customers/${A} 202 \\d+ms CONTACT_UNAVAILABLE \\(decoy challenge\\)$`));
    await call({ 'request-id': challenge.requestId });
    expect(lines.at(-1)).toMatch(new RegExp(`^proxy PATCH /customers/${A} 401 \\d+ms$`));
    await call({ 'request-id': challenge.requestId, 'service-wallet-signature': stamp(challenge.payloadToSign, newKey()) });
    expect(lines.at(-1)).toMatch(new RegExp(`^proxy PATCH /customers/${A} 409 \\d+ms CONTACT_UNAVAILABLE$`));
  });

  it('a hook that throws answers 500 INTERNAL_ERROR, naming the hook only', async () => {
    const { call } = setup({
      onContactConflict: () => {
        throw new Error('the app\'s secret detail');
      },
    });
    const answer = await call();
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ code: 'INTERNAL_ERROR', reason: 'The onContactConflict hook failed.' });
  });

  it('with onContactConflict the hook answers the first leg, and no decoy is issued', async () => {
    const { call } = setup({ onContactConflict: () => Response.json({ code: 'MINE' }, { status: 400 }) });
    const first = await call();
    expect(first.status).toBe(400);
    expect(await first.json()).toEqual({ code: 'MINE' });
  });
});
