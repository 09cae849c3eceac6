import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from '../../src/proxy/index.js';
import { ACCOUNT, CLIENT_ID, CLIENT_SECRET, CUSTOMER, errorBody, harness } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const JSON_POST = (body: BodyInit): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** A JSON document of exactly `size` bytes. */
function jsonOfSize(size: number): string {
  const shell = '{"pad":""}';
  return `{"pad":"${'a'.repeat(size - shell.length)}"}`;
}

describe('body size limit', () => {
  it('accepts a body of exactly the limit and refuses one byte more (413)', async () => {
    const { call, lines } = harness(upstream, { maxBodyBytes: 1000 });
    const before = upstream.received.length;
    expect((await call('/quotes', JSON_POST(jsonOfSize(1000)))).status).toBe(200);
    const over = await call('/quotes', JSON_POST(jsonOfSize(1001)));
    expect(over.status).toBe(413);
    expect(await errorBody(over)).toEqual({ code: 'PAYLOAD_TOO_LARGE', reason: 'The request body is larger than 1000 bytes.' });
    expect(upstream.received.length).toBe(before + 1);
    expect(lines.at(-1)).toMatch(/^proxy POST \/quotes 413 \d+ms PAYLOAD_TOO_LARGE$/);
  });

  it('default limit is 1 MiB', async () => {
    const { call } = harness(upstream);
    expect((await call('/quotes', JSON_POST(jsonOfSize(1024 * 1024)))).status).toBe(200);
    expect((await call('/quotes', JSON_POST(jsonOfSize(1024 * 1024 + 1)))).status).toBe(413);
  });

  it('stops reading a streamed body without Content-Length once past the limit', async () => {
    const { call } = harness(upstream, { maxBodyBytes: 64 * 1024 });
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await call('/quotes', { ...JSON_POST(endless), duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  it('refuses on a declared Content-Length over the limit before reading', async () => {
    const { proxy } = harness(upstream, { maxBodyBytes: 10 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(4));
      },
    });
    const request = new Request('http://app.test/quotes', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '11' }, body, duplex: 'half' } as RequestInit);
    const response = await proxy(request);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1);
  });
});

describe('upstream failures', () => {
  it('times out → 504 UPSTREAM_TIMEOUT', async () => {
    const silent = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const lines: string[] = [];
      const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: `http://127.0.0.1:${port}/v`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, timeoutMs: 200, logger: (l) => lines.push(l) });
      const started = Date.now();
      const response = await proxy(new Request(`http://app.test/customers/${CUSTOMER}`));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(response.status).toBe(504);
      expect(await errorBody(response)).toEqual({ code: 'UPSTREAM_TIMEOUT', reason: 'The service did not answer within 200 ms.' });
      expect(lines.at(-1)).toMatch(/ 504 \d+ms UPSTREAM_TIMEOUT$/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('times out even when an injected fetch ignores the abort signal', async () => {
    const proxy = createProxy({
    dangerouslyAllowEveryCaller: true,
      baseUrl: 'https://service.test',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      timeoutMs: 100,
      logger: false,
      fetch: () => new Promise<Response>(() => undefined),
    });
    const response = await proxy(new Request(`http://app.test/customers/${CUSTOMER}`));
    expect(response.status).toBe(504);
    expect((await errorBody(response)).code).toBe('UPSTREAM_TIMEOUT');
  });

  it('an answer whose body stalls also times out', async () => {
    upstream.respond((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    try {
      const { call } = harness(upstream, { timeoutMs: 200 });
      const response = await call(`/customers/${CUSTOMER}`);
      expect(response.status).toBe(504);
    } finally {
      upstream.respond((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    }
  });

  it('nothing listening → 502 UPSTREAM_UNAVAILABLE', async () => {
    const closed = await startUpstream();
    const url = closed.url;
    await closed.close();
    const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, logger: false });
    const response = await proxy(new Request(`http://app.test/customers/${CUSTOMER}`));
    expect(response.status).toBe(502);
    const body = await errorBody(response);
    expect(body).toEqual({ code: 'UPSTREAM_UNAVAILABLE', reason: 'The service could not be reached.' });
  });

  it('connection dropped mid-answer → 502', async () => {
    upstream.respond((_r, res) => {
      res.socket?.destroy();
    });
    try {
      const { call } = harness(upstream);
      expect((await call(`/customers/${CUSTOMER}`)).status).toBe(502);
    } finally {
      upstream.respond((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    }
  });

  it('uses an injected fetch, and maps its rejection to 502', async () => {
    const targets: string[] = [];
    const proxy = createProxy({
    dangerouslyAllowEveryCaller: true,
      baseUrl: 'https://service.test/2025-10-13/',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      logger: false,
      fetch: async (input, init) => {
        targets.push(`${init.method} ${input}`);
        if (input.includes('fail')) throw new TypeError(`fetch failed for ${input} with ${CLIENT_SECRET}`);
        return new Response('{"injected":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const ok = await proxy(new Request(`http://app.test/auth/credentials?accountId=${ACCOUNT}`));
    expect(await ok.json()).toEqual({ injected: true });
    const failed = await proxy(new Request('http://app.test/quotes/fail'));
    expect(failed.status).toBe(502);
    expect(await failed.text()).not.toContain(CLIENT_SECRET);
    expect(targets).toEqual([`GET https://service.test/2025-10-13/auth/credentials?accountId=${ACCOUNT}`, 'GET https://service.test/2025-10-13/quotes/fail']);
  });

  it('stops waiting for the service when the caller aborts', async () => {
    let upstreamAborted = false;
    const proxy = createProxy({
    dangerouslyAllowEveryCaller: true,
      baseUrl: 'https://service.test',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      logger: false,
      fetch: (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => {
            upstreamAborted = true;
            reject(new DOMException('aborted', 'AbortError'));
          });
        }),
    });
    const caller = new AbortController();
    const pending = proxy(new Request(`http://app.test/customers/${CUSTOMER}`, { signal: caller.signal }));
    caller.abort();
    const response = await pending;
    expect(upstreamAborted).toBe(true);
    expect(response.status).toBe(502);
  });
});
