/**
 * Node adapter: `http.createServer(toNodeHandler(proxy))`, or `app.use(nodeMiddleware(proxy))`
 * for Express, Connect and Vite's dev server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidArgument } from '../errors.js';
import { BodyTooLargeError } from './body.js';
import { REFUSE, type RefuseFunction } from './create-proxy.js';
import { DEFAULT_MAX_BODY_BYTES } from './options.js';
import { canonicalSegments } from './path.js';
import { errorResponse, ProxyRefusal, type ProxyErrorCode } from './responses.js';

/** Any fetch-standard handler; `createProxy`'s also carries its prefix and body limit. */
export type FetchHandler = ((request: Request) => Response | Promise<Response>) & {
  readonly prefix?: string;
  readonly maxBodyBytes?: number;
};

/** Options of {@link toNodeHandler} and {@link nodeMiddleware}. */
export interface NodeAdapterOptions {
  /**
   * `nodeMiddleware` only: requests whose path is not under this prefix go to `next()`.
   * Default: the proxy's own `prefix` (so `createProxy({ prefix: '/api' })` needs it once).
   */
  readonly prefix?: string;
  /**
   * Largest request body read from the socket; more is refused with 413 while it streams in.
   * Default: the proxy's `maxBodyBytes`, else 1 MiB.
   */
  readonly maxBodyBytes?: number;
}

/** A request listener of `http.createServer` (what {@link toNodeHandler} returns). */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void;
/** An Express/Connect middleware (what {@link nodeMiddleware} returns). */
export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

const BODYLESS = new Set(['GET', 'HEAD']);
const NULL_BODY = new Set([204, 304]);

/** A listener for `http.createServer` / `https.createServer` that answers every request with `handler`. */
export function toNodeHandler(handler: FetchHandler, options: NodeAdapterOptions = {}): NodeRequestListener {
  const limit = resolveLimit(handler, options);
  return (req, res) => {
    void serve(handler, req, res, limit);
  };
}

/**
 * Express/Connect-style middleware. It takes requests under `prefix` (matched on the original URL,
 * so it works mounted or not) and passes the others to `next()`; without `next` it answers 404.
 * The full original URL reaches the handler: give `createProxy` the same `prefix`.
 */
export function nodeMiddleware(handler: FetchHandler, options: NodeAdapterOptions = {}): NodeMiddleware {
  const limit = resolveLimit(handler, options);
  const prefix = options.prefix ?? handler.prefix ?? '';
  if (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/'))) throw invalidArgument('prefix', 'a path such as /api');
  const base = prefix.replace(/\/+$/, '');
  return (req, res, next) => {
    const path = pathOf(targetOf(req));
    if (base === '' || path === base || path.startsWith(base + '/')) {
      void serve(handler, req, res, limit);
    } else if (next) {
      next();
    } else {
      void send(res, errorResponse('NOT_FOUND', 'No such route.'), false);
    }
  };
}

function resolveLimit(handler: FetchHandler, options: NodeAdapterOptions): number {
  if (typeof handler !== 'function') throw invalidArgument('handler', 'a function (request: Request) => Promise<Response>');
  const limit = options.maxBodyBytes ?? handler.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw invalidArgument('maxBodyBytes', 'a positive integer');
  return limit;
}

function targetOf(req: IncomingMessage): string {
  // Express and Connect strip a mount path from req.url and keep the full one in originalUrl.
  const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  return typeof original === 'string' ? original : (req.url ?? '/');
}

function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

function refusal(handler: FetchHandler, method: string, rawPath: string, code: ProxyErrorCode, reason: string): Response {
  const own = (handler as FetchHandler & { [REFUSE]?: RefuseFunction })[REFUSE];
  return typeof own === 'function' ? own(method, rawPath, code, reason) : errorResponse(code, reason);
}

async function serve(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, limit: number): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const target = targetOf(req);
  const rawPath = pathOf(target);
  // The raw target, before the URL parser could resolve `..` or turn `\` into `/`.
  const checked = target.startsWith('/') ? canonicalSegments(rawPath) : new ProxyRefusal('INVALID_PATH', 'The request target must be a path.');
  if (checked instanceof ProxyRefusal) {
    await send(res, refusal(handler, method, rawPath, checked.code, checked.reason), !req.complete);
    return;
  }

  const headers = new Headers();
  try {
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  } catch {
    await send(res, refusal(handler, method, rawPath, 'INVALID_HEADER', 'A request header is malformed.'), !req.complete);
    return;
  }

  // A body parser mounted before the proxy (express.json(), …) has read the body already: its exact
  // bytes are gone, and forwarding an empty or re-serialised body would break the signed retry.
  if (!BODYLESS.has(method) && ((req as IncomingMessage & { _body?: unknown })._body === true || req.readableEnded)) {
    await send(res, refusal(handler, method, rawPath, 'INTERNAL_ERROR', 'The request body was already read by another middleware: mount the proxy before body parsers such as express.json().'), false);
    return;
  }

  const aborter = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborter.abort();
  });

  let request: Request;
  try {
    request = new Request(new URL(target, originOf(req)), {
      method,
      headers,
      signal: aborter.signal,
      ...(BODYLESS.has(method) ? {} : { body: bodyStream(req, limit), duplex: 'half' }),
    } as RequestInit);
  } catch {
    const known = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'].includes(method);
    const code: ProxyErrorCode = known ? 'INVALID_PATH' : 'METHOD_NOT_ALLOWED';
    await send(res, refusal(handler, method, rawPath, code, known ? 'The request cannot be read.' : 'Only GET, POST, PATCH and DELETE are forwarded.'), !req.complete);
    return;
  }

  let response: Response;
  try {
    response = await handler(request);
  } catch {
    response = errorResponse('INTERNAL_ERROR', 'The request handler failed.');
  }
  // A body left unread (refused early, or oversize) cannot be skipped safely on a kept-alive
  // connection: close it after answering instead of draining an upload of any size.
  await send(res, response, !req.readableEnded && !req.complete);
}

function originOf(req: IncomingMessage): string {
  const host = req.headers.host;
  const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  return typeof host === 'string' && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${scheme}://${host}` : `${scheme}://localhost`;
}

/** The request body as a pull stream that errors with `BodyTooLargeError` past `limit` bytes. */
function bodyStream(req: IncomingMessage, limit: number): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await chunks.next();
        if (done) {
          controller.close();
          return;
        }
        received += value.byteLength;
        if (received > limit) {
          controller.error(new BodyTooLargeError(limit));
          return;
        }
        controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      } catch (error) {
        controller.error(error);
      }
    },
    // Cancelling leaves the rest unread; `send` then closes the connection.
  });
}

async function send(res: ServerResponse, response: Response, closeAfter: boolean): Promise<void> {
  let body: Uint8Array;
  try {
    // Answers are small JSON documents already in memory; sending them with a length keeps the
    // framing simple and the connection reusable.
    body = response.body === null ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
  } catch {
    res.destroy();
    return;
  }
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  res.statusCode = response.status;
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') res.setHeader(name, value);
  });
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (closeAfter) res.setHeader('connection', 'close');
  if (!NULL_BODY.has(response.status)) res.setHeader('content-length', body.byteLength);
  res.end(body);
}
