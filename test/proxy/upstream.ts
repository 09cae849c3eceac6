/** A small fake service on 127.0.0.1:0 that records exactly what reached it. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly method: string;
  /** The raw request target as sent on the wire. */
  readonly url: string;
  /** Lower-cased header names → values, as received. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export type Responder = (received: Received, res: ServerResponse) => void | Promise<void>;

export interface Upstream {
  readonly url: string;
  readonly received: Received[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** Answers 200 `{"ok":true}` with a `Date` header unless told otherwise. */
const defaultResponder: Responder = (_received, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
};

export async function startUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  let responder = defaultResponder;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: Received = { method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(chunks) };
      received.push(entry);
      void Promise.resolve(responder(entry, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/2025-10-13`,
    received,
    respond(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
