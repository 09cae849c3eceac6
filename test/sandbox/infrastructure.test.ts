import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import { jsonEqual } from '../../src/sandbox/json-equal.js';
import { isStrictDerSignature } from '../../src/sandbox/crypto/p256.js';
import { parseStamp } from '../../src/sandbox/stamp.js';
import { Router } from '../../src/sandbox/router.js';
import { verifyDer } from '../../src/sandbox/crypto/p256.js';
import { Api, BASIC, start } from './helpers/http.js';
import { startSandbox } from '../../src/sandbox/index.js';

let api: Api;
const lines: string[] = [];

beforeAll(async () => {
  api = await start({}, lines);
});
afterAll(() => api.sandbox.close());

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('platform authentication', () => {
  it('accepts the configured Basic credentials', async () => {
    expect((await api.get('/sandbox/clock')).status).toBe(200);
  });

  it.each([
    ['absent', false],
    ['another scheme', 'Bearer abc'],
    ['bad base64', 'Basic !!!'],
    ['no colon', `Basic ${Buffer.from('sandbox-client').toString('base64')}`],
    ['wrong secret', `Basic ${Buffer.from('sandbox-client:nope').toString('base64')}`],
    ['wrong id', `Basic ${Buffer.from('other:sandbox-secret').toString('base64')}`],
  ] as const)('answers 401 UNAUTHORIZED when the header is %s', async (_, auth) => {
    const r = await api.get('/customers', { auth });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'UNAUTHORIZED', reason: expect.any(String) });
    expect(r.headers.get('www-authenticate')).toContain('Basic');
  });

  it('authenticates before telling unknown paths apart', async () => {
    expect((await api.get('/nope', { auth: false })).status).toBe(401);
    const r = await api.get('/nope');
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('NOT_FOUND');
  });

  it('uses configured credentials', async () => {
    const other = await start({ clientId: 'id-x', clientSecret: 'secret-y' });
    try {
      expect((await other.get('/sandbox/clock')).status).toBe(401);
      const r = await other.get('/sandbox/clock', { auth: `Basic ${Buffer.from('id-x:secret-y').toString('base64')}` });
      expect(r.status).toBe(200);
    } finally {
      await other.sandbox.close();
    }
  });
});

describe('request handling', () => {
  it('paths outside /2025-10-13 are 404', async () => {
    const res = await fetch(api.url.replace('/2025-10-13', '/2024-01-01/customers'), { headers: { Authorization: BASIC } });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe('NOT_FOUND');
  });

  it('a known path with another method is 405 with Allow', async () => {
    const r = await api.call('PUT', '/customers');
    expect(r.status).toBe(405);
    expect(r.json.code).toBe('METHOD_NOT_ALLOWED');
    expect(r.headers.get('allow')).toContain('POST');
  });

  it('bad JSON is 400 INVALID_INPUT', async () => {
    const r = await api.post('/customers', undefined, { raw: '{"customerType":', headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it('invalid UTF-8 is 400 INVALID_INPUT', async () => {
    const r = await api.post('/customers', undefined, { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it.each([['[]'], ['"text"'], ['42'], ['null']])('a non-object body %s is 400 INVALID_INPUT', async (raw) => {
    const r = await api.post('/customers', undefined, { raw, headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it('a body over 1 MB is 413 PAYLOAD_TOO_LARGE and the connection answers', async () => {
    const r = await api.post('/customers', undefined, { raw: `{"x":"${'a'.repeat(1024 * 1024 + 10)}"}` });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: 1048576 } });
    // The same server keeps answering.
    expect((await api.get('/sandbox/clock')).status).toBe(200);
  });

  it('a body of exactly 1 MB is read', async () => {
    const filler = 'a'.repeat(1024 * 1024 - 20);
    const r = await api.post('/customers', undefined, { raw: `{"f":"${filler}"}`.padEnd(1024 * 1024, ' '), headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400); // valid JSON, but the fields are missing
    expect(r.json.details.errors.map((e: any) => e.field)).toEqual(['customerType', 'platformCustomerId']);
  });

  it('bad percent-encoding in the path is 400', async () => {
    const r = await api.get('/customers/%E0%A4%A');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it('garbage HTTP gets a JSON 400, not a reset', async () => {
    const out = await rawRequest(api.sandbox.port, 'GET /2025-10-13/sandbox/clock HTTP/1.1\r\nHost: x\r\nBad Header: \x01\x02\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400/);
    expect(out).toContain('"code":"INVALID_INPUT"');
  });

  it('oversized headers get a JSON 431', async () => {
    const out = await rawRequest(api.sandbox.port, `GET /2025-10-13/sandbox/clock HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 431/);
    expect(out).toContain('"code":"HEADERS_TOO_LARGE"');
  });

  it('logs one JSON line per request without query strings or headers', async () => {
    lines.length = 0;
    await api.get('/internal-account?customerId=secret-looking-value');
    await api.post('/sandbox/oauth/token', { email: 'x@example.com', nonce: 'abc' });
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0] as string);
    expect(first).toMatchObject({ method: 'GET', path: '/2025-10-13/internal-account', status: 404, code: 'CUSTOMER_NOT_FOUND' });
    expect(typeof first.ms).toBe('number');
    expect(typeof first.time).toBe('string');
    const joined = lines.join('\n');
    expect(joined).not.toContain('secret-looking-value');
    expect(joined).not.toContain('sandbox-secret');
    expect(joined).not.toContain('x@example.com');
    expect(joined).not.toContain(BASIC.slice(6));
  });
});

describe('clock and enclave', () => {
  it('Date header and /sandbox/clock follow the sandbox clock', async () => {
    const before = Date.parse((await api.get('/sandbox/clock')).json.now);
    const adv = await api.post('/sandbox/clock/advance', { seconds: 3600 });
    expect(adv.status).toBe(200);
    const now = Date.parse(adv.json.now);
    expect(now - before).toBeGreaterThanOrEqual(3600_000);
    const r = await api.get('/sandbox/clock');
    expect(Math.abs(Date.parse(r.headers.get('date') as string) - now)).toBeLessThan(5000);
  });

  it.each([[{ seconds: -1 }], [{ seconds: 'x' }], [{}], [{ seconds: 1, extra: true }]])('clock advance refuses %j', async (body) => {
    const r = await api.post('/sandbox/clock/advance', body);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors.length).toBeGreaterThan(0);
  });

  it('advanceClock() moves the same clock', async () => {
    const before = Date.parse((await api.get('/sandbox/clock')).json.now);
    api.sandbox.advanceClock(60);
    const after = Date.parse((await api.get('/sandbox/clock')).json.now);
    expect(after - before).toBeGreaterThanOrEqual(60_000);
  });

  it('GET /sandbox/enclave publishes the key startSandbox returned', async () => {
    const r = await api.get('/sandbox/enclave');
    expect(r.status).toBe(200);
    expect(r.json.enclaveQuorumPublic).toBe(api.sandbox.enclavePublicKey);
    expect(r.json.enclaveQuorumPublic).toMatch(/^04[0-9a-f]{128}$/);
    expect(r.json.publicKeyCompressed).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(r.json.verificationTokenKey).toMatchObject({ kty: 'EC', crv: 'P-256' });
  });

  it('an injected base clock is used', async () => {
    const fixed = Date.parse('2030-01-01T00:00:00Z');
    const other = await start({ now: () => fixed });
    try {
      expect((await other.get('/sandbox/clock')).json.now).toBe('2030-01-01T00:00:00.000Z');
    } finally {
      await other.sandbox.close();
    }
  });
});

describe('startSandbox options', () => {
  it.each([
    [{ port: -1 }],
    [{ port: 1.5 }],
    [{ host: '' }],
    [{ clientId: 'a:b' }],
    [{ clientSecret: 7 }],
    [{ origin: [] }],
    [{ now: 5 }],
    [{ log: 'yes' }],
  ])('refuses %j with WalletError INVALID_ARGUMENT', async (options) => {
    await expect(startSandbox(options as never)).rejects.toMatchObject({ name: 'WalletError', code: 'INVALID_ARGUMENT' });
  });

  it('a port in use → WalletError SANDBOX_START_FAILED', async () => {
    await expect(startSandbox({ port: api.sandbox.port, log: false })).rejects.toMatchObject({ code: 'SANDBOX_START_FAILED' });
  });

  it('advanceClock refuses negative or non-finite seconds', () => {
    expect(() => api.sandbox.advanceClock(-1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => api.sandbox.advanceClock(Number.NaN)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('the url ends in /2025-10-13 on 127.0.0.1', () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/2025-10-13$/);
  });
});

describe('building blocks', () => {
  it('parses the vector stamp and verifies its high-S signature', () => {
    const parsed = parseStamp(vectors.stamp.headerValue);
    expect(parsed.publicKey.compressed).toBe(vectors.stamp.publicKeyCompressed);
    expect(verifyDer(parsed.publicKey.uncompressedBytes, parsed.signature, new TextEncoder().encode(vectors.stamp.payloadToSign))).toBe(true);
  });

  it('strict DER: the vectors pass, non-minimal encodings fail', () => {
    for (const v of vectors.derFromP1363) expect(isStrictDerSignature(Buffer.from(v.der, 'hex'))).toBe(true);
    expect(isStrictDerSignature(Buffer.from('300702020001020101', 'hex'))).toBe(false); // padded r
    expect(isStrictDerSignature(Buffer.from('3006020180020101', 'hex'))).toBe(false); // negative r
    expect(isStrictDerSignature(Buffer.from('3006020100020101', 'hex'))).toBe(false); // r = 0
    expect(isStrictDerSignature(Buffer.from('300602010102010100', 'hex'))).toBe(false); // trailing byte
  });

  it('jsonEqual ignores key order only', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(undefined, {})).toBe(false);
    expect(jsonEqual({ a: '1' }, { a: 1 })).toBe(false);
  });

  it('the router prefers literal segments and reports allowed methods', () => {
    const r = new Router();
    const a = () => ({ status: 200 });
    const b = () => ({ status: 201 });
    r.get('/x/:id', a).get('/x/special', b).post('/x', a);
    const m = r.match('GET', ['x', 'special']);
    expect(m.kind === 'route' && m.route.handler).toBe(b);
    const p = r.match('GET', ['x', 'other']);
    expect(p.kind === 'route' && p.params).toEqual({ id: 'other' });
    expect(r.match('DELETE', ['x'])).toEqual({ kind: 'method', allow: ['POST'] });
    expect(r.match('GET', ['y'])).toEqual({ kind: 'none' });
  });
});
