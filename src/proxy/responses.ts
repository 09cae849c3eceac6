/** The proxy's own answers: a JSON error body shaped like the service's (`{code, reason}`). */

/** Codes the proxy answers with by itself, with what each means. The service's own codes pass through unchanged. */
export const PROXY_ERROR_CODES = {
  INVALID_PATH: '400: the path has a dot segment, an encoded slash or backslash, an empty segment, a control or non-ASCII character, or bad percent-encoding.',
  INVALID_HEADER: '400: a forwarded header value holds a control character (CR, LF, NUL, …).',
  INVALID_INPUT: '400: the body is not one JSON value without duplicate keys, or the request names two different ids of one kind.',
  LOGIN_REQUIRED: '401: the ownership check found no signed-in user for the request (`currentUser` answered null).',
  FORBIDDEN: '403: the request names another customer\'s id, names no id that ties it to a customer, or the authorize hook refused it.',
  NOT_FOUND: '404: the method and path are not on the allowlist (or not under the prefix).',
  METHOD_NOT_ALLOWED: '405: only GET, POST, PATCH and DELETE are forwarded.',
  PAYLOAD_TOO_LARGE: '413: the request body is larger than maxBodyBytes.',
  UNSUPPORTED_MEDIA_TYPE: '415: a request with a body must send Content-Type: application/json.',
  INTERNAL_ERROR: '500: the authorize hook or the currentUser resolver threw.',
  UPSTREAM_UNAVAILABLE: '502: the service could not be reached (also for an ownership lookup), or its answer was refused because it held the credentials.',
  UPSTREAM_TIMEOUT: '504: the service did not answer within timeoutMs.',
} as const;

/** A code the proxy answers with by itself (`{ code, reason }`), as listed in {@link PROXY_ERROR_CODES}. */
export type ProxyErrorCode = keyof typeof PROXY_ERROR_CODES;

const STATUS: Record<ProxyErrorCode, number> = {
  INVALID_PATH: 400,
  INVALID_HEADER: 400,
  INVALID_INPUT: 400,
  LOGIN_REQUIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
  UPSTREAM_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
};

/** A failure the proxy answers by itself. `reason` must never hold credentials or raw input beyond a short, escaped excerpt. */
export class ProxyRefusal {
  constructor(
    readonly code: ProxyErrorCode,
    readonly reason: string,
  ) {}
}

export function errorResponse(code: ProxyErrorCode, reason: string): Response {
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
  if (code === 'METHOD_NOT_ALLOWED') headers.set('allow', 'GET, POST, PATCH, DELETE');
  return new Response(JSON.stringify({ code, reason }), { status: STATUS[code], headers });
}
