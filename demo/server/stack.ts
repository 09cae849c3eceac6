/**
 * The whole demo on one origin: `startDemoStack()` starts (unless a real service is given) the
 * local sandbox, and one Node http server with
 *
 * - `/api/*`  the proxy (`createProxy` + `nodeMiddleware`): the library's routes, plus the sandbox's
 *   funding route in sandbox mode, confined per user by the proxy's ownership checks (`currentUser`);
 * - `/demo/*` the demo's own login and sandbox helpers (demo-api.ts);
 * - the rest: the Vite app in middleware mode.
 *
 * Passkeys: WebAuthn refuses an IP address as RP ID, so the app is served and announced as
 * `http://localhost:<port>` (bound to 127.0.0.1) and the sandbox accepts exactly that origin with
 * RP ID `localhost`. The platform secret stays in this process: it is never logged or sent to a
 * browser.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ViteDevServer } from 'vite';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxy, DEFAULT_ALLOW, DEFAULT_APP_ROUTES, nodeMiddleware, withCors } from '../../src/proxy/index.js';
import { serveSignerPage, type SignerPageServer } from '../../src/signer/host/serve.js';
import { buildSignerPage } from '../../scripts/signer-page.mjs';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createEnclave } from '../../src/sandbox/enclave.js';
import { loadEnclaveKey } from '../../src/sandbox/enclave-key.js';
import { createAppServer, DEMO_ROOT } from './app.js';
import { createDemoApi, type Payee } from './demo-api.js';
import { createMerchant } from './merchant.js';
import { createUpstream, errorBody } from './upstream.js';
import { createDemoUsers } from './users.js';
import { COMMIT_CODE_ROUTE, createTestSwitches } from './test-switches.js';
import { createInitScripts, frontSignerPage, type InitScripts, INIT_JS_ROUTE, INIT_SCRIPT_ROUTE } from './init-scripts.js';

export interface DemoStackOptions {
  /** Demo port; default 5173. 0 picks a free port (the returned `url` has the real one). */
  port?: number;
  /** Interface to bind; default 127.0.0.1. The announced URL always says `localhost`. */
  host?: string;
  /** Sandbox port; default 0 (free). Ignored with `service`. */
  sandboxPort?: number;
  /** Platform credentials shared by the sandbox and the proxy; default the sandbox's defaults. */
  sandboxClientId?: string;
  sandboxClientSecret?: string;
  /** Target a real service instead of starting the sandbox. */
  service?: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    /** Enclave keys (uncompressed hex) the browser trusts; none → bundle signatures are not checked. */
    trustedKeys?: readonly string[];
  };
  /** No request log lines, no Vite output. */
  quiet?: boolean;
  /** Reload the page when a source file changes; default true. Tests pass false. */
  watch?: boolean;
  /**
   * Frame mode: the signer page (keys, codes, approvals) on a second port of localhost, another
   * origin of the same site; the proxy allows it by CORS with credentials, and lets only it log in,
   * refresh and sign (`signerOrigins`). Absent: in-origin mode.
   */
  signer?: { port?: number };
  /**
   * The test-only switches of test-switches.ts and init-scripts.ts (the e2e global setup only; in
   * frame mode the signer page is then served behind init-scripts.ts's front); default false: not served.
   */
  testSwitches?: boolean;
}

export interface DemoStack {
  /** `http://localhost:<port>`: open this. */
  readonly url: string;
  /** The sandbox's `{base_url}`, or the real service's base URL. */
  readonly sandboxUrl: string;
  /** Whether the upstream is the local sandbox. */
  readonly sandbox: boolean;
  /** The signer page in frame mode, else null. */
  readonly signerUrl: string | null;
  close(): Promise<void>;
}

const FUND_ROUTE = { method: 'POST', pattern: '/sandbox/internal-accounts/{accountId}/fund' } as const;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startDemoStack(options: DemoStackOptions = {}): Promise<DemoStack> {
  const quiet = options.quiet ?? false;
  const host = options.host ?? '127.0.0.1';
  let handler: Handler | undefined;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else {
      res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '1' });
      res.end('The demo is starting.');
    }
  });
  const port = await listen(server, options.port ?? 5173, host);
  const url = `http://localhost:${port}`;

  let sandbox: RunningSandbox | undefined;
  let vite: ViteDevServer | undefined;
  let signer: SignerPageServer | undefined;
  const signerDir = options.signer ? mkdtempSync(join(tmpdir(), 'demo-signer-')) : undefined;
  const initScripts = options.testSwitches === true ? createInitScripts() : undefined;
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const close = async () => {
    await Promise.allSettled([vite?.close(), closeServer(), sandbox?.close(), signer?.close()]);
    if (signerDir !== undefined) rmSync(signerDir, { recursive: true, force: true });
  };

  try {
    const service = options.service;
    const clientId = service?.clientId ?? options.sandboxClientId ?? DEFAULT_CLIENT_ID;
    const clientSecret = service?.clientSecret ?? options.sandboxClientSecret ?? DEFAULT_CLIENT_SECRET;
    // Frame mode: the signer is served first, so that the sandbox knows its origin (passkey
    // ceremonies run in the signer frame: origin the signer's, top origin the app's) and the signer
    // trusts the enclave key the sandbox will use (a fresh seed per start, as before).
    const seed = service === undefined && signerDir !== undefined ? `demo-${randomBytes(8).toString('hex')}` : undefined;
    if (signerDir !== undefined) {
      await buildSignerPage(signerDir);
      const keys = seed !== undefined ? [createEnclave(loadEnclaveKey({ seed })).publicKey] : service?.trustedKeys?.length ? service.trustedKeys : 'skip-verification';
      const signerPort = options.signer?.port ?? 0;
      // With the test switches, the signer page is served behind a front that adds init scripts (init-scripts.ts).
      signer = await serveSignerPage({
        dir: signerDir,
        port: initScripts === undefined ? signerPort : 0,
        host,
        config: { allowedParentOrigins: [url], baseUrl: `${url}/api`, trustedKeys: keys, name: 'Demo wallet' },
      });
      if (initScripts !== undefined) signer = await frontSignerPage(signer, initScripts, signerPort, host);
    }
    if (service === undefined) {
      const webauthn = signer ? { origin: [url, new URL(signer.url).origin], topOrigin: [url] } : { origin: url };
      sandbox = await startSandbox({ port: options.sandboxPort ?? 0, host: '127.0.0.1', clientId, clientSecret, ...webauthn, rpId: 'localhost', ...(seed !== undefined ? { enclaveKey: { seed } } : {}), log: false });
    }
    const baseUrl = service?.baseUrl ?? (sandbox as RunningSandbox).url;
    const upstream = createUpstream({ baseUrl, clientId, clientSecret });
    const users = createDemoUsers();
    const logError = quiet ? () => {} : (line: string) => console.error(line);

    const proxy = createProxy({
      baseUrl,
      clientId,
      clientSecret,
      prefix: '/api',
      allow: sandbox ? [...DEFAULT_ALLOW, FUND_ROUTE] : DEFAULT_ALLOW,
      // Ownership checks (src/proxy/ownership.ts): each browser reaches only the customer its demo
      // cookie names, and that customer's accounts, credentials, sessions, quotes, cards and keys.
      currentUser: (request) => {
        const user = users.fromCookieHeader(request.headers.get('cookie'));
        return user === undefined ? null : { customerId: user.customerId };
      },
      logger: quiet ? false : (line) => console.info(line),
      // Frame mode (THREAT-MODEL.md P5): only the signer origin logs in, refreshes or signs; the
      // app's page keeps its reads and its own unsigned calls (a card, and funding in the sandbox).
      ...(signer ? { signerOrigins: [new URL(signer.url).origin], appRoutes: sandbox ? [...DEFAULT_APP_ROUTES, FUND_ROUTE] : DEFAULT_APP_ROUTES } : {}),
    });
    const enclaveKey = sandbox?.enclavePublicKey;
    const trustedKeys = async () => (enclaveKey !== undefined ? [enclaveKey] : service?.trustedKeys?.length ? service.trustedKeys : 'skip-verification');
    // Frame mode: the signer page calls the proxy with the user's cookie (same site, another origin).
    const api = nodeMiddleware(signer ? withCors(proxy, { origins: [new URL(signer.url).origin] }) : proxy);
    const merchant = sandbox ? createMerchant(upstream) : undefined;
    const extraPayees = async (): Promise<readonly Payee[]> => (merchant ? [await merchant()] : []);
    const demoApi = createDemoApi({
      users,
      upstream,
      service: { baseUrl, clientId, clientSecret },
      sandbox: sandbox !== undefined,
      trustedKeys,
      extraPayees,
      oauthAuthorizeUrl: sandbox ? `${sandbox.url}/sandbox/oauth/authorize` : null,
      signerUrl: signer?.url ?? null,
      logError,
    });
    vite = await createAppServer({ quiet, server, watch: options.watch ?? true });
    const app = vite.middlewares;

    const switches = options.testSwitches === true ? createTestSwitches(signerDir) : undefined;
    // The demo's page with the init scripts first (init-scripts.ts): transformed as Vite's own middleware does.
    const serveIndex = (req: IncomingMessage, res: ServerResponse): void => {
      void (async () => {
        try {
          const html = await (vite as ViteDevServer).transformIndexHtml(req.url ?? '/', await readFile(join(DEMO_ROOT, 'index.html'), 'utf8'));
          res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end((initScripts as InitScripts).inject(req, html));
        } catch (e) {
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(e));
        }
      })();
    };
    handler = (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/api' || path.startsWith('/api/')) return api(req, res);
      if (switches !== undefined && path === COMMIT_CODE_ROUTE) return switches.handle(req, res);
      if (switches?.refuses(path) === true) return void req.socket.destroy();
      if (initScripts !== undefined && (path === INIT_SCRIPT_ROUTE || path === INIT_JS_ROUTE)) return void initScripts.handle(req, res);
      if (initScripts?.applies(req) === true && req.method === 'GET' && (path === '/' || path === '/index.html')) return void serveIndex(req, res);
      if (path.startsWith('/demo/')) {
        void demoApi(req, res);
        return;
      }
      app(req, res, () => {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('Not found');
      });
    };
    // Checks the upstream answers before announcing the URL.
    const probe = await upstream.call('GET', '/internal-account', { query: { limit: '1' } });
    if (probe.status === 401 || probe.status === 403) throw new Error(`The service refused the platform credentials (${errorBody(probe).code}).`);
  } catch (e) {
    await close();
    throw e;
  }
  return { url, sandboxUrl: sandbox?.url ?? (options.service as { baseUrl: string }).baseUrl, sandbox: sandbox !== undefined, signerUrl: signer?.url ?? null, close };
}
