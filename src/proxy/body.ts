/** Reading the request body as bytes under a size limit, and checking that it is plain JSON. */
import { ProxyRefusal } from './responses.js';
import { duplicateKey } from '../json-duplicate-key.js';

/**
 * Thrown into a request body stream by the Node adapter when the client sends more than the limit;
 * the proxy answers 413 for it. Recognised by name so that two copies of the module agree.
 */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
  }
}

function tooLarge(limit: number): ProxyRefusal {
  return new ProxyRefusal('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes.`);
}

/** The whole body, or a refusal once more than `limit` bytes arrived (reading stops there). */
export async function readBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | ProxyRefusal> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > limit) return tooLarge(limit);
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        reader.cancel().catch(() => undefined);
        return tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'BodyTooLargeError') return tooLarge(limit);
    return new ProxyRefusal('INVALID_INPUT', 'The request body could not be read.');
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** True for `application/json` and `application/<x>+json`, with or without parameters. */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * The parsed body. Refused: invalid UTF-8, invalid JSON, and duplicate keys in any object — a
 * parser upstream might keep the other duplicate than `JSON.parse` does, and the authorize hook
 * must see the values the service will act on.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return new ProxyRefusal('INVALID_INPUT', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new ProxyRefusal('INVALID_INPUT', 'The request body is not valid JSON.');
  }
  if (duplicateKey(text) !== undefined) return new ProxyRefusal('INVALID_INPUT', 'The request body repeats a key in one object.');
  return value;
}
