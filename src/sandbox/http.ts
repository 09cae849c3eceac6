/**
 * HTTP plumbing: reading a body with a size limit, splitting the target into path and query,
 * parsing JSON or form bodies, writing replies, and answering malformed requests that Node's
 * parser rejects — always with a JSON error and a proper HTTP response, never a bare reset.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { invalidField, invalidInput, SandboxError } from './errors.js';
import { duplicateKey } from '../json-duplicate-key.js';
import { errorBody, type SandboxProfile } from './profile.js';
import { fromUtf8, parseJson } from './crypto/encoding.js';
import type { Reply } from './context.js';

/** Bodies above this are refused (`413 PAYLOAD_TOO_LARGE`). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Past this many bytes an oversized body is no longer drained: the socket is closed after the answer. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

export interface ReadBody {
  bytes: Buffer;
  /** True when the body exceeded MAX_BODY_BYTES (it was drained and discarded). */
  tooLarge: boolean;
  /** True when the body was so large that draining stopped (the connection must close). */
  abandoned: boolean;
}

/**
 * Reads the whole body. Oversized bodies are drained (so the client can read our answer instead
 * of meeting a reset) up to a hard cap.
 */
export function readBody(req: IncomingMessage): Promise<ReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: ReadBody): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > MAX_DRAIN_BYTES) {
        req.pause();
        finish({ bytes: Buffer.alloc(0), tooLarge: true, abandoned: true });
      }
    });
    req.on('end', () => finish({ bytes: size > MAX_BODY_BYTES ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge: size > MAX_BODY_BYTES, abandoned: false }));
    req.on('error', () => finish({ bytes: Buffer.alloc(0), tooLarge: false, abandoned: true }));
    req.on('aborted', () => finish({ bytes: Buffer.alloc(0), tooLarge: false, abandoned: true }));
  });
}

/** Splits a request target into decoded path segments and the query; 400 on bad percent-encoding. */
export function parseTarget(target: string): { segments: string[]; query: URLSearchParams; rawPath: string } {
  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const rawQuery = q === -1 ? '' : target.slice(q + 1);
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue;
    try {
      segments.push(decodeURIComponent(raw));
    } catch {
      throw invalidInput('The request path has invalid percent-encoding');
    }
  }
  const hashless = rawQuery.split('#')[0] ?? '';
  return { segments, query: new URLSearchParams(hashless), rawPath };
}

/**
 * `Content-Type` of a JSON body: `application/json`, optionally with `charset=utf-8` (decided here,
 * spec §4 "JSON bodies": any other type, a missing one, or another charset → `400 INVALID_INPUT`
 * naming `Content-Type`; a body is never guessed to be JSON).
 */
function isJsonType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => p === '' || p === 'charset=utf-8' || p === 'charset="utf-8"');
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Parses a body into `{ body, text }` (`text` is the body as sent, for byte comparisons): empty →
 * undefined; form routes accept `application/x-www-form-urlencoded`; everything else must be UTF-8
 * JSON sent as `application/json`, without duplicate keys in any object (a body two parsers could
 * read differently is refused: `400 INVALID_INPUT`).
 */
export function parseBody(bytes: Buffer, contentType: string | undefined, formAllowed: boolean): { body: unknown; text: string } {
  if (bytes.length === 0) return { body: undefined, text: '' };
  const text = fromUtf8(bytes);
  if (text === undefined) throw invalidInput('The request body is not valid UTF-8');
  if (formAllowed && mediaType(contentType) === 'application/x-www-form-urlencoded') {
    return { body: Object.fromEntries(new URLSearchParams(text)), text };
  }
  if (!isJsonType(contentType)) {
    throw invalidField('Content-Type', 'FORMAT', `must be application/json${formAllowed ? ' or application/x-www-form-urlencoded' : ''} for a request with a body`);
  }
  if (text.trim() === '') return { body: undefined, text };
  const parsed = parseJson(text);
  if (parsed === undefined) throw invalidInput('The request body is not valid JSON');
  const duplicate = duplicateKey(text);
  if (duplicate !== undefined) throw invalidInput(`The request body has the key ${JSON.stringify(duplicate)} twice in one object`);
  return { body: parsed.value, text };
}

export function payloadTooLarge(): SandboxError {
  return new SandboxError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes`, { limitBytes: MAX_BODY_BYTES });
}

/** Writes a reply; `date` is the sandbox clock's time (the `Date` header clients judge expiry by). */
export function writeReply(res: ServerResponse, reply: Reply, date: Date, close: boolean): void {
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    Date: date.toUTCString(),
    ...reply.headers,
  };
  if (close) headers.Connection = 'close';
  let body = '';
  if ('text' in reply) {
    headers['Content-Type'] = reply.contentType;
    body = reply.text;
  } else if (reply.json !== undefined && reply.status !== 204) {
    headers['Content-Type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(reply.json);
  }
  headers['Content-Length'] = String(Buffer.byteLength(body));
  res.writeHead(reply.status, headers);
  res.end(body);
}

/**
 * Answers requests Node's HTTP parser refuses (garbage request line or headers, headers too large)
 * with a JSON 4xx before closing, instead of the default bare response or reset.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket, profile: SandboxProfile): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    errorBody(
      profile,
      tooLarge ? new SandboxError(431, 'HEADERS_TOO_LARGE', 'The request headers are too large') : new SandboxError(400, 'INVALID_INPUT', 'The request could not be parsed as HTTP'),
    ),
  );
  const text = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
