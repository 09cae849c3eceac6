/**
 * Vitest globalSetup for the browser project: starts a sandbox in Node and, in front of it, a tiny
 * forwarding server that answers CORS preflights and adds the platform's Basic auth (the sandbox
 * speaks no CORS, and a page must never hold platform credentials). Tests read its base URL and the
 * sandbox enclave key with `inject('sandboxUrl')` / `inject('enclavePublicKey')`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startSandbox } from '../../src/sandbox/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `{base_url}` of the forwarding server: `http://127.0.0.1:<port>/2025-10-13`. */
    sandboxUrl: string;
    enclavePublicKey: string;
  }
}

const BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
const HOP_BY_HOP = new Set(['host', 'connection', 'origin', 'referer', 'content-length', 'authorization', 'keep-alive', 'transfer-encoding']);

function corsHeaders(req: IncomingMessage): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': req.headers.origin ?? '*',
    'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? '*',
    'Access-Control-Expose-Headers': 'Date, Retry-After',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function forwarder(origin: string): Server {
  return createServer((req, res) => {
    void (async () => {
      const cors = corsHeaders(req);
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors).end();
        return;
      }
      const body = await readBody(req);
      const headers: Record<string, string> = { Authorization: BASIC };
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
      }
      try {
        const upstream = await fetch(`${origin}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
          redirect: 'manual',
        });
        const out: Record<string, string> = { ...cors };
        upstream.headers.forEach((value, name) => {
          if (name !== 'content-length' && name !== 'content-encoding' && name !== 'connection') out[name] = value;
        });
        const text = Buffer.from(await upstream.arrayBuffer());
        res.writeHead(upstream.status, out).end(text);
      } catch {
        res.writeHead(502, cors).end();
      }
    })();
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The service profile (answers carry only what the service sends): the browser session suite runs
  // against it in every engine; the Node suites run against both profiles (vite.config.ts).
  const sandbox = await startSandbox({ port: 0, log: false, profile: 'service' });
  const sandboxOrigin = new URL(sandbox.url).origin;
  const server = forwarder(sandboxOrigin);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  project.provide('sandboxUrl', `http://127.0.0.1:${port}${new URL(sandbox.url).pathname}`);
  project.provide('enclavePublicKey', sandbox.enclavePublicKey);
  return async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await sandbox.close();
  };
}
