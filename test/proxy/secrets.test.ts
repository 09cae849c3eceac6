import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_TIMEOUT_MS, createProxy, toNodeHandler } from '../../src/proxy/index.js';
import { CLIENT_ID, CLIENT_SECRET, CUSTOMER, harness, SECRET_FORMS } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
  // The service answers by path, so that one run meets every kind of outcome.
  upstream.respond(async (received, res) => {
    if (received.url.includes('Quote:slow')) return; // never answers → 504
    if (received.url.includes('Quote:echo-body')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'INVALID_INPUT', reason: `bad header ${String(received.headers['authorization'])}` }));
      return;
    }
    if (received.url.includes('Quote:echo-secret')) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`debug: client_secret=${CLIENT_SECRET}`);
      return;
    }
    if (received.url.includes('Quote:echo-header')) {
      res.writeHead(200, { 'content-type': `application/json; x=${String(received.headers['authorization']).slice(6)}` });
      res.end('{}');
      return;
    }
    if (received.url.includes('Quote:drop')) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(received.method === 'DELETE' ? 202 : 200, { 'content-type': 'application/json', 'set-cookie': `s=${CLIENT_SECRET}` });
    res.end('{"payloadToSign":"x","requestId":"Request:1","expiresAt":"2030-01-01T00:00:00Z"}');
  });
});
afterAll(() => upstream.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

/** One request of every outcome the proxy can give. */
const BATTERY: [string, RequestInit | undefined, number][] = [
  [`/api/customers/${CUSTOMER}`, undefined, 200],
  ['/api/auth/sessions/Session:1', { method: 'DELETE' }, 202],
  ['/api/internal-accounts/a%2Fb', undefined, 400],
  ['/api/quotes', { method: 'POST', headers: JSON_HEADERS, body: '{"a":1,"a":2}' }, 400],
  ['/api/auth/credentials?accountId=InternalAccount:other', undefined, 403],
  ['/api/customers', { method: 'POST', headers: JSON_HEADERS, body: '{}' }, 404],
  ['/api/quotes', { method: 'PUT' }, 405],
  ['/api/quotes', { method: 'POST', headers: JSON_HEADERS, body: `{"p":"${'x'.repeat(3000)}"}` }, 413],
  ['/api/quotes', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }, 415],
  [`/api/customers/Customer:throws`, undefined, 500],
  ['/api/quotes/Quote:drop', undefined, 502],
  ['/api/quotes/Quote:slow', undefined, 504],
  ['/api/quotes/Quote:echo-body', undefined, 502],
  ['/api/quotes/Quote:echo-secret', undefined, 502],
  ['/api/quotes/Quote:echo-header', undefined, 502],
];

/**
 * The proxy the battery goes through. Its timeout is short only for the route the upstream never
 * answers (its 504 cannot depend on the machine's speed); every other route has the default 30 s, so
 * a loaded machine does not turn its answer into a 504.
 */
function makeProxy(lines: string[]): (request: Request) => Promise<Response> {
  const patient = proxyWith(lines, DEFAULT_TIMEOUT_MS);
  const quick = proxyWith(lines, 300);
  return (request) => (request.url.includes('Quote:slow') ? quick : patient)(request);
}

function proxyWith(lines: string[], timeoutMs: number) {
  return createProxy({
    baseUrl: upstream.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    prefix: '/api',
    maxBodyBytes: 2048,
    timeoutMs,
    logger: (line, entry) => lines.push(line, JSON.stringify(entry)),
    authorize: (_request, ctx) => {
      if (ctx.customerId === 'Customer:throws') throw new Error(`cannot check ${CLIENT_SECRET}`);
      return ctx.accountId !== 'InternalAccount:other';
    },
  });
}

function expectNoSecret(text: string, where: string): void {
  for (const form of SECRET_FORMS) expect(text.includes(form), `${where} contains ${form.slice(0, 4)}…`).toBe(false);
}

describe('the credentials never leave the proxy towards the caller or the log', () => {
  it('fetch handler: every response (status, headers, body) and every log line', async () => {
    const lines: string[] = [];
    const proxy = makeProxy(lines);
    for (const [path, init, status] of BATTERY) {
      const response = await proxy(new Request(`http://app.test${path}`, init));
      expect(response.status, path).toBe(status);
      const text = `${response.status} ${response.statusText}\n${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${await response.text()}`;
      expectNoSecret(text, `${init?.method ?? 'GET'} ${path}`);
    }
    expect(lines).toHaveLength(BATTERY.length * 2);
    for (const line of lines) expectNoSecret(line, 'log');
  });

  it('Node adapter: every raw answer and every log line', async () => {
    const lines: string[] = [];
    const patient = toNodeHandler(proxyWith(lines, DEFAULT_TIMEOUT_MS));
    const quick = toNodeHandler(proxyWith(lines, 300));
    const server: Server = createServer((req, res) => (req.url?.includes('Quote:slow') ? quick : patient)(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const [path, init, status] of BATTERY) {
        const raw = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path, method: init?.method ?? 'GET', headers: (init?.headers as Record<string, string>) ?? {} }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: `${res.statusMessage}\n${res.rawHeaders.join('\n')}\n${Buffer.concat(chunks).toString()}` }));
          });
          req.on('error', reject);
          req.end(typeof init?.body === 'string' ? init.body : undefined);
        });
        expect(raw.status, path).toBe(status);
        expectNoSecret(raw.text, path);
      }
      for (const line of lines) expectNoSecret(line, 'log');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an upstream answer that echoes the credentials is withheld (502), not passed on', async () => {
    const { call } = harness(upstream);
    for (const path of ['/quotes/Quote:echo-body', '/quotes/Quote:echo-secret', '/quotes/Quote:echo-header']) {
      const response = await call(path);
      expect(response.status).toBe(502);
      expect((await response.json()).code).toBe('UPSTREAM_UNAVAILABLE');
    }
  });

  it('the default logger writes one console.info line per request, without secrets', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: upstream.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
      await proxy(new Request(`http://app.test/customers/${CUSTOMER}`, { headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` } }));
      await proxy(new Request('http://app.test/customers'));
      expect(info).toHaveBeenCalledTimes(2);
      const logged = info.mock.calls.map((call) => call.join(' '));
      expect(logged[0]).toMatch(new RegExp(`^proxy GET /customers/${CUSTOMER} 200 \\d+ms$`));
      expect(logged[1]).toMatch(/^proxy GET \/customers 404 \d+ms NOT_FOUND$/);
      for (const line of logged) expectNoSecret(line, 'console');
    } finally {
      info.mockRestore();
    }
  });

  it('logger: false logs nothing; a throwing logger does not break the answer', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const quiet = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: upstream.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, logger: false });
      expect((await quiet(new Request(`http://app.test/customers/${CUSTOMER}`))).status).toBe(200);
      expect(info).not.toHaveBeenCalled();
    } finally {
      info.mockRestore();
    }
    const throwing = createProxy({
    dangerouslyAllowEveryCaller: true,
      baseUrl: upstream.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      logger: () => {
        throw new Error('disk full');
      },
    });
    expect((await throwing(new Request(`http://app.test/customers/${CUSTOMER}`))).status).toBe(200);
  });

  it('the handler object does not expose the credentials', () => {
    const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: upstream.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, logger: false });
    const visible = JSON.stringify({ ...proxy, prefix: proxy.prefix, max: proxy.maxBodyBytes }) + String(proxy) + Object.getOwnPropertyNames(proxy).join();
    expectNoSecret(visible, 'handler');
  });
});
