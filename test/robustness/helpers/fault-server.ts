/**
 * An upstream that misbehaves on demand, on 127.0.0.1:0: hangs, stalls mid-body, answers HTML,
 * truncates, resets the connection. `mode` applies to unsigned requests; `signedMode` (default
 * the same) to requests carrying the stamp header, so a fault can hit a signed call's second leg.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultMode =
  | 'ok'
  | 'challenge'
  | 'hang'
  | 'stall-body'
  | 'html-502'
  | 'html-200'
  | 'html-202'
  | 'truncated'
  | 'reset-mid-body'
  | 'reset-before-headers'
  | 'empty-502';

export interface FaultServer {
  readonly url: string;
  mode: FaultMode;
  signedMode: FaultMode | undefined;
  /** Requests received so far. */
  readonly hits: number;
  close(): Promise<void>;
}

const CHALLENGE = JSON.stringify({
  payloadToSign: '{"type":"ACTIVITY_TYPE_UPDATE_INTERNAL_ACCOUNT","requestId":"Request:1"}',
  requestId: 'Request:00000000-0000-4000-8000-000000000001',
  expiresAt: '2099-01-01T00:00:00.000Z',
});

function answer(mode: FaultMode, req: IncomingMessage, res: ServerResponse): void {
  const json = { 'Content-Type': 'application/json', Date: new Date().toUTCString() };
  switch (mode) {
    case 'ok':
      res.writeHead(200, json).end('{"data":[]}');
      return;
    case 'challenge':
      res.writeHead(202, json).end(CHALLENGE);
      return;
    case 'hang':
      return; // never answers; the socket stays open until the client gives up
    case 'stall-body':
      res.writeHead(200, json);
      res.write('{"data":[');
      return; // headers and half a body, then nothing
    case 'html-502':
      res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    case 'html-200':
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Maintenance</title>');
      return;
    case 'html-202':
      res.writeHead(202, { 'Content-Type': 'text/html' }).end('<html>Accepted</html>');
      return;
    case 'truncated':
      res.writeHead(200, { ...json, 'Content-Length': '200' });
      // Reset once the partial body has been handed to the network.
      res.write('{"data":[{"id":"Session:1"', () => req.socket.destroy());
      return;
    case 'reset-mid-body':
      res.writeHead(200, json); // chunked
      res.write('{"data":[', () => req.socket.destroy());
      return;
    case 'reset-before-headers':
      req.socket.destroy();
      return;
    case 'empty-502':
      res.writeHead(502).end();
      return;
  }
}

export async function startFaultServer(mode: FaultMode = 'ok'): Promise<FaultServer> {
  let hits = 0;
  const state = { mode, signedMode: undefined as FaultMode | undefined };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      const signed = req.headers['service-wallet-signature'] !== undefined;
      answer(signed ? (state.signedMode ?? state.mode) : state.mode, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/2025-10-13`,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    get signedMode() {
      return state.signedMode;
    },
    set signedMode(m) {
      state.signedMode = m;
    },
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port that was just free). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/2025-10-13`;
}
