/**
 * The frame-mode test stack: the sandbox; an app server (the test app page, the proxy under /api
 * with CORS for the signer origin, the demo's /demo routes for a customer and its cookie); a signer
 * server (the signer page built by scripts/signer-page.mjs, its configuration allowing the app's
 * two origins). The app is reached as `http://localhost:<port>` (same site as the signer, another
 * origin) and as `http://127.0.0.1:<port>` (another site). Everything binds to loopback on free
 * ports and stops with `close()`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@playwright/test';
import { build } from 'esbuild';
import { createDemoApi } from '../../demo/server/demo-api.js';
import { createUpstream } from '../../demo/server/upstream.js';
import { createDemoUsers } from '../../demo/server/users.js';
import { createProxy, DEFAULT_ALLOW, emailLoginProxy, nodeMiddleware, withCors } from '../../src/proxy/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createEnclave } from '../../src/sandbox/enclave.js';
import { loadEnclaveKey } from '../../src/sandbox/enclave-key.js';
import { serveSignerPage } from '../../src/signer/host/serve.js';
import { buildSignerPage } from '../../scripts/signer-page.mjs';

export interface FrameStack {
  /** `http://localhost:<port>`: the app, same site as the signer. */
  readonly appUrl: string;
  /** `http://127.0.0.1:<port>`: the same app, another site. */
  readonly crossSiteAppUrl: string;
  /** The signer page (`http://localhost:<port>/`). */
  readonly signerUrl: string;
  readonly signerOrigin: string;
  /** A page of another origin (another port of localhost) that the signer's configuration does not allow. */
  readonly foreignUrl: string;
  /**
   * The same signer page served without `frame-ancestors` in its CSP: shows the frame's own origin
   * check at work where the browser's would have stopped the page first.
   */
  readonly signerNoAncestorsUrl: string;
  /** The sandbox's base URL (its stand-in IdP: `POST /sandbox/oauth/token {email, nonce}`). */
  readonly sandboxUrl: string;
  /** Adds `amount` (smallest units) to an internal account: the sandbox's funding tool, called with the platform's credentials. */
  fund(accountId: string, amount: number): Promise<void>;
  /** Moves the sandbox's clock forward (`POST /sandbox/clock/advance`): every expiry at the service, and its `Date` headers, follow. */
  advanceClock(seconds: number): Promise<void>;
  /**
   * Every request that reached the app's proxy with a wallet signature, as `METHOD /path`, oldest
   * first: what was signed, seen by the server, whatever the engine.
   */
  signed(): string[];
  /**
   * Everything the app's server exchanged with the parent page, oldest first: each request that did
   * not come from the signer frame (the frame's requests are CORS requests whose `Origin` the
   * browser sets to the signer origin) as method, URL, headers and body, then the answer's status,
   * headers and body. The parent's network as the server saw it, whatever the engine.
   */
  parentTraffic(): string[];
  /**
   * The signer page again, from an origin of its own that nothing else loads (so never from a
   * cache), whose requests are recorded in {@link observedSignerRequests}.
   */
  readonly observedSignerUrl: string;
  /** Each request that reached {@link observedSignerUrl}, oldest first. */
  observedSignerRequests(): ObservedRequest[];
  /** The ids of the account's active sessions, as the service lists them (platform credentials). */
  serviceSessions(accountId: string): Promise<string[]>;
  /** The app page with the signer's URL (default the stack's) in `?signer=`. */
  appPage(base?: string, signerUrl?: string): string;
  /**
   * With `{ emailLogin: true }`: the React app (app/react-app.ts) whose signer (another port) calls
   * the email-first proxy (`emailLoginProxy` under `/login-api`): the wallet's email code is the
   * app's login. Without: throws.
   */
  reactAppPage(): string;
  close(): Promise<void>;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));

async function listen(server: ReturnType<typeof createServer>): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** What a spec file's stack adds to the common one. */
export interface FrameStackOptions {
  /** The email-first stack and the React app over it (`reactAppPage()`). */
  readonly emailLogin?: boolean;
  /** Extra fields of the signer's host configuration (e.g. `highValue`). */
  readonly signerConfig?: Readonly<Record<string, unknown>>;
  /** Also a proxy in in-origin mode (no `signerOrigins`) under `/in-origin-api`: the benchmark's in-origin wallet. */
  readonly inOriginProxy?: boolean;
  /**
   * The service's answer to the signer's `GET /quotes/{id}` rewritten by this function (a quote the
   * frame's words cannot read: e2e/frame/portable/10-unknown-action.spec.ts); everything else as the
   * proxy answers it.
   */
  readonly signerQuoteAnswer?: (quote: Record<string, unknown>) => Record<string, unknown>;
}

export async function startFrameStack(options: FrameStackOptions = {}): Promise<FrameStack> {
  const dir = mkdtempSync(join(tmpdir(), 'signer-page-'));
  const clientId = `frame-${randomBytes(6).toString('hex')}`;
  const clientSecret = `frame-secret-${randomBytes(24).toString('hex')}`;
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const app = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  const port = await listen(app);
  const appUrl = `http://localhost:${port}`;
  const crossSiteAppUrl = `http://127.0.0.1:${port}`;

  // The signer's origin is a WebAuthn origin of the sandbox (passkeys run in the frame), so the
  // signer is served first; the sandbox then starts with the enclave key the signer already trusts.
  const seed = `frame-${randomBytes(8).toString('hex')}`;
  const enclavePublicKey = createEnclave(loadEnclaveKey({ seed })).publicKey;
  const config = { allowedParentOrigins: [appUrl, crossSiteAppUrl], baseUrl: `${appUrl}/api`, trustedKeys: [enclavePublicKey], name: 'Test Wallet', ...options.signerConfig };
  const entryPoints: Record<string, string> = { app: join(HERE, 'app', 'main.ts'), 'in-origin': join(HERE, 'app', 'in-origin.ts') };
  if (options.emailLogin) entryPoints['react-app'] = join(HERE, 'app', 'react-app.ts');
  const [appScript] = await Promise.all([
    build({ entryPoints, outdir: 'out', bundle: true, format: 'esm', write: false, target: 'es2022', logLevel: 'warning', define: { 'process.env.NODE_ENV': '"production"' } }),
    buildSignerPage(dir, { minify: false }),
  ]);
  const signer = await serveSignerPage({ dir, config });
  const signerOrigin = new URL(signer.url).origin;
  const signerNoAncestors = await serveSignerPage({
    dir,
    config,
    headers: (recommended) => ({
      ...recommended,
      'Content-Security-Policy': (recommended['Content-Security-Policy'] ?? '').replace(/frame-ancestors [^;]*; /, ''),
    }),
  });
  // A passkey ceremony in the frame: origin the signer's, top origin the app's (either site).
  const sandbox = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    clientId,
    clientSecret,
    origin: [appUrl, signerOrigin],
    topOrigin: [appUrl, crossSiteAppUrl],
    rpId: 'localhost',
    enclaveKey: { seed },
    log: false,
  });
  if (sandbox.enclavePublicKey !== enclavePublicKey) throw new Error('the sandbox does not use the enclave key the signer trusts');
  const observed = await observeServer(new URL(signer.url).port);
  // The email-first stack: its own signer (another origin), whose wallet calls /login-api.
  const emailSigner = options.emailLogin
    ? await serveSignerPage({ dir, config: { ...config, baseUrl: `${appUrl}/login-api` } })
    : undefined;
  const loginApi = emailSigner
    ? nodeMiddleware(
        withCors(emailLoginProxy({ baseUrl: sandbox.url, clientId, clientSecret, prefix: '/login-api', secret: randomBytes(32).toString('hex'), signerOrigins: [new URL(emailSigner.url).origin], logger: false }), {
          origins: [new URL(emailSigner.url).origin],
        }),
      )
    : undefined;
  const foreign = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  const foreignPort = await listen(foreign);

  const upstream = createUpstream({ baseUrl: sandbox.url, clientId, clientSecret });
  const users = createDemoUsers();
  const currentUser = (request: Request) => {
    const user = users.fromCookieHeader(request.headers.get('cookie'));
    return user === undefined ? null : { customerId: user.customerId };
  };
  // Frame mode at the proxy (THREAT-MODEL.md P5): only the signer origin logs in, refreshes or signs.
  const proxy = createProxy({ baseUrl: sandbox.url, clientId, clientSecret, prefix: '/api', allow: DEFAULT_ALLOW, currentUser, signerOrigins: [signerOrigin], logger: false });
  const api = nodeMiddleware(withCors(proxy, { origins: [signerOrigin] }));
  // The benchmark's in-origin wallet (bench/in-page.ts) compares against the frame: it needs a proxy
  // in in-origin mode, its own mount, served only to a stack that asks for it.
  const inOriginApi = options.inOriginProxy ? nodeMiddleware(createProxy({ baseUrl: sandbox.url, clientId, clientSecret, prefix: '/in-origin-api', allow: DEFAULT_ALLOW, currentUser, logger: false })) : undefined;
  const demoApi = createDemoApi({
    users,
    upstream,
    service: { baseUrl: sandbox.url, clientId, clientSecret },
    sandbox: true,
    trustedKeys: async () => [sandbox.enclavePublicKey],
    extraPayees: async () => [],
    oauthAuthorizeUrl: null,
    logError: () => {},
  });
  const script = appScript.outputFiles.find((f) => f.path.endsWith('/app.js'))?.text ?? '';
  const inOriginScript = appScript.outputFiles.find((f) => f.path.endsWith('/in-origin.js'))?.text ?? '';
  const reactScript = appScript.outputFiles.find((f) => f.path.endsWith('/react-app.js'))?.text ?? '';
  const reactPage = '<!doctype html><html><head><meta charset="utf-8"><title>React app</title><script type="module" src="/react-app.js"></script></head><body><div id="root"></div></body></html>';
  const page = '<!doctype html><html><head><meta charset="utf-8"><title>Frame test app</title><script type="module" src="/app.js"></script></head><body><h1>Test app</h1></body></html>';
  const signed: string[] = [];
  const parentTraffic: string[] = [];
  handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.headers['service-wallet-signature'] !== undefined) signed.push(`${req.method} ${path}`);
    const fromASigner = req.headers.origin === signerOrigin || (emailSigner !== undefined && req.headers.origin === new URL(emailSigner.url).origin);
    // (Not the in-origin proxy's: recording reads the request body in flowing mode, ahead of the proxy.)
    if (!fromASigner && !path.startsWith('/in-origin-api/')) recordExchange(req, res, parentTraffic);
    const rewrite = options.signerQuoteAnswer;
    if (rewrite !== undefined && req.method === 'GET' && req.headers.origin === signerOrigin && /^\/api\/quotes\/[^/]+$/.test(path)) {
      void upstream.call('GET', path.slice('/api'.length)).then((answer) => {
        const body = answer.status === 200 ? rewrite(answer.body as Record<string, unknown>) : answer.body;
        res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': signerOrigin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' }).end(JSON.stringify(body));
      });
      return;
    }
    if (path === '/api' || path.startsWith('/api/')) return api(req, res);
    if (loginApi && path.startsWith('/login-api/')) return loginApi(req, res);
    if (inOriginApi && path.startsWith('/in-origin-api/')) return inOriginApi(req, res);
    if (reactScript && path === '/react-app.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(reactScript);
    if (reactScript && path === '/react') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(reactPage);
    if (path.startsWith('/demo/')) return void demoApi(req, res);
    if (path === '/app.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    if (path === '/in-origin.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(inOriginScript);
    if (path === '/') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    res.writeHead(404).end();
  };

  return {
    appUrl,
    crossSiteAppUrl,
    signerUrl: signer.url,
    signerOrigin,
    foreignUrl: `http://localhost:${foreignPort}`,
    signerNoAncestorsUrl: signerNoAncestors.url,
    sandboxUrl: sandbox.url,
    async fund(accountId, amount) {
      const answer = await upstream.call('POST', `/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, { body: { amount } });
      if (answer.status >= 300) throw new Error(`fund ${accountId}: ${answer.status}`);
    },
    async advanceClock(seconds) {
      const answer = await upstream.call('POST', '/sandbox/clock/advance', { body: { seconds } });
      if (answer.status >= 300) throw new Error(`advance the clock ${seconds} s: ${answer.status}`);
    },
    signed: () => [...signed],
    serviceSessions: async (accountId) => {
      const answer = await upstream.call('GET', '/auth/sessions', { query: { accountId } });
      if (answer.status !== 200) throw new Error(`GET /auth/sessions answered ${answer.status}`);
      return ((answer.body as { data: { id: string }[] }).data ?? []).map((s) => s.id);
    },
    parentTraffic: () => [...parentTraffic],
    observedSignerUrl: observed.url,
    observedSignerRequests: () => [...observed.requests],
    appPage: (base = appUrl, signerUrl = signer.url) => `${base}/?signer=${encodeURIComponent(signerUrl)}`,
    reactAppPage: () => {
      if (emailSigner === undefined) throw new Error('startFrameStack({ emailLogin: true }) serves the React app');
      return `${appUrl}/react?signer=${encodeURIComponent(emailSigner.url)}`;
    },
    close: async () => {
      await Promise.allSettled([
        signer.close(),
        emailSigner?.close(),
        signerNoAncestors.close(),
        observed.close(),
        sandbox.close(),
        new Promise<void>((resolve) => {
          foreign.close(() => resolve());
          foreign.closeAllConnections();
        }),
        new Promise<void>((resolve) => {
          app.close(() => resolve());
          app.closeAllConnections();
        }),
      ]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Records what `req` carried and what `res` answers (status, headers, body) into `into`, once the answer ends. */
function recordExchange(req: IncomingMessage, res: ServerResponse, into: string[]): void {
  const request: Buffer[] = [];
  const answer: Buffer[] = [];
  const chunk = (c: unknown): Buffer | undefined => (typeof c === 'string' ? Buffer.from(c) : c instanceof Uint8Array ? Buffer.from(c) : undefined);
  // The body as the handler reads it, heard on its way out (no 'data' listener: one would set the
  // request flowing, and a body the proxy reads a moment later was gone — a parent's POST
  // /api/cards reached it empty).
  const emit = req.emit.bind(req) as (event: string | symbol, ...args: unknown[]) => boolean;
  req.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'data' && args[0] instanceof Uint8Array) request.push(Buffer.from(args[0]));
    return emit(event, ...args);
  }) as typeof req.emit;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((c: unknown, ...rest: unknown[]) => {
    const b = chunk(c);
    if (b !== undefined) answer.push(b);
    return write(c, ...rest);
  }) as typeof res.write;
  res.end = ((c?: unknown, ...rest: unknown[]) => {
    const b = typeof c === 'function' ? undefined : chunk(c);
    if (b !== undefined) answer.push(b);
    return end(c, ...rest);
  }) as typeof res.end;
  res.on('finish', () => {
    into.push(
      `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${Buffer.concat(request).toString()}\n` +
        `${res.statusCode} ${JSON.stringify(res.getHeaders())} ${Buffer.concat(answer).toString()}`,
    );
  });
}

/** What reached the observed signer origin: a request (its `Origin`, the `Access-Control-Allow-Origin` it got) or a CSP violation report (its body). */
export interface ObservedRequest {
  path: string;
  origin: string | undefined;
  allowOrigin: string | undefined;
  report?: string;
}

/**
 * A server on a port of its own that forwards every request to the signer server on `port` and
 * records it; the page's CSP gains `report-uri /csp-report`, whose reports it records (a browser
 * that refuses the page's script by its CSP says so there).
 */
async function observeServer(port: string): Promise<{ url: string; requests: ObservedRequest[]; close(): Promise<void> }> {
  const requests: ObservedRequest[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/csp-report') {
      const body: Buffer[] = [];
      req.on('data', (c: Buffer) => body.push(c));
      req.on('end', () => {
        requests.push({ path, origin: req.headers.origin, allowOrigin: undefined, report: Buffer.concat(body).toString() });
        res.writeHead(204).end();
      });
      return;
    }
    const forward = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, host: `localhost:${port}` } }, (answer) => {
      const allowOrigin = answer.headers['access-control-allow-origin'];
      requests.push({ path, origin: req.headers.origin, allowOrigin: Array.isArray(allowOrigin) ? allowOrigin.join(',') : allowOrigin });
      const csp = answer.headers['content-security-policy'];
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...(typeof csp === 'string' ? { 'content-security-policy': `${csp}; report-uri /csp-report` } : {}) });
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  const own = await listen(server);
  return {
    url: `http://localhost:${own}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One stack for the spec file: started before its first test, closed after its last; read it with the returned function. */
export function useFrameStack(options: FrameStackOptions = {}): () => FrameStack {
  let stack: FrameStack | undefined;
  test.beforeAll(async () => {
    stack = await startFrameStack(options);
  });
  test.afterAll(async () => {
    await stack?.close();
  });
  return () => {
    if (stack === undefined) throw new Error('the frame stack is not started');
    return stack;
  };
}
