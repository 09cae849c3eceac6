/**
 * CORS for the signer frame (frame mode): the signer page, on an origin of its own, calls the
 * app's proxy with the user's app cookie. `withCors(proxy, { origins })` answers the preflight and
 * adds `Access-Control-Allow-Origin` (the caller's origin, never `*`) with credentials for exactly
 * the configured origins; a request from any other origin is passed on untouched, without CORS
 * headers (the browser then keeps its answer from that page). Deny by default: no origin is
 * allowed unless named. `Date` and `Retry-After` are exposed: the library reads the service's clock
 * and the rate-limit pause from them.
 */
import { invalidArgument } from '../errors.js';
import { DEFAULT_SIGNATURE_HEADER } from './headers.js';
import { checkOrigin } from './signer-origin.js';
import type { FetchHandler } from './node.js';

/** Options of {@link withCors}. */
export interface CorsOptions {
  /** The signer origins allowed to call with credentials, e.g. `['https://signer.app.example']`. */
  readonly origins: readonly string[];
  /** The signature header's name, if the proxy renames it. */
  readonly signatureHeader?: string;
  /** How long a browser may keep a preflight's answer; default 600 s. */
  readonly maxAgeSeconds?: number;
}

/**
 * The proxy `handler` answering CORS for the signer origins in `options.origins`, with credentials
 * (see this module's comment); any other origin's request passes untouched, without CORS headers.
 */
export function withCors<H extends FetchHandler>(handler: H, options: CorsOptions): FetchHandler {
  if (typeof options !== 'object' || options === null || !Array.isArray(options.origins) || options.origins.length === 0) throw invalidArgument('cors.origins', 'a non-empty array of origins');
  const allowed = new Set(options.origins.map((origin) => checkOrigin(origin, 'cors.origins')));
  const requestHeaders = [options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER, 'Content-Type', 'Request-Id', 'Idempotency-Key'].join(', ');
  const maxAge = String(options.maxAgeSeconds ?? 600);
  const allowedOrigin = (request: Request): string | undefined => {
    const origin = request.headers.get('origin');
    return origin !== null && allowed.has(origin) ? origin : undefined;
  };
  const wrapped = async (request: Request): Promise<Response> => {
    const origin = allowedOrigin(request);
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      if (origin === undefined) return new Response(null, { status: 403, headers: { Vary: 'Origin' } });
      return new Response(null, {
        status: 204,
        headers: {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Credentials': 'true',
          'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
          'Access-Control-Allow-Headers': requestHeaders,
          'Access-Control-Max-Age': maxAge,
          Vary: 'Origin',
        },
      });
    }
    const response = await handler(request);
    if (origin === undefined) return response;
    const headers = new Headers(response.headers);
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Credentials', 'true');
    headers.set('Access-Control-Expose-Headers', 'Date, Retry-After');
    headers.append('Vary', 'Origin');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  return Object.assign(wrapped, {
    ...(handler.prefix !== undefined ? { prefix: handler.prefix } : {}),
    ...(handler.maxBodyBytes !== undefined ? { maxBodyBytes: handler.maxBodyBytes } : {}),
  });
}
