// The proxy's refusals, together, in front of the real sandbox (Node adapter on 127.0.0.1): CR/LF
// and NUL in headers, path traversal, methods and routes it does not forward, oversized bodies.
// Each is refused with the proxy's code and never reaches the sandbox (its request log does not
// grow); a clean request through the same proxy does. The library refuses such header values
// itself before sending anything.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createProxy, toNodeHandler } from '../../src/proxy/index.js';
import { createClient } from '../../src/transport/index.js';
import { generateSessionKey } from '../../src/crypto/index.js';
import { rawRequest } from '../proxy/raw-http.js';
import { asyncOutcome } from './helpers/outcome.js';
import { createWalletCustomer, platformClient } from '../../scripts/load.js';

const MAX_BODY = 64 * 1024;
const sandboxLines: string[] = [];
let sandbox: RunningSandbox;
let server: Server;
let port: number;
let accountId: string;
let customerId: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: (line) => sandboxLines.push(line) });
  const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', prefix: '/api', maxBodyBytes: MAX_BODY, logger: false });
  server = createServer(toNodeHandler(proxy));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  ({ accountId, customerId } = await createWalletCustomer(platformClient(sandbox.url), `security-${Date.now()}`));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await sandbox.close();
});

function request(method: string, target: string, headers: string[] = [], body?: string): Promise<{ status: number; code: string | undefined }> {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: app.test', 'Connection: close', ...headers];
  if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`).then((a) => {
    let code: string | undefined;
    try {
      code = (JSON.parse(a.body) as { code?: string }).code;
    } catch {
      code = undefined;
    }
    return { status: a.status, code };
  });
}

/**
 * Runs `fn` and asserts the sandbox saw no request meanwhile: a request of the test's own, sent to
 * the sandbox once `fn` has its answer, is the first (and only) one it logs since (it logs each
 * request as it answers it, so anything forwarded before would be logged before it).
 */
async function neverForwarded<T>(fn: () => Promise<T>): Promise<T> {
  const before = sandboxLines.length;
  const result = await fn();
  await (await fetch(`${sandbox.url}/after-the-refusal`)).arrayBuffer();
  const seen = sandboxLines.slice(before);
  expect(seen, seen.join('\n')).toHaveLength(1);
  expect(seen[0]).toContain('/after-the-refusal');
  return result;
}

describe('proxy refusals in front of the sandbox', () => {
  it('a clean request goes through (the baseline the refusals are measured against)', async () => {
    const before = sandboxLines.length;
    const answer = await request('GET', `/api/auth/credentials?accountId=${encodeURIComponent(accountId)}`);
    expect(answer.status).toBe(200);
    expect(sandboxLines.length).toBe(before + 1);
  });

  const headerTricks: [string, string][] = [
    ['obs-fold continuation line', 'Request-Id: Request:1\r\n X-Injected: 1'],
    ['bare CR in the signature', 'Service-Wallet-Signature: abc\rX-Injected: 1'],
    ['bare LF in the signature', 'Service-Wallet-Signature: abc\nX-Injected: 1'],
    ['NUL in Idempotency-Key', 'Idempotency-Key: a\x00b'],
    ['DEL in Request-Id', 'Request-Id: a\x7fb'],
  ];
  it.each(headerTricks)('%s → 400, not forwarded', async (_label, header) => {
    const answer = await neverForwarded(() => request('PATCH', `/api/internal-accounts/${encodeURIComponent(accountId)}`, [header], '{"privateEnabled":true}'));
    expect(answer.status).toBe(400);
  });

  const traversals = [
    `/api/internal-accounts/${accountId}/../../customers`,
    `/api/internal-accounts/${accountId}/../../sandbox/clock/advance`,
    '/api/internal-accounts/%2e%2e/%2e%2e/customers',
    '/api/internal-accounts/.%2E/x',
    '/api/internal-accounts/a%2F..%2F..%2Fcustomers',
    '/api/internal-accounts/a%5C..%5Ccustomers',
    '/api/internal-accounts/%252e%252e/x',
    '/api\\..\\sandbox\\clock\\advance',
    '/api//internal-accounts/x',
    '/api/internal-accounts/a%00b',
    '/api/internal-accounts/a%0D%0AX-Injected:%201',
    'http://evil.test/api/internal-accounts/x',
  ];
  it.each(traversals)('POST %s → 400 INVALID_PATH, not forwarded', async (target) => {
    const answer = await neverForwarded(() => request('POST', target, [], '{"seconds":86400}'));
    expect([answer.status, answer.code]).toEqual([400, 'INVALID_PATH']);
  });

  const methods = ['PUT', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'PURGE'];
  it.each(methods)('%s on an allowed path → 405, not forwarded', async (method) => {
    const answer = await neverForwarded(() => request(method, `/api/internal-accounts/${encodeURIComponent(accountId)}`));
    expect(answer.status).toBe(405);
    if (method !== 'HEAD') expect(answer.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('routes the library does not use → 404 NOT_FOUND, not forwarded (no funding, no clock, no customer deletion)', async () => {
    const routes: [string, string, string?][] = [
      ['POST', `/api/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, '{"amount":1000000}'],
      ['POST', '/api/sandbox/clock/advance', '{"seconds":86400}'],
      ['DELETE', `/api/customers/${encodeURIComponent(customerId)}`],
      ['GET', '/api/customers'],
      ['POST', '/api/customers', '{"customerType":"INDIVIDUAL","platformCustomerId":"x"}'],
      ['GET', '/api/sandbox/enclave'],
    ];
    for (const [method, target, body] of routes) {
      const answer = await neverForwarded(() => request(method, target, [], body));
      expect([method, target, answer.status, answer.code]).toEqual([method, target, 404, 'NOT_FOUND']);
    }
  });

  it('oversized bodies → 413 PAYLOAD_TOO_LARGE, declared or streamed, not forwarded; the limit itself passes', async () => {
    const path = `/api/internal-accounts/${encodeURIComponent(accountId)}`;
    const big = JSON.stringify({ nickname: 'x'.repeat(MAX_BODY) });
    const declared = await neverForwarded(() => request('PATCH', path, [], big));
    expect([declared.status, declared.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    const chunk = Buffer.from(big).toString('latin1');
    const streamed = await neverForwarded(() =>
      rawRequest(port, `PATCH ${path} HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`),
    );
    expect(streamed.status).toBe(413);

    // Exactly the limit: forwarded (the sandbox then judges the body: a too-long nickname is its 400).
    const exact = JSON.stringify({ nickname: 'y'.repeat(MAX_BODY - '{"nickname":""}'.length) });
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY);
    const before = sandboxLines.length;
    const answer = await request('PATCH', path, [], exact);
    expect(answer.status).toBeLessThan(500);
    expect(answer.status).not.toBe(413);
    expect(sandboxLines.length).toBe(before + 1);
  });

  it('the library refuses CR/LF/NUL in header values itself: INVALID_ARGUMENT, nothing sent', async () => {
    const key = await generateSessionKey();
    let sent = 0;
    const counting: typeof fetch = (input, init) => {
      sent++;
      return fetch(input, init);
    };
    const base = `http://127.0.0.1:${port}/api`;
    const bad = ['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\u0000b', 'Ω'];
    for (const value of bad) {
      expect((await asyncOutcome(() => Promise.resolve().then(() => createClient({ baseUrl: base, headers: { 'X-Csrf': value } }))))).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
      const client = createClient({ baseUrl: base, fetch: counting });
      const plain = await asyncOutcome(() => client.request({ method: 'GET', path: '/auth/credentials', headers: { 'X-Trace': value } }));
      expect(plain).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
      const signed = await asyncOutcome(() =>
        client.signed({ method: 'PATCH', path: `/internal-accounts/${encodeURIComponent(accountId)}`, body: { privateEnabled: true }, signer: key, purpose: 'x', idempotencyKey: value }),
      );
      expect(signed).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
    }
    expect(sent).toBe(0);
  });
});
