/** The proxy's own answers: a JSON error body shaped like the service's (`{code, reason}`). */

/** Codes the proxy answers with by itself, with what each means. The service's own codes pass through unchanged. */
export const PROXY_ERROR_CODES = {
  INVALID_PATH: '400: the path has a dot segment, an encoded slash or backslash, an empty segment, a control or non-ASCII character, or bad percent-encoding.',
  INVALID_HEADER: '400: a forwarded header value holds a control character (CR, LF, NUL, …).',
  INVALID_INPUT: '400: the body is not one JSON value without duplicate keys; a query parameter the route does not declare (also a wrong-case spelling) or one given twice; a body field naming an id the route does not declare, or not a string; two different ids of one kind.',
  LOGIN_REQUIRED: '401: the ownership check found no signed-in user for the request (`currentUser` answered null).',
  FORBIDDEN: '403: the request names another customer\'s id (or an account outside the user\'s accountIds), lacks the id that scopes its route, or the authorize hook refused it.',
  OWNER_UNKNOWN: '403: the owner of a looked-up record could not be read (the log line names the owners.<kind> option to set).',
  NOT_FOUND: '404: the method and path are not on the allowlist (or not under the prefix); or no card or delegated key with this id.',
  QUOTE_NOT_FOUND: '404: no quote with this id (ownership lookup).',
  TRANSACTION_NOT_FOUND: '404: no transaction with this id (ownership lookup).',
  AUTH_METHOD_NOT_FOUND: '404: no credential with this id among the user\'s wallets\' credentials (someone else\'s looks the same).',
  SESSION_NOT_FOUND: '404: no active session with this id among the user\'s wallets\' sessions (someone else\'s looks the same).',
  LOGIN_REFUSED: '403: email-first login: the app\'s findCustomer refused this email or phone number.',
  SIGNER_ORIGIN_REQUIRED: '403: frame mode (signerOrigins): the request logs in, refreshes, is a signed leg or is on a route not among appRoutes, and its Origin is not one of the signer origins (src/proxy/signer-origin.ts).',
  METHOD_NOT_ALLOWED: '405: only GET, POST, PATCH and DELETE are forwarded.',
  CONTACT_UNAVAILABLE: '409: the service said another customer holds this email or phone number (any route); without onContactConflict the proxy answers every such conflict with this one answer, a first leg\'s only once the signed retry of its decoy challenge carries a stamp that verifies (S16).',
  PAYLOAD_TOO_LARGE: '413: the request body is larger than maxBodyBytes.',
  UNSUPPORTED_MEDIA_TYPE: '415: a request with a body must send Content-Type: application/json.',
  RATE_LIMITED: '429: email-first login: too many starts or resends for this email or phone number, or from this client address (Retry-After says when to try again).',
  INTERNAL_ERROR: '500: the authorize hook, the currentUser resolver or an owners resolver threw.',
  UPSTREAM_UNAVAILABLE: '502: the service could not be reached (also for an ownership lookup), or its answer was refused because it held the credentials.',
  LOOKUP_FAILED: '502: an ownership lookup answered an unexpected status (the reason names the lookup and the status; 401: check clientId and clientSecret).',
  ANSWER_WITHHELD: '502: the service answered a record that is not the user\'s (or whose owner could not be read), or a list too long to narrow to the user\'s accountIds: the answer was withheld.',
  LOGIN_UNAVAILABLE: '502: email-first login: the login could not be started (the customer, its wallet, its credential or the challenge); one answer for every such failure.',
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
  OWNER_UNKNOWN: 403,
  NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  AUTH_METHOD_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  LOGIN_REFUSED: 403,
  SIGNER_ORIGIN_REQUIRED: 403,
  METHOD_NOT_ALLOWED: 405,
  CONTACT_UNAVAILABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_UNAVAILABLE: 502,
  LOOKUP_FAILED: 502,
  ANSWER_WITHHELD: 502,
  LOGIN_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
};

/** A failure the proxy answers by itself. `reason` must never hold credentials or raw input beyond a short, escaped excerpt. */
export class ProxyRefusal {
  constructor(
    readonly code: ProxyErrorCode,
    readonly reason: string,
    /** For the log line only (e.g. the option to set): never sent to the caller. */
    readonly detail?: string,
  ) {}
}

export function errorResponse(code: ProxyErrorCode, reason: string): Response {
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
  if (code === 'METHOD_NOT_ALLOWED') headers.set('allow', 'GET, POST, PATCH, DELETE');
  return new Response(JSON.stringify({ code, reason }), { status: STATUS[code], headers });
}
