// Faults between the library and the service, with and without the proxy in between: upstream down,
// hanging, stalling mid-body, answering HTML, truncating, resetting the connection — on a plain
// call and on a signed call's second leg. Every fault ends in a typed WalletError within a bound
// (nothing hangs), and afterwards the same proxy and client still work.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, type SessionKey } from '../../src/crypto/index.js';
import { createProxy, toNodeHandler } from '../../src/proxy/index.js';
import { createClient, type Client } from '../../src/transport/index.js';
import { deadUrl, startFaultServer, type FaultMode, type FaultServer } from './helpers/fault-server.js';
import { asyncOutcome, type Outcome } from './helpers/outcome.js';
import { deferred, flush, until } from '../helpers/wait-for.js';

const PROXY_TIMEOUT_MS = 500;
const CLIENT_TIMEOUT_MS = 500;
/** Longest any fault may take to surface (the timeouts above plus slack for a loaded machine). */
const BOUND_MS = 4_000;

const PLAIN = { method: 'GET', path: '/auth/sessions', query: { accountId: 'InternalAccount:1' } } as const;

interface Expected {
  code: string;
  status?: number;
}

async function listenProxy(baseUrl: string, timeoutMs: number, lines: string[]): Promise<{ server: Server; url: string }> {
  const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl, clientId: 'platform-id', clientSecret: 'platform-secret-7c1e', timeoutMs, logger: (line) => lines.push(line) });
  const server = createServer(toNodeHandler(proxy));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function timed<T>(fn: () => Promise<Outcome<T>>): Promise<{ result: Outcome<T>; ms: number }> {
  const started = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - started };
}

function expectFault(result: Outcome<unknown>, ms: number, expected: Expected): void {
  expect(result.ok ? 'resolved' : result.code).toBe(expected.code);
  if (!result.ok && expected.status !== undefined) expect(result.status).toBe(expected.status);
  expect(ms).toBeLessThan(BOUND_MS);
}

let key: SessionKey;
let fault: FaultServer;
beforeAll(async () => {
  key = await generateSessionKey();
  fault = await startFaultServer();
});
afterAll(async () => {
  await fault.close();
});

const signedCall = (client: Client) =>
  asyncOutcome(() => client.signed({ method: 'PATCH', path: '/internal-accounts/InternalAccount:1', body: { privateEnabled: true }, signer: key, purpose: 'fault' }));

describe('library → proxy → faulty service', () => {
  let proxy: { server: Server; url: string };
  const lines: string[] = [];
  let client: Client;
  beforeAll(async () => {
    proxy = await listenProxy(fault.url, PROXY_TIMEOUT_MS, lines);
    // The client waits longer than the proxy, so the proxy's verdict is what arrives.
    client = createClient({ baseUrl: proxy.url, timeoutMs: 10 * PROXY_TIMEOUT_MS, maxRateLimitRetries: 0 });
  });
  afterAll(async () => {
    await close(proxy.server);
  });

  const cases: [FaultMode, Expected][] = [
    ['hang', { code: 'UPSTREAM_TIMEOUT', status: 504 }],
    ['stall-body', { code: 'UPSTREAM_TIMEOUT', status: 504 }],
    ['html-502', { code: 'BAD_RESPONSE', status: 502 }],
    ['html-200', { code: 'BAD_RESPONSE', status: 200 }],
    ['empty-502', { code: 'BAD_RESPONSE', status: 502 }],
    ['truncated', { code: 'UPSTREAM_UNAVAILABLE', status: 502 }],
    ['reset-mid-body', { code: 'UPSTREAM_UNAVAILABLE', status: 502 }],
    ['reset-before-headers', { code: 'UPSTREAM_UNAVAILABLE', status: 502 }],
  ];

  for (const [mode, expected] of cases) {
    it(`plain call, service ${mode} → ${expected.code} ${expected.status}`, async () => {
      fault.mode = mode;
      fault.signedMode = undefined;
      const { result, ms } = await timed(() => asyncOutcome(() => client.request(PLAIN)));
      expectFault(result, ms, expected);
    });
  }

  const signedCases: [FaultMode, Expected][] = [
    ['hang', { code: 'UPSTREAM_TIMEOUT', status: 504 }],
    ['html-202', { code: 'BAD_RESPONSE', status: 202 }],
    ['truncated', { code: 'UPSTREAM_UNAVAILABLE', status: 502 }],
    ['reset-mid-body', { code: 'UPSTREAM_UNAVAILABLE', status: 502 }],
  ];
  for (const [mode, expected] of signedCases) {
    it(`signed call, second leg ${mode} → ${expected.code} ${expected.status}`, async () => {
      fault.mode = 'challenge';
      fault.signedMode = mode === 'html-202' ? 'ok' : mode;
      if (mode === 'html-202') fault.mode = 'html-202';
      const { result, ms } = await timed(() => signedCall(client));
      expectFault(result, ms, expected);
    });
  }

  it('service down → UPSTREAM_UNAVAILABLE 502', async () => {
    const downLines: string[] = [];
    const down = await listenProxy(await deadUrl(), PROXY_TIMEOUT_MS, downLines);
    try {
      const downClient = createClient({ baseUrl: down.url, timeoutMs: 10 * PROXY_TIMEOUT_MS });
      const { result, ms } = await timed(() => asyncOutcome(() => downClient.request(PLAIN)));
      expectFault(result, ms, { code: 'UPSTREAM_UNAVAILABLE', status: 502 });
      expect(downLines.some((l) => l.includes('UPSTREAM_UNAVAILABLE'))).toBe(true);
    } finally {
      await close(down.server);
    }
  });

  it('a proxy slower than the client → the client gives up with TIMEOUT', async () => {
    const slowLines: string[] = [];
    const slow = await listenProxy(fault.url, 20 * CLIENT_TIMEOUT_MS, slowLines);
    try {
      fault.mode = 'hang';
      fault.signedMode = undefined;
      const impatient = createClient({ baseUrl: slow.url, timeoutMs: CLIENT_TIMEOUT_MS });
      const { result, ms } = await timed(() => asyncOutcome(() => impatient.request(PLAIN)));
      expectFault(result, ms, { code: 'TIMEOUT' });
    } finally {
      await close(slow.server);
    }
  });

  it('after every fault the same proxy and client work again, and the proxy logged each refusal', async () => {
    fault.mode = 'ok';
    fault.signedMode = undefined;
    expect(await client.request(PLAIN)).toEqual({ data: [] });
    fault.mode = 'challenge';
    fault.signedMode = 'ok';
    expect(await client.signed({ method: 'PATCH', path: '/internal-accounts/InternalAccount:1', body: { privateEnabled: true }, signer: key, purpose: 'fault' })).toEqual({ data: [] });
    expect(lines.filter((l) => l.includes('UPSTREAM_TIMEOUT')).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes('UPSTREAM_UNAVAILABLE')).length).toBeGreaterThanOrEqual(5);
    for (const line of lines) expect(line).not.toContain('platform-secret-7c1e');
  });
});

describe('library → faulty service directly', () => {
  let client: Client;
  beforeAll(() => {
    client = createClient({ baseUrl: fault.url, timeoutMs: CLIENT_TIMEOUT_MS, maxRateLimitRetries: 0 });
  });

  const cases: [FaultMode, Expected][] = [
    ['hang', { code: 'TIMEOUT' }],
    ['stall-body', { code: 'TIMEOUT' }],
    ['html-502', { code: 'BAD_RESPONSE', status: 502 }],
    ['html-200', { code: 'BAD_RESPONSE', status: 200 }],
    ['empty-502', { code: 'BAD_RESPONSE', status: 502 }],
    ['truncated', { code: 'NETWORK_ERROR', status: 200 }],
    ['reset-mid-body', { code: 'NETWORK_ERROR', status: 200 }],
    ['reset-before-headers', { code: 'NETWORK_ERROR' }],
  ];
  for (const [mode, expected] of cases) {
    it(`plain call, service ${mode} → ${expected.code}${expected.status ? ` ${expected.status}` : ''}`, async () => {
      fault.mode = mode;
      fault.signedMode = undefined;
      const { result, ms } = await timed(() => asyncOutcome(() => client.request(PLAIN)));
      expectFault(result, ms, expected);
    });
  }

  for (const [mode, expected] of [['hang', { code: 'TIMEOUT' }], ['reset-mid-body', { code: 'NETWORK_ERROR', status: 200 }]] as [FaultMode, Expected][]) {
    it(`signed call, second leg ${mode} → ${expected.code}`, async () => {
      fault.mode = 'challenge';
      fault.signedMode = mode;
      const { result, ms } = await timed(() => signedCall(client));
      expectFault(result, ms, expected);
    });
  }

  it('service down → NETWORK_ERROR', async () => {
    const down = createClient({ baseUrl: await deadUrl(), timeoutMs: CLIENT_TIMEOUT_MS });
    const { result, ms } = await timed(() => asyncOutcome(() => down.request(PLAIN)));
    expectFault(result, ms, { code: 'NETWORK_ERROR' });
  });

  it('an injected fetch that ignores the abort signal still ends at the timeout (TIMEOUT) or the caller\'s abort (ABORTED)', async () => {
    const deaf: typeof fetch = () => new Promise<Response>(() => undefined);
    const stalled: typeof fetch = async () => new Response(new ReadableStream({ start: () => undefined }), { status: 200 });
    for (const f of [deaf, stalled]) {
      const c = createClient({ baseUrl: 'http://deaf.test', fetch: f, timeoutMs: CLIENT_TIMEOUT_MS });
      const { result, ms } = await timed(() => asyncOutcome(() => c.request(PLAIN)));
      expectFault(result, ms, { code: 'TIMEOUT' });
      const controller = new AbortController();
      // The caller aborts once the request is made (fetch called: it hangs from then on).
      const made = deferred();
      const watched: typeof fetch = (...args) => (made.resolve(), f(...args));
      void made.promise.then(flush).then(() => controller.abort());
      const patient = createClient({ baseUrl: 'http://deaf.test', fetch: watched, timeoutMs: 60_000 });
      const aborted = await timed(() => asyncOutcome(() => patient.request({ ...PLAIN, signal: controller.signal })));
      expectFault(aborted.result, aborted.ms, { code: 'ABORTED' });
    }
  });

  it('an aborted call → ABORTED at once, even while the service hangs', async () => {
    fault.mode = 'hang';
    const controller = new AbortController();
    // The caller aborts once the service has the request (it hangs from then on).
    const hits = fault.hits;
    void until(() => fault.hits > hits, 'the request at the service').then(() => controller.abort());
    const patient = createClient({ baseUrl: fault.url, timeoutMs: 60_000 });
    const { result, ms } = await timed(() => asyncOutcome(() => patient.request({ ...PLAIN, signal: controller.signal })));
    expectFault(result, ms, { code: 'ABORTED' });
  });
});
