import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { nodeMiddleware, toNodeHandler, type NodeMiddleware } from '../../src/proxy/index.js';
import { ACCOUNT, BASIC, CUSTOMER, harness } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';
import { until } from '../helpers/wait-for.js';

let upstream: Upstream;
const servers: Server[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
afterAll(() => upstream.close());

async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, ...(agent ? { agent } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Streams `chunk`s with chunked encoding (no Content-Length) until the server answers or `max`
 * bytes went out; returns the answer and how much was written.
 */
function streamUntilAnswered(port: number, path: string, chunk: Buffer, max: number): Promise<{ answer: Answer; written: number }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ answer: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }, written }));
    });
    // Writes after the server closed are expected to fail; the answer is what matters.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && written < max) {
        written += chunk.byteLength;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('toNodeHandler', () => {
  it('forwards through http.createServer: body bytes, wallet headers, credentials; passes the answer back', async () => {
    upstream.respond((_r, res) => {
      res.writeHead(202, { 'content-type': 'application/json', 'retry-after': '3', date: 'Thu, 01 Jan 2026 00:00:00 GMT', 'set-cookie': 'x=1' });
      res.end('{"payloadToSign":"p","requestId":"Request:1","expiresAt":"2026-01-01T00:05:00Z"}');
    });
    const { proxy, lines } = harness(upstream, { prefix: '/api' });
    const port = await listen(toNodeHandler(proxy));
    const body = Buffer.from(`{"clientPublicKey" : "04ab",  "x":"\u00e9"}`);
    const before = upstream.received.length;
    const answer = await send(port, 'POST', `/api/internal-accounts/${ACCOUNT}/export`, {
      'content-type': 'application/json',
      'service-wallet-signature': 'stamp',
      'request-id': 'Request:0',
      authorization: 'Bearer nope',
      cookie: 'sid=1',
    }, body);
    expect(answer.status).toBe(202);
    // A challenge is re-made by the proxy (S16): no Retry-After, the service's date.
    expect(answer.headers['retry-after']).toBeUndefined();
    expect(answer.headers['date']).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.body.toString()).toBe('{"payloadToSign":"p","requestId":"Request:1","expiresAt":"2026-01-01T00:05:00Z"}');
    const got = upstream.received[before];
    expect(got?.body.equals(body)).toBe(true);
    expect(got?.url).toBe(`/2025-10-13/internal-accounts/${ACCOUNT}/export`);
    expect(got?.headers['authorization']).toBe(BASIC);
    expect(got?.headers['service-wallet-signature']).toBe('stamp');
    expect(got?.headers['request-id']).toBe('Request:0');
    expect(got?.headers['cookie']).toBeUndefined();
    expect(lines.at(-1)).toMatch(new RegExp(`^proxy POST /internal-accounts/${ACCOUNT}/export 202 \\d+ms$`));
  });

  it('keeps a connection usable for the next request', async () => {
    const { proxy } = harness(upstream);
    const port = await listen(toNodeHandler(proxy));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(port, 'GET', `/customers/${CUSTOMER}`, {}, undefined, agent);
      const second = await send(port, 'POST', '/quotes', { 'content-type': 'application/json' }, '{}', agent);
      expect([first.status, second.status]).toEqual([200, 200]);
    } finally {
      agent.destroy();
    }
  });

  it('refuses a streamed oversize body with 413 while it streams, without forwarding it', async () => {
    const { proxy, lines } = harness(upstream, { maxBodyBytes: 64 * 1024 });
    const port = await listen(toNodeHandler(proxy));
    const before = upstream.received.length;
    const { answer, written } = await streamUntilAnswered(port, '/quotes', Buffer.alloc(16 * 1024, 0x20), 64 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.toString()).code).toBe('PAYLOAD_TOO_LARGE');
    expect(answer.headers['connection']).toBe('close');
    // Far less than the 64 MiB the client was ready to send.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(upstream.received.length).toBe(before);
    expect(lines.at(-1)).toMatch(/^proxy POST \/quotes 413 \d+ms PAYLOAD_TOO_LARGE$/);
  });

  it('an adapter limit lower than the proxy limit wins', async () => {
    const { proxy } = harness(upstream);
    const port = await listen(toNodeHandler(proxy, { maxBodyBytes: 100 }));
    const { answer } = await streamUntilAnswered(port, '/quotes', Buffer.alloc(64, 0x20), 10_000);
    expect(answer.status).toBe(413);
  });

  it('refuses a declared Content-Length over the limit at once', async () => {
    const { proxy } = harness(upstream, { maxBodyBytes: 1000 });
    const port = await listen(toNodeHandler(proxy));
    const answer = await send(port, 'POST', '/quotes', { 'content-type': 'application/json' }, Buffer.alloc(1001, 0x20));
    expect(answer.status).toBe(413);
  });

  it('answers 405 for a method the proxy does not forward', async () => {
    const { proxy } = harness(upstream);
    const port = await listen(toNodeHandler(proxy));
    // CONNECT never reaches a request listener: Node emits 'connect' on the server instead.
    for (const method of ['PUT', 'OPTIONS', 'TRACE', 'PROPFIND', 'HEAD']) {
      const answer = await send(port, method, '/quotes');
      expect(answer.status, method).toBe(405);
    }
  });

  it('answers 500 when a plain fetch handler throws', async () => {
    const port = await listen(
      toNodeHandler(() => {
        throw new Error('boom');
      }),
    );
    const answer = await send(port, 'GET', '/x');
    expect(answer.status).toBe(500);
    expect(answer.body.toString()).not.toContain('boom');
  });

  it('passes several Set-Cookie headers of an authorize Response through', async () => {
    const { proxy } = harness(upstream, {
      authorize: () => {
        const headers = new Headers({ 'content-type': 'application/json' });
        headers.append('set-cookie', 'a=1; HttpOnly');
        headers.append('set-cookie', 'b=2; HttpOnly');
        return new Response('{"code":"LOGIN_REQUIRED","reason":"r"}', { status: 401, headers });
      },
    });
    const port = await listen(toNodeHandler(proxy));
    const answer = await send(port, 'GET', `/customers/${CUSTOMER}`);
    expect(answer.status).toBe(401);
    expect(answer.headers['set-cookie']).toEqual(['a=1; HttpOnly', 'b=2; HttpOnly']);
  });

  it('aborts the upstream call when the client goes away', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      upstreamClosed = resolve;
    });
    upstream.respond((_r, res) => {
      res.on('close', () => upstreamClosed());
    });
    const { proxy } = harness(upstream);
    const port = await listen(toNodeHandler(proxy));
    const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: `/customers/${CUSTOMER}` });
    req.on('error', () => undefined);
    req.end();
    await until(() => upstream.received.at(-1)?.url === `/2025-10-13/customers/${CUSTOMER}`, 'the request upstream');
    req.destroy();
    await closed;
  });
});

describe('nodeMiddleware', () => {
  /** A tiny Connect-style stack: mount path stripped from req.url, originalUrl kept. */
  function connectLike(mount: string, middleware: NodeMiddleware, fallback: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse) => {
      const original = req.url ?? '/';
      const mounted = mount === '' || original === mount || original.startsWith(mount + '/') || original.startsWith(mount + '?');
      if (!mounted) return fallback(req, res);
      Object.assign(req, { originalUrl: original, url: original.slice(mount.length) || '/' });
      middleware(req, res, () => fallback(req, res));
    };
  }
  const fallback = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('app');
  };

  it('takes requests under the proxy prefix and passes the others to next()', async () => {
    const { proxy } = harness(upstream, { prefix: '/api' });
    const port = await listen(connectLike('', nodeMiddleware(proxy), fallback));
    const before = upstream.received.length;
    expect((await send(port, 'GET', '/index.html')).body.toString()).toBe('app');
    expect((await send(port, 'GET', '/apiary')).body.toString()).toBe('app');
    const proxied = await send(port, 'GET', `/api/customers/${CUSTOMER}`);
    expect(proxied.status).toBe(200);
    expect(upstream.received[before]?.url).toBe(`/2025-10-13/customers/${CUSTOMER}`);
    // Under the prefix, even a refused path is answered by the proxy, never handed on.
    expect((await send(port, 'GET', '/api/customers')).status).toBe(404);
    expect((await send(port, 'GET', '/api/quotes/../../index.html')).status).toBe(400);
  });

  it('works mounted (app.use("/api", …)) thanks to originalUrl', async () => {
    const { proxy } = harness(upstream, { prefix: '/api' });
    const port = await listen(connectLike('/api', nodeMiddleware(proxy), fallback));
    const before = upstream.received.length;
    const answer = await send(port, 'GET', `/api/auth/sessions?accountId=${ACCOUNT}`);
    expect(answer.status).toBe(200);
    expect(upstream.received[before]?.url).toBe(`/2025-10-13/auth/sessions?accountId=${ACCOUNT}`);
  });

  it('answers 404 itself when there is no next()', async () => {
    const { proxy } = harness(upstream, { prefix: '/api' });
    const middleware = nodeMiddleware(proxy);
    const port = await listen((req, res) => middleware(req, res));
    const answer = await send(port, 'GET', '/elsewhere');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body.toString()).code).toBe('NOT_FOUND');
  });

  it('rejects bad adapter options with WalletError INVALID_ARGUMENT', () => {
    const { proxy } = harness(upstream);
    for (const make of [() => nodeMiddleware(proxy, { prefix: 'api' }), () => toNodeHandler(proxy, { maxBodyBytes: -1 }), () => toNodeHandler('x' as never)]) {
      let caught: unknown;
      try {
        make();
      } catch (error) {
        caught = error;
      }
      expect(isWalletError(caught, 'INVALID_ARGUMENT')).toBe(true);
    }
  });
});
