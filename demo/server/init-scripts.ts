/**
 * Test-only switch of the demo stack: init scripts for a browser whose driver has no hook to run a
 * script before a document's own (WebKitGTK's WebKitWebDriver, W3C WebDriver classic; see
 * e2e/drivers/webdriver.ts). Served only when the stack was started with `testSwitches: true` (the
 * e2e global setup; `npm start` never): otherwise the routes are the demo API's, which refuses them
 * like any route it does not declare, and no document is changed.
 *
 * - `POST /demo/test/init-script {"token", "source"}` (from the test process): adds `source` (a
 *   classic script's text) to the scripts registered under `token` (a random name per browser profile).
 * - `GET /demo/test/init-script?token=…` (the browser, once): answers `Set-Cookie: e2e-init=<token>`
 *   (host-only on `localhost`: every port of it, so the app's server and the signer page's both see
 *   it; a browser profile is one device, so the scripts are the device's) and a blank page.
 *   An unregistered token: 404, no cookie.
 * - `GET /demo/test/init.js`: the scripts the request's cookie names, in the order registered.
 *
 * A document the stack serves (the demo's index.html; in frame mode every HTML page of the signer
 * page's server) to a browser whose cookie names registered scripts starts with
 * `<script src="/demo/test/init.js">`: a classic script of the document's own origin (the signer
 * page's `script-src 'self'` still holds), parser-blocking, so it runs before the page's module
 * scripts. A document served to a browser without that cookie is not changed.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignerPageServer } from '../../src/signer/host/serve.js';
import { readCookie } from './users.js';

export const INIT_SCRIPT_ROUTE = '/demo/test/init-script';
export const INIT_JS_ROUTE = '/demo/test/init.js';
const COOKIE = 'e2e-init';
const TOKEN = /^[\w-]{16,64}$/;
const MAX_BODY = 256 * 1024;
const TAG = `<script src="${INIT_JS_ROUTE}"></script>`;

export interface InitScripts {
  /** Answers INIT_SCRIPT_ROUTE and INIT_JS_ROUTE (other paths: false, not answered). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Whether the request's cookie names registered scripts (its documents get the init script). */
  applies(req: IncomingMessage): boolean;
  /** `html` with the init script's tag first in its head when {@link applies}; else `html` as is. */
  inject(req: IncomingMessage, html: string): string;
}

/** The registry of init scripts, per device token. */
export function createInitScripts(): InitScripts {
  const scripts = new Map<string, string[]>();
  const registered = (req: IncomingMessage): string[] | undefined => {
    const token = readCookie(req.headers.cookie ?? '', COOKIE);
    return token === undefined ? undefined : scripts.get(token);
  };
  const answer = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers }).end(body);
  };
  const register = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (body.length <= MAX_BODY) body += chunk;
    });
    req.on('end', () => {
      let wanted: { token?: unknown; source?: unknown } = {};
      try {
        wanted = JSON.parse(body) as typeof wanted;
      } catch {
        // Answered below as invalid.
      }
      const { token, source } = wanted;
      if (typeof token !== 'string' || !TOKEN.test(token) || typeof source !== 'string' || body.length > MAX_BODY) {
        return answer(res, 400, 'application/json', JSON.stringify({ code: 'INVALID_INPUT', reason: 'body: {"token": [\\w-]{16,64}, "source": string}' }));
      }
      scripts.set(token, [...(scripts.get(token) ?? []), source]);
      answer(res, 200, 'application/json', JSON.stringify({ scripts: scripts.get(token)?.length }));
    });
  };
  return {
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== INIT_SCRIPT_ROUTE && url.pathname !== INIT_JS_ROUTE) return false;
      if (url.pathname === INIT_SCRIPT_ROUTE && req.method === 'POST') register(req, res);
      else if (url.pathname === INIT_SCRIPT_ROUTE && req.method === 'GET') {
        const token = url.searchParams.get('token') ?? '';
        if (!scripts.has(token)) answer(res, 404, 'application/json', JSON.stringify({ code: 'NOT_FOUND' }));
        else answer(res, 200, 'text/html; charset=utf-8', '<!doctype html><title>init scripts</title>', { 'Set-Cookie': `${COOKIE}=${token}; Path=/; SameSite=Lax` });
      } else if (req.method === 'GET') {
        // Each script in its own try, in order: one that throws is reported and the next still runs.
        const body = (registered(req) ?? []).map((source) => `try { ${source} } catch (e) { setTimeout(() => { throw e; }); }`).join('\n');
        answer(res, 200, 'text/javascript; charset=utf-8', body);
      } else answer(res, 405, 'application/json', JSON.stringify({ code: 'METHOD_NOT_ALLOWED' }));
      return true;
    },
    applies: (req) => registered(req) !== undefined,
    inject(req, html) {
      if (registered(req) === undefined) return html;
      const head = /<head[^>]*>/i.exec(html);
      return head === null ? TAG + html : html.slice(0, head.index + head[0].length) + TAG + html.slice(head.index + head[0].length);
    },
  };
}

/**
 * The signer page's server behind a front of its own on `port` (the signer origin): every request
 * is forwarded to `inner` as is, its answer sent back with its headers (its Content-Security-Policy
 * too), except the init script routes (answered here) and HTML answers, given the init script's tag.
 */
export async function frontSignerPage(inner: SignerPageServer, scripts: InitScripts, port: number, host: string): Promise<SignerPageServer> {
  const target = new URL(inner.url);
  const server = createServer((req, res) => {
    if (scripts.handle(req, res)) return;
    const forwarded = request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const headers = { ...answer.headers };
      if (!String(headers['content-type'] ?? '').startsWith('text/html')) {
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        return;
      }
      let html = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (html += chunk));
      answer.on('end', () => {
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers).end(req.method === 'HEAD' ? undefined : scripts.inject(req, html));
      });
    });
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${bound}/`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await inner.close();
    },
  };
}
