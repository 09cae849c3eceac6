/**
 * A small Node server for the signer page in development and tests: the built page (a directory,
 * see scripts/signer-page.mjs), its `signer-config.json` from `config`, every answer with the
 * headers of headers.ts. Only the page's own files are served (no directory listing, no path out
 * of `dir`).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { signerPageHeaders, type SignerHostConfig } from './headers.js';

/** Options of {@link serveSignerPage}. */
export interface SignerPageServerOptions {
  /** The built page's directory. */
  readonly dir: string;
  /** The host configuration served as signer-config.json. */
  readonly config: SignerHostConfig;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The host name in the returned URL; default `localhost`. */
  readonly publicHost?: string;
  /** Adjusts the headers of headers.ts (e.g. a host's own CSP additions); default: as they are. */
  readonly headers?: (recommended: Record<string, string>) => Record<string, string>;
}

/** A running signer page server. */
export interface SignerPageServer {
  /** `http://<publicHost>:<port>/`: the signer page's URL (its origin is the signer origin). */
  readonly url: string;
  /** Stops the server. */
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves the built page in `options.dir` with its configuration and headers; resolves once it listens. */
export async function serveSignerPage(options: SignerPageServerOptions): Promise<SignerPageServer> {
  const recommended = signerPageHeaders(options.config);
  const headers = options.headers ? options.headers(recommended) : recommended;
  const configBody = JSON.stringify(options.config);
  const root = normalize(options.dir + sep);
  const server = createServer((req, res) => {
    void (async () => {
      let path: string;
      try {
        path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
      } catch {
        // A malformed escape (`/%`): a bad request, never an unhandled rejection that stops the server.
        res.writeHead(400, headers).end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      if (path === '/signer-config.json') {
        res.writeHead(200, { ...headers, 'Content-Type': TYPES['.json'] as string, 'Cache-Control': 'no-store' }).end(configBody);
        return;
      }
      const file = normalize(join(root, path === '/' ? 'index.html' : path));
      const type = TYPES[extname(file)];
      if (!file.startsWith(root) || type === undefined) {
        res.writeHead(404, headers).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, { ...headers, 'Content-Type': type, 'Cache-Control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : body);
      } catch {
        res.writeHead(404, headers).end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.publicHost ?? 'localhost'}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
