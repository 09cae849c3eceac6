/**
 * The bench's backend, all on loopback: the sandbox (in-process, its own port), the proxy mounted at
 * /api in front of it, and the page (bench/page.ts bundled with esbuild) — one origin for the page
 * and /api, as an app would serve them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createProxy, toNodeHandler } from '../src/proxy/index.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, startSandbox, type RunningSandbox } from '../src/sandbox/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The page bundle as an app would ship it: minified ESM for browsers. */
export async function buildPage(): Promise<string> {
  const result = await build({
    entryPoints: [join(root, 'bench', 'page.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
    absWorkingDir: root,
    outfile: 'page.js',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!js) throw new Error('esbuild produced no page bundle');
  return js.text;
}

const HTML = '<!doctype html><meta charset="utf-8"><title>embedded-wallet-signer bench</title><script type="module" src="/page.js"></script>';

// Cross-origin isolation gives performance.now() 5 µs steps instead of 100 µs (Chromium's coarsening).
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export interface BenchServer {
  readonly url: string;
  readonly sandbox: RunningSandbox;
  /** Requests that reached /api (the proxy) so far. */
  readonly apiRequests: number;
  /** From now on, keep the time the proxy and the sandbox report for each request. */
  record(): void;
  /** Stops recording and returns what was kept (ms per request, as each layer measured it). */
  recorded(): { proxyMs: number[]; sandboxMs: number[] };
  close(): Promise<void>;
}

export async function startBenchServer(pageJs: string): Promise<BenchServer> {
  let recording = false;
  let proxyMs: number[] = [];
  let sandboxMs: number[] = [];
  const sandbox = await startSandbox({
    port: 0,
    log: (line) => {
      if (recording) sandboxMs.push((JSON.parse(line) as { ms: number }).ms);
    },
  });
  const proxy = createProxy({
    dangerouslyAllowEveryCaller: true,
    baseUrl: sandbox.url,
    clientId: DEFAULT_CLIENT_ID,
    clientSecret: DEFAULT_CLIENT_SECRET,
    prefix: '/api',
    logger: (_line, entry) => {
      if (recording) proxyMs.push(entry.ms);
    },
  });
  const proxyListener = toNodeHandler(proxy);
  let apiRequests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/api' || path?.startsWith('/api/')) {
      apiRequests++;
      proxyListener(req, res);
      return;
    }
    if (path === '/ping') {
      // The floor for a loopback round trip from the page: no proxy, no sandbox, a 2-byte JSON body.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{}');
      return;
    }
    if (req.method === 'GET' && (path === '/' || path === '/page.js')) {
      const html = path === '/';
      res.writeHead(200, { ...ISOLATION, 'Content-Type': html ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(html ? HTML : pageJs);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sandbox,
    get apiRequests() {
      return apiRequests;
    },
    record() {
      recording = true;
      proxyMs = [];
      sandboxMs = [];
    },
    recorded() {
      recording = false;
      return { proxyMs, sandboxMs };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sandbox.close();
    },
  };
}

/** Platform-side setup straight on the sandbox (the backend's job, not the browser's): a customer with an embedded wallet. */
export async function createWalletCustomer(sandbox: RunningSandbox): Promise<{ accountId: string; credentialId: string }> {
  const auth = `Basic ${Buffer.from(`${DEFAULT_CLIENT_ID}:${DEFAULT_CLIENT_SECRET}`).toString('base64')}`;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(sandbox.url + path, {
      method,
      headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`sandbox ${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
  const id = crypto.randomUUID();
  const customer = await call<{ id: string }>('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `bench-${id}`,
    email: `bench-${id}@example.com`,
    currencies: ['USD'],
  });
  const accounts = await call<{ data: Array<{ id: string }> }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}&type=EMBEDDED_WALLET`);
  const accountId = accounts.data[0]?.id;
  if (!accountId) throw new Error('the sandbox created no embedded wallet for the customer');
  const credentials = await call<{ data: Array<{ id: string; type: string }> }>('GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`);
  const credentialId = credentials.data.find((c) => c.type === 'EMAIL_OTP')?.id;
  if (!credentialId) throw new Error('the embedded wallet has no EMAIL_OTP credential');
  return { accountId, credentialId };
}
