/**
 * A small HTTP server for transport tests (127.0.0.1, free port): records the raw bytes of every
 * request and answers from a handler. Also a fake signed-retry service that verifies stamps with
 * node:crypto (independently of our crypto code).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createPublicKey, ECDH, randomUUID, verify } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status: number;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no Date header. */
  noDate?: boolean;
}

export interface FakeServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export type Handler = (req: Received, index: number) => Reply | Promise<Reply>;

function send(res: ServerResponse, reply: Reply): void {
  if (reply.noDate) res.sendDate = false;
  const headers = { ...reply.headers };
  let text = '';
  if (reply.body !== undefined) {
    text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    if (typeof reply.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
  }
  res.writeHead(reply.status, headers);
  res.end(text);
}

export async function startFakeServer(handler: Handler): Promise<FakeServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      void (async () => {
        try {
          const reply = await handler(entry, received.length - 1);
          if (!res.destroyed) send(res, reply);
        } catch (error) {
          if (!res.destroyed) send(res, { status: 500, body: { code: 'TEST_HANDLER_FAILED', reason: String(error) } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/2025-10-13`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

const SPKI_P256_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');

/** Verifies a stamp header over `payload` with node:crypto; returns the stamp's compressed public key. */
export function verifyStampWithNode(header: string, payload: string): { ok: boolean; publicKey: string } {
  const stamp = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { publicKey: string; scheme: string; signature: string };
  if (stamp.scheme !== 'SIGNATURE_SCHEME_TK_API_P256') return { ok: false, publicKey: stamp.publicKey };
  const point = Buffer.from(ECDH.convertKey(stamp.publicKey, 'prime256v1', 'hex', 'hex', 'uncompressed') as string, 'hex');
  const key = createPublicKey({ key: Buffer.concat([SPKI_P256_PREFIX, point]), format: 'der', type: 'spki' });
  const ok = verify('sha256', Buffer.from(payload, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(stamp.signature, 'hex'));
  return { ok, publicKey: stamp.publicKey };
}

export interface SignedServiceOptions {
  /** 2 (one challenge), 3 (two challenges, delegated-key creation), or more (a server asking for more than the action needs). Default 2. */
  legs?: number;
  /** The server's clock; default Date.now. Sent in the Date header; expiresAt is on this clock. */
  serverNow?: () => number;
  /** Challenge lifetime on the server clock; default 5 minutes. A function gets the challenge number (0-based). */
  ttlMs?: number | ((challengeIndex: number) => number);
  /** Answers before the normal logic, e.g. a PROCESSING or a 429 for a given request index. */
  intercept?: (req: Received, index: number) => Reply | undefined;
  /** Final answer; default 200 with an InternalAccount-like object. */
  final?: Reply;
  noDate?: boolean;
  signatureHeader?: string;
}

export interface SignedService {
  handler: Handler;
  /** Challenges issued, in order. */
  challenges: Array<{ requestId: string; payloadToSign: string; expiresAt: string }>;
  /** Verification results of every stamp received, in order. */
  stamps: Array<{ ok: boolean; publicKey: string; requestId: string | undefined }>;
}

/**
 * A service that runs the signed retry like the wire reference says: 202 challenges, single-use
 * request ids, body must match the first leg's bytes, stamp verified with node:crypto, same key on
 * every leg.
 */
export function signedService(options: SignedServiceOptions = {}): SignedService {
  const legs = options.legs ?? 2;
  const serverNow = options.serverNow ?? Date.now;
  const header = (options.signatureHeader ?? 'Service-Wallet-Signature').toLowerCase();
  const challenges: SignedService['challenges'] = [];
  const stamps: SignedService['stamps'] = [];
  const open = new Map<string, { payloadToSign: string; body: Buffer; step: number; expiresAtMs: number; key?: string }>();
  const date = (): Record<string, string> => (options.noDate ? {} : { Date: new Date(serverNow()).toUTCString() });
  const reply = (r: Reply): Reply => ({ ...r, headers: { ...date(), ...r.headers }, noDate: true });

  const issue = (body: Buffer, step: number, key?: string): Reply => {
    const requestId = `Request:${randomUUID()}`;
    const ttl = typeof options.ttlMs === 'function' ? options.ttlMs(challenges.length) : (options.ttlMs ?? 5 * 60_000);
    const expiresAtMs = serverNow() + ttl;
    const payloadToSign = JSON.stringify({ requestId, step, body: body.toString('utf8'), nonce: randomUUID() });
    const expiresAt = new Date(expiresAtMs).toISOString();
    const entry: { payloadToSign: string; body: Buffer; step: number; expiresAtMs: number; key?: string } = { payloadToSign, body, step, expiresAtMs };
    if (key !== undefined) entry.key = key;
    open.set(requestId, entry);
    challenges.push({ requestId, payloadToSign, expiresAt });
    return reply({ status: 202, body: { payloadToSign, requestId, expiresAt } });
  };

  const handler: Handler = (req, index) => {
    const intercepted = options.intercept?.(req, index);
    if (intercepted) return reply(intercepted);
    const signature = req.headers[header];
    const requestIdHeader = req.headers['request-id'];
    if (typeof signature !== 'string') return issue(req.body, 1);
    if (typeof requestIdHeader !== 'string') return reply({ status: 401, body: { code: 'REQUEST_ID_MISSING', reason: 'Request-Id required' } });
    const challenge = open.get(requestIdHeader);
    if (!challenge) return reply({ status: 404, body: { code: 'REQUEST_NOT_FOUND', reason: 'unknown or used request id' } });
    if (serverNow() > challenge.expiresAtMs) return reply({ status: 401, body: { code: 'UNAUTHORIZED', reason: 'challenge expired' } });
    if (!challenge.body.equals(req.body)) return reply({ status: 401, body: { code: 'WALLET_SIGNATURE_BODY_MISMATCH', reason: 'body differs' } });
    const checked = verifyStampWithNode(signature, challenge.payloadToSign);
    stamps.push({ ...checked, requestId: requestIdHeader });
    if (!checked.ok || (challenge.key !== undefined && challenge.key !== checked.publicKey)) {
      return reply({ status: 401, body: { code: 'WALLET_SIGNATURE_INVALID', reason: 'bad signature' } });
    }
    open.delete(requestIdHeader);
    if (challenge.step < legs - 1) return issue(req.body, challenge.step + 1, checked.publicKey);
    return reply(options.final ?? { status: 200, body: { id: 'InternalAccount:1', privateEnabled: true } });
  };
  return { handler, challenges, stamps };
}
