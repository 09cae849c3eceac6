import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/proxy/index.js';
import { ACCOUNT, CUSTOMER, errorBody, harness, type Harness } from './harness.js';
import { rawRequest } from './raw-http.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
let h: Harness;
let server: Server;
let port: number;

beforeAll(async () => {
  upstream = await startUpstream();
  h = harness(upstream, { prefix: '/api' });
  server = createServer(toNodeHandler(h.proxy));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await upstream.close();
});

describe('path tricks through the fetch handler (URL already parsed by the runtime)', () => {
  const refused = [
    `/api/internal-accounts/${ACCOUNT}%2F..%2F..%2Fcustomers`,
    '/api/internal-accounts/a%2fb',
    '/api/internal-accounts/a%5Cb',
    '/api/internal-accounts/a%5cb',
    '/api/internal-accounts/a%252Fb',
    '/api/internal-accounts/a%00b',
    '/api/internal-accounts/a%0D%0AX-Injected:%201',
    '/api/internal-accounts/a%20b',
    '/api/internal-accounts/%C3%A9',
    '/api/internal-accounts/%E0%A4%A',
    '/api//internal-accounts/a',
    '/api/internal-accounts/a/',
    '/api/internal-accounts/%2e%2e%2fcustomers',
  ];
  it.each(refused)('%s → 400 INVALID_PATH', async (path) => {
    const before = upstream.received.length;
    const response = await h.call(path);
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('INVALID_PATH');
    expect(upstream.received.length).toBe(before);
  });

  it('dot segments the URL parser resolved can only land on an allowed route', async () => {
    // `new Request` resolves `..` before the proxy sees it: /api/quotes/../customers → /api/customers.
    const before = upstream.received.length;
    expect((await h.call('/api/quotes/../customers', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    expect((await h.call('/api/../internal-accounts/x')).status).toBe(404);
    expect(upstream.received.length).toBe(before);
  });

  it('logs a refused path escaped on one line', async () => {
    await h.call('/api/internal-accounts/a%0D%0AFAKE%20LOG%20LINE');
    const last = h.lines.at(-1) ?? '';
    expect(last.split('\n')).toHaveLength(1);
    expect(last).toMatch(/^proxy GET \S+ 400 \d+ms INVALID_PATH$/);
  });
});

describe('path and header tricks on the raw wire (Node adapter)', () => {
  const rawRefused = [
    `/api/internal-accounts/${ACCOUNT}/../../customers`,
    '/api/internal-accounts/./x',
    '/api/quotes/..',
    '/api/internal-accounts/%2e%2e/x',
    '/api/internal-accounts/.%2E/x',
    '/api\\internal-accounts\\x',
    '/api/internal-accounts/a\\..\\..\\customers',
    '/api/internal-accounts/a%2Fb',
    '/api/internal-accounts/a%5Cb',
    '//api/internal-accounts/x',
    '/api/internal-accounts//x',
    'http://evil.test/api/internal-accounts/x',
    '*',
  ];
  it.each(rawRefused)('GET %s → 400, nothing forwarded', async (target) => {
    const before = upstream.received.length;
    const answer = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).code).toBe('INVALID_PATH');
    expect(upstream.received.length).toBe(before);
  });

  it('a clean raw request still goes through', async () => {
    const before = upstream.received.length;
    const answer = await rawRequest(port, `GET /api/customers/${CUSTOMER} HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expect(upstream.received[before]?.url).toBe(`/2025-10-13/customers/${CUSTOMER}`);
  });

  const headerTricks: [string, string][] = [
    ['CR LF folded into Request-Id', 'Request-Id: Request:1\r\n X-Injected: 1\r\n'],
    ['bare CR in the signature', 'Service-Wallet-Signature: abc\rX-Injected: 1\r\n'],
    ['bare LF in the signature', 'Service-Wallet-Signature: abc\nX-Injected: 1\r\n'],
    ['NUL in Idempotency-Key', 'Idempotency-Key: a\x00b\r\n'],
  ];
  it.each(headerTricks)('%s → 400, never forwarded', async (_label, header) => {
    const before = upstream.received.length;
    const answer = await rawRequest(port, `GET /api/customers/${CUSTOMER} HTTP/1.1\r\nHost: app.test\r\n${header}Connection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(upstream.received.length).toBe(before);
  });

  it('a header value with a control character that reaches the handler is refused with INVALID_HEADER', async () => {
    // A runtime whose Headers let a control character through (the WHATWG one does not) must still not forward it.
    const headers = new Headers({ 'request-id': 'Request:1' });
    const tampered = new Proxy(headers, {
      get(target, key) {
        if (key === 'get') return (name: string) => (name.toLowerCase() === 'request-id' ? 'Request:1\r\nX-Injected: 1' : target.get(name));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const request = new Request(`http://app.test/api/customers/${CUSTOMER}`);
    Object.defineProperty(request, 'headers', { value: tampered });
    const before = upstream.received.length;
    const response = await h.proxy(request);
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('INVALID_HEADER');
    expect(upstream.received.length).toBe(before);
  });
});
