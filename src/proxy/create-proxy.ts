/** The fetch-standard proxy handler. */
import { isJsonContentType, parseJsonBody, readBody } from './body.js';
import { downstreamHeaders, upstreamHeaders } from './headers.js';
import type { CurrentUser } from './ownership.js';
import { signedInUser } from './current-user.js';
import { resolveOptions, type ProxyConfig } from './options.js';
import { matchRoute, ruleKey, type CompiledRule } from './routes.js';
import { checkErrorAnswer } from './error-answer.js';
import { applyCustomerFilter, checkAnswer, narrowedCustomerWrite, scopeRequest, type Ids } from './scope.js';
import type { Checked } from './ownership.js';
import { CONTACT_ROUTES, contactConflict, decoyRetry, isFirstLeg } from './contact.js';
import { canonicalSegments, encodeSegments, printable, stripPrefix } from './path.js';
import { narrowedList } from './narrowed-list.js';
import { originRefusal } from './signer-origin.js';
import { DETAILS_WITHHELD, refuse, type Outcome } from './outcome.js';
import { ProxyRefusal, type ProxyErrorCode } from './responses.js';
import type { AuthorizeContext, ProxyHandler, ProxyMethod, ProxyOptions } from './types.js';

const METHODS: readonly string[] = ['GET', 'POST', 'PATCH', 'DELETE'];

/**
 * Internal: lets the Node adapter answer a request it refused before a `Request` could be built
 * (a raw path with `..`, an oversize upload…) through the proxy, so that it is logged like any other.
 */
export const REFUSE = Symbol.for('embedded-wallet-signer.proxy.refuse');
export type RefuseFunction = (method: string, rawPath: string, code: ProxyErrorCode, reason: string) => Response;
/** Statuses whose response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * Creates the proxy: a `(request: Request) => Promise<Response>` handler for any runtime with
 * fetch (Node ≥ 20, edge runtimes, Next.js route handlers). It never throws: every failure is a
 * JSON error response (see `PROXY_ERROR_CODES`). Throws `WalletError INVALID_ARGUMENT` at creation
 * for bad options.
 */
export function createProxy(options: ProxyOptions): ProxyHandler {
  const config = resolveOptions(options);
  const handler = async (request: Request): Promise<Response> => {
    const started = Date.now();
    const method = typeof request?.method === 'string' ? request.method.toUpperCase() : '-';
    let outcome: Outcome;
    try {
      outcome = await run(request, method, config);
    } catch {
      // Nothing above is expected to throw; answer without details rather than leak any.
      outcome = refuse(new ProxyRefusal('INTERNAL_ERROR', 'The proxy failed to handle the request.'), '-');
    }
    log(config, printable(method), outcome, Date.now() - started);
    return outcome.response;
  };
  const refuseRaw: RefuseFunction = (method, rawPath, code, reason) => {
    const outcome = refuse(new ProxyRefusal(code, reason), printable(rawPath));
    log(config, printable(method), outcome, 0);
    return outcome.response;
  };
  return Object.defineProperties(handler, {
    prefix: { value: config.prefix, enumerable: true },
    maxBodyBytes: { value: config.maxBodyBytes, enumerable: true },
    [REFUSE]: { value: refuseRaw },
  }) as ProxyHandler;
}

function log(config: ProxyConfig, method: string, outcome: Outcome, ms: number): void {
  if (config.logger === undefined) return;
  const { path, code, detail } = outcome;
  const status = outcome.response.status;
  const line = `proxy ${method} ${path} ${status} ${ms}ms${code === undefined ? '' : ' ' + code}${detail === undefined ? '' : ` (${detail})`}`;
  try {
    config.logger(line, { method, path, status, ms, ...(code === undefined ? {} : { code }), ...(detail === undefined ? {} : { detail }) });
  } catch {
    // A failing logger must not turn an answered request into a failure.
  }
}

async function run(request: Request, method: string, config: ProxyConfig): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return refuse(new ProxyRefusal('INVALID_PATH', 'The request URL cannot be parsed.'), '-');
  }
  if (!METHODS.includes(method)) {
    return refuse(new ProxyRefusal('METHOD_NOT_ALLOWED', 'Only GET, POST, PATCH and DELETE are forwarded.'), printable(url.pathname));
  }
  const segments = canonicalSegments(url.pathname);
  if (segments instanceof ProxyRefusal) return refuse(segments, printable(url.pathname));
  const relative = stripPrefix(segments, config.prefixSegments);
  const fullPath = encodeSegments(segments);
  if (relative === undefined) return refuse(new ProxyRefusal('NOT_FOUND', 'No such route.'), fullPath);
  const path = encodeSegments(relative);
  const match = matchRoute(config.rules, method, relative);
  if (match === undefined) return refuse(new ProxyRefusal('NOT_FOUND', `No route for ${method} ${path}.`), path);
  // P5 (signer-origin.ts): in frame mode only the signer frame logs in, refreshes or signs.
  const foreign = originRefusal(config.signerOrigin, ruleKey(match.rule), request.headers);
  if (foreign !== undefined) return refuse(foreign, path);

  const headers = upstreamHeaders(request.headers, config.forwarded, config.authorization);
  if (headers instanceof ProxyRefusal) return refuse(headers, path);

  let bytes = new Uint8Array(0);
  let body: unknown;
  if (method !== 'GET') {
    const read = await readBody(request, config.maxBodyBytes);
    if (read instanceof ProxyRefusal) return refuse(read, path);
    bytes = read;
  }
  if (bytes.byteLength > 0) {
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return refuse(new ProxyRefusal('UNSUPPORTED_MEDIA_TYPE', 'A request body must be sent as application/json.'), path);
    }
    body = parseJsonBody(bytes);
    if (body instanceof ProxyRefusal) return refuse(body, path);
  }

  // S1, S3: only declared query parameters; only declared id fields; one value per id kind.
  let scoped = scopeRequest(match.rule, match.params, url.searchParams, body);
  if (scoped instanceof ProxyRefusal) return refuse(scoped, path);
  let user: CurrentUser | undefined;
  let checked: Checked = {};
  if (config.checked) {
    if (config.currentUser !== undefined) {
      const found = await signedInUser(request, config);
      if (found instanceof ProxyRefusal) return refuse(found, path);
      user = found;
    }
    // S2: a customer-filtered list is forwarded with the filter set to the user's customer.
    scoped = applyCustomerFilter(match.rule, scoped, user);
    if (user !== undefined && config.ownership !== undefined) {
      // S12: a narrowed user writes only through their accounts.
      const readOnly = narrowedCustomerWrite(method, scoped.ids, user);
      if (readOnly !== undefined) return refuse(readOnly, path);
      try {
        checked = await config.ownership.checkIds(user, scoped.ids);
      } catch (e) {
        return refuse(e instanceof ProxyRefusal ? e : new ProxyRefusal('INTERNAL_ERROR', 'The ownership check failed.'), path);
      }
    }
    if (config.authorize !== undefined) {
      const context: AuthorizeContext = {
        method: method as ProxyMethod,
        path,
        pattern: match.rule.pattern,
        params: Object.freeze({ ...match.params }),
        query: new URLSearchParams(scoped.query),
        ...scoped.ids,
        ...(body === undefined ? {} : { body }),
      };
      let verdict: boolean | Response;
      try {
        verdict = await config.authorize(request, context);
      } catch {
        return refuse(new ProxyRefusal('INTERNAL_ERROR', 'The authorization check failed.'), path);
      }
      if (isResponse(verdict)) return { response: verdict, path };
      if (verdict !== true) return refuse(new ProxyRefusal('FORBIDDEN', 'This request is not allowed for the current user.'), path);
    }
    // Deny by default: a call without the id that scopes its route would act on (or list) the
    // whole platform, whatever the rules above said.
    if (!scoped.named && !config.unscoped.has(ruleKey(match.rule))) {
      return refuse(new ProxyRefusal('FORBIDDEN', 'The request names no customer, account or other id to check it against.'), path);
    }
    // S6: one customer's keys never meet another's on the service.
    const key = headers.get('idempotency-key');
    if (user !== undefined && key !== null) headers.set('idempotency-key', await config.idempotencyKey(user, key));
    // The rate-limit hook of the routes that can answer a contact conflict (contact.ts).
    if (user !== undefined && config.contactRateLimit !== undefined && CONTACT_ROUTES.has(ruleKey(match.rule))) {
      let limited: Response | undefined;
      try {
        limited = await config.contactRateLimit(request, { customerId: user.customerId, method: match.rule.method, pattern: match.rule.pattern });
      } catch {
        return refuse(new ProxyRefusal('INTERNAL_ERROR', 'The contactRateLimit hook failed.'), path);
      }
      if (limited !== undefined) return { response: limited, path };
    }
    // S16: the signed retry of a decoy challenge is the proxy's own to answer (contact-decoy.ts).
    if (user !== undefined) {
      const answered = await decoyRetry(request.headers, config, { customerId: user.customerId, method, path, body: bytes, route: ruleKey(match.rule) });
      if (answered !== undefined) return { ...answered, path };
    }
  }

  const outcome =
    user?.accountIds !== undefined && config.ownership !== undefined && match.rule.list && match.rule.answer !== undefined
      ? await narrowedList(path, scoped.query, match.rule, (query) => forward(request, 'GET', config, target(config, path, query), headers, new Uint8Array(0), path, user, match.rule, scoped.ids, checked))
      : await forward(request, method, config, target(config, path, scoped.query), headers, bytes, path, user, match.rule, scoped.ids, checked);
  // S15: a contact conflict from any route is answered by the hook (or the one default answer).
  if (user !== undefined && (outcome.code === undefined || outcome.code === DETAILS_WITHHELD)) {
    // S16: a first leg (neither signature header) gets the decoy challenge instead of the default 409.
    const decoy = isFirstLeg(request.headers, config) ? () => config.decoys.issue({ customerId: user.customerId, method, path, body: bytes, route: ruleKey(match.rule) }, outcome.response.headers.get('date')) : undefined;
    return contactConflict(request, config.onContactConflict, match.rule, outcome, user, decoy);
  }
  return outcome;
}

/** The service URL of a call; ids keep a literal colon, as in paths (path.ts). */
function target(config: ProxyConfig, path: string, query: URLSearchParams): string {
  const search = [...query].map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v).replace(/%3A/g, ':')}`).join('&');
  return `${config.baseUrl}${path}${search === '' ? '' : '?' + search}`;
}

async function forward(
  request: Request,
  method: string,
  config: ProxyConfig,
  target: string,
  headers: Headers,
  bytes: Uint8Array<ArrayBuffer>,
  path: string,
  user: CurrentUser | undefined,
  rule: CompiledRule,
  named: Ids,
  requestChecked: Checked,
): Promise<Outcome> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Rejects at the deadline even if an injected fetch ignores the abort signal.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      reject(new Error('timeout'));
    }, config.timeoutMs);
  });
  deadline.catch(() => undefined);
  // The caller went away: stop waiting for the service.
  const onAbort = (): void => controller.abort();
  const callerSignal = request.signal as AbortSignal | undefined;
  if (callerSignal?.aborted) controller.abort();
  else callerSignal?.addEventListener('abort', onAbort, { once: true });
  let upstream: Response;
  let payload: Uint8Array<ArrayBuffer>;
  try {
    const exchange = (async () => {
      const answer = await config.fetch(target, {
        method,
        headers,
        // The caller's bytes exactly as received: never re-serialised (the signed retry compares them).
        ...(bytes.byteLength > 0 ? { body: bytes } : {}),
        // A redirect would carry the credentials elsewhere; the 3xx goes back to the caller instead.
        redirect: 'manual',
        signal: controller.signal,
      });
      return { answer, body: new Uint8Array(await answer.arrayBuffer()) };
    })();
    exchange.catch(() => undefined);
    const done = await Promise.race([exchange, deadline]);
    upstream = done.answer;
    payload = done.body;
  } catch {
    // The error's message is not passed on: it may name the upstream URL or echo internals.
    if (timedOut) return refuse(new ProxyRefusal('UPSTREAM_TIMEOUT', `The service did not answer within ${config.timeoutMs} ms.`), path);
    return refuse(new ProxyRefusal('UPSTREAM_UNAVAILABLE', 'The service could not be reached.'), path);
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onAbort);
  }

  const passed = downstreamHeaders(upstream.headers);
  if (leaksSecret(config, payload, passed)) {
    return refuse(new ProxyRefusal('UPSTREAM_UNAVAILABLE', 'The service answer was withheld because it contained the platform credentials.'), path);
  }
  const status = upstream.status;
  if (status < 200 || status > 599) {
    return refuse(new ProxyRefusal('UPSTREAM_UNAVAILABLE', 'The service answered with an unusable status.'), path);
  }
  // S4, S7: every record of the answer is the user's.
  if (user !== undefined && config.ownership !== undefined) {
    let checked: Uint8Array<ArrayBuffer> | ProxyRefusal;
    try {
      checked = await checkAnswer(rule, status, payload, user, config.ownership, requestChecked);
    } catch (e) {
      checked = e instanceof ProxyRefusal ? e : new ProxyRefusal('INTERNAL_ERROR', 'The answer check failed.');
    }
    if (checked instanceof ProxyRefusal) return refuse(checked, path);
    payload = checked;
  }
  // S9: an error answer names only the user's ids.
  let redacted = false;
  if (user !== undefined && config.ownership !== undefined && status >= 400 && status <= 499) {
    try {
      ({ payload, redacted } = await checkErrorAnswer(status, payload, user, named, config.ownership));
    } catch {
      return refuse(new ProxyRefusal('INTERNAL_ERROR', 'The answer check failed.'), path);
    }
  }
  // S16: challenges and signed-retry refusals are re-made alike (contact-decoy.ts).
  const alike = config.decoys.alike(status, payload, ruleKey(rule), upstream.headers.get('date'));
  if (alike !== undefined) return { response: alike, path };
  // The reason phrase is not passed on: the runtime's standard one is used (one less echo channel).
  const response = new Response(NULL_BODY.has(status) ? null : payload, { status, headers: passed });
  return redacted ? { response, path, code: DETAILS_WITHHELD, detail: 'ids not the user\'s removed from the error answer' } : { response, path };
}

/** A Response, also one built by another copy of the fetch classes (a bundled polyfill, another realm). */
function isResponse(value: unknown): value is Response {
  if (value instanceof Response) return true;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { status?: unknown; headers?: unknown; arrayBuffer?: unknown };
  return typeof candidate.status === 'number' && typeof candidate.headers === 'object' && typeof candidate.arrayBuffer === 'function';
}

/** True when the answer holds the credentials (a service that echoes request headers, a debug page…). */
function leaksSecret(config: ProxyConfig, payload: Uint8Array, headers: Headers): boolean {
  const encoder = new TextEncoder();
  const headerBytes = encoder.encode([...headers.values()].join('\n'));
  return config.secrets.some((secret) => includes(payload, secret) || includes(headerBytes, secret));
}

function includes(haystack: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  if (first === undefined) return false;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}
