/** Small helpers for the demo backend's own JSON routes (Node http). */
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_DEMO_BODY = 16 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    reason: string,
    readonly details?: unknown,
  ) {
    super(reason);
  }
}

/** Reads a small JSON object body (`{}` when empty). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_DEMO_BODY) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'INVALID_INPUT', 'The body must be JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, 'INVALID_INPUT', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(res, error.status, error.details !== undefined ? { code: error.code, reason: error.message, details: error.details } : { code: error.code, reason: error.message });
}

/** A required, trimmed, non-empty string field of at most `max` characters. */
export function stringField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new HttpError(400, 'INVALID_INPUT', `${name} is required.`, { errors: [{ field: name, constraint: 'REQUIRED', message: 'is required' }] });
  }
  if (value.length > max) throw new HttpError(400, 'INVALID_INPUT', `${name} is too long.`, { errors: [{ field: name, constraint: 'LENGTH', message: `must be at most ${max} characters` }] });
  return value.trim();
}
