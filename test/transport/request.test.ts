import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RequestLogEntry } from '../../src/transport/index.js';
import { walletErrorOf } from '../helpers/errors.js';
import { deferred } from '../helpers/wait-for.js';
import { startFakeServer, type FakeServer, type Handler } from './fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<FakeServer> {
  const server = await startFakeServer(handler);
  servers.push(server);
  return server;
}

describe('request(): JSON calls', () => {
  it('sends query, headers and body and returns the parsed JSON; reports the request', async () => {
    const server = await serve(() => ({ status: 200, body: { data: [{ id: 'AuthMethod:1' }] } }));
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl: `${server.url}/`, headers: { 'X-App': 'demo' }, onRequest: (e) => log.push(e) });
    const result = await client.request<{ data: Array<{ id: string }> }>({
      method: 'GET',
      path: '/auth/credentials',
      query: { accountId: 'InternalAccount:1', skipped: undefined, n: 2 },
      idempotencyKey: 'idem-1',
    });
    expect(result).toEqual({ data: [{ id: 'AuthMethod:1' }] });
    const [req] = server.received;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/2025-10-13/auth/credentials?accountId=InternalAccount%3A1&n=2');
    expect(req?.headers['x-app']).toBe('demo');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['idempotency-key']).toBe('idem-1');
    expect(req?.body.length).toBe(0);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ method: 'GET', path: '/auth/credentials', status: 200, leg: 1, attempt: 1, signed: false });
    expect(log[0]?.ms).toBeGreaterThanOrEqual(0);
  });

  it('serialises the body once as JSON with Content-Type', async () => {
    const server = await serve(() => ({ status: 201, body: { id: 'X:1' } }));
    const client = createClient({ baseUrl: server.url });
    await client.request({ method: 'POST', path: '/quotes', body: { a: 1, b: 'é' } });
    expect(server.received[0]?.headers['content-type']).toBe('application/json');
    expect(server.received[0]?.body.toString('utf8')).toBe('{"a":1,"b":"é"}');
  });

  it('returns undefined for 204', async () => {
    const server = await serve(() => ({ status: 204 }));
    const client = createClient({ baseUrl: server.url });
    await expect(client.request({ method: 'DELETE', path: '/auth/sessions/Session:1' })).resolves.toBeUndefined();
  });

  it('maps the documented error body {code, reason, details}', async () => {
    const server = await serve(() => ({ status: 400, body: { code: 'INVALID_INPUT', reason: 'accountId is required', details: { field: 'accountId' } } }));
    const client = createClient({ baseUrl: server.url });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/auth/sessions' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.status).toBe(400);
    expect(error.message).toBe('accountId is required');
    expect(error.details).toEqual({ field: 'accountId' });
  });

  it("maps the real service's error body {status, code, message, details}", async () => {
    const server = await serve(() => ({
      status: 401,
      body: { status: 401, code: 'WALLET_SIGNATURE_INVALID', message: 'Signature verification failed', details: { requestId: 'Request:1' } },
    }));
    const client = createClient({ baseUrl: server.url });
    const error = await walletErrorOf(client.request({ method: 'PATCH', path: '/internal-accounts/InternalAccount:1', body: {} }));
    expect(error.code).toBe('WALLET_SIGNATURE_INVALID');
    expect(error.status).toBe(401);
    expect(error.message).toBe('Signature verification failed');
    expect(error.details).toEqual({ requestId: 'Request:1' });
  });

  it('maps an error body without details, and ignores a non-object details', async () => {
    const server = await serve((_req, i) =>
      i === 0 ? { status: 404, body: { code: 'SESSION_NOT_FOUND', reason: 'no such session' } } : { status: 409, body: { code: 'CONFLICT', message: 'm', details: 'x' } },
    );
    const client = createClient({ baseUrl: server.url });
    const a = await walletErrorOf(client.request({ method: 'GET', path: '/a' }));
    expect([a.code, a.status, a.details]).toEqual(['SESSION_NOT_FOUND', 404, undefined]);
    const b = await walletErrorOf(client.request({ method: 'GET', path: '/b' }));
    expect([b.code, b.status, b.message, b.details]).toEqual(['CONFLICT', 409, 'm', undefined]);
  });

  it('maps an error status without a service body to BAD_RESPONSE with the status', async () => {
    const server = await serve(() => ({ status: 502, body: '<html>Bad gateway</html>', headers: { 'Content-Type': 'text/html' } }));
    const client = createClient({ baseUrl: server.url });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect([error.code, error.status]).toEqual(['BAD_RESPONSE', 502]);
  });

  it('maps a 2xx that is not JSON, or empty, to BAD_RESPONSE', async () => {
    const server = await serve((_req, i) => (i === 0 ? { status: 200, body: 'OK', headers: { 'Content-Type': 'text/plain' } } : { status: 200 }));
    const client = createClient({ baseUrl: server.url });
    const a = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect([a.code, a.status]).toEqual(['BAD_RESPONSE', 200]);
    const b = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect(b.code).toBe('BAD_RESPONSE');
  });

  it('maps a refused connection to NETWORK_ERROR (and reports it)', async () => {
    const server = await startFakeServer(() => ({ status: 200, body: {} }));
    const baseUrl = server.url;
    await server.close();
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl, onRequest: (e) => log.push(e) });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.cause).toBeDefined();
    expect(log[0]).toMatchObject({ status: undefined, error: 'NETWORK_ERROR', attempt: 1 });
  });

  it('maps a slow answer to TIMEOUT', async () => {
    // The answer is held until the call has settled: only the client's own timeout can end it.
    const held = deferred();
    const server = await serve(async () => (await held.promise, { status: 200, body: {} }));
    const client = createClient({ baseUrl: server.url, timeoutMs: 150 });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/slow' }));
    held.resolve();
    expect(error.code).toBe('TIMEOUT');
  });

  it("maps the caller's abort to ABORTED", async () => {
    const held = deferred();
    const arrived = deferred();
    const server = await serve(async () => (arrived.resolve(), await held.promise, { status: 200, body: {} }));
    const client = createClient({ baseUrl: server.url });
    const controller = new AbortController();
    const call = walletErrorOf(client.request({ method: 'GET', path: '/slow', signal: controller.signal }));
    await arrived.promise; // on the wire, its answer held
    controller.abort();
    const error = await call;
    held.resolve();
    expect(error.code).toBe('ABORTED');
  });

  it('waits Retry-After (seconds) on 429 and retries', async () => {
    const server = await serve((_req, i) =>
      i === 0 ? { status: 429, body: { code: 'RATE_LIMITED', reason: 'slow down' }, headers: { 'Retry-After': '1' } } : { status: 200, body: { ok: true } },
    );
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl: server.url, onRequest: (e) => log.push(e) });
    const started = Date.now();
    await expect(client.request({ method: 'POST', path: '/auth/credentials/AuthMethod:1/challenge', body: {} })).resolves.toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(log.map((e) => [e.status, e.attempt])).toEqual([[429, 1], [200, 2]]);
    expect(server.received[1]?.body.equals(server.received[0]!.body)).toBe(true);
  });

  it('reads an HTTP-date Retry-After against the server clock, not the local one', async () => {
    const serverClock = Date.now() - 3_600_000; // the server is an hour behind
    const server = await serve((_req, i) =>
      i === 0
        ? {
            status: 429,
            body: { code: 'RATE_LIMITED', reason: 'later' },
            headers: { Date: new Date(serverClock).toUTCString(), 'Retry-After': new Date(serverClock + 1000).toUTCString() },
          }
        : { status: 200, body: { ok: true } },
    );
    const client = createClient({ baseUrl: server.url, maxRetryAfterMs: 5000 });
    const started = Date.now();
    await expect(client.request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: true });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('gives up on 429 after maxRateLimitRetries with RATE_LIMITED', async () => {
    const server = await serve(() => ({ status: 429, body: { code: 'RATE_LIMITED', reason: 'no' }, headers: { 'Retry-After': '0' } }));
    const client = createClient({ baseUrl: server.url, maxRateLimitRetries: 2 });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect([error.code, error.status]).toEqual(['RATE_LIMITED', 429]);
    expect(error.details).toEqual({ retryAfterMs: 0 });
    expect(server.received).toHaveLength(3);
  });

  it('fails at once when Retry-After exceeds maxRetryAfterMs; a bare 429 is still RATE_LIMITED', async () => {
    const server = await serve(() => ({ status: 429, headers: { 'Retry-After': '60' } }));
    const client = createClient({ baseUrl: server.url });
    const error = await walletErrorOf(client.request({ method: 'GET', path: '/x' }));
    expect([error.code, error.status]).toEqual(['RATE_LIMITED', 429]);
    expect(error.details).toEqual({ retryAfterMs: 60_000 });
    expect(server.received).toHaveLength(1);
  });

  it('rejects bad input with INVALID_ARGUMENT before any request', async () => {
    const server = await serve(() => ({ status: 200, body: {} }));
    const client = createClient({ baseUrl: server.url });
    const cases: Array<Promise<unknown>> = [
      client.request({ method: 'GET', path: 'no-slash' }),
      client.request({ method: 'GET', path: '/x', body: { a: 1 } }),
      client.request({ method: 'POST', path: '/x', body: { n: 1n } }),
      client.request({ method: 'TRACE' as 'GET', path: '/x' }),
      client.request({ method: 'GET', path: '/x', headers: { 'bad header': 'x' } }),
    ];
    for (const c of cases) expect((await walletErrorOf(c)).code).toBe('INVALID_ARGUMENT');
    expect(() => createClient({ baseUrl: '' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => createClient({ baseUrl: server.url, timeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(server.received).toHaveLength(0);
  });
});
