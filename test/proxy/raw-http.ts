/** Sends exact bytes to a server and reads the whole answer: for request targets no client library would send. */
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

export function rawRequest(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split === -1 ? '' : text.slice(split + 4) });
    });
    // Not end(): a Node server drops a request whose client half-closes before the answer. The
    // requests carry `Connection: close`, so the server closes once it has answered.
    socket.write(bytes, 'latin1');
  });
}
