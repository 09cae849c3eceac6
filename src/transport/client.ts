/** `createClient`: JSON calls and signed-retry calls against the service (or the proxy in front of it). */
import { WalletError, invalidArgument } from '../errors.js';
import { loadOnFirstUse } from '../load-on-first-use.js';
import { DEFAULT_SIGNATURE_HEADER, isHeaderValue } from './headers.js';
import type { ClientConfig, PreparedCall } from './http.js';
import type { Client, ClientOptions, HttpMethod, QueryValue, RequestOptions, SignedRequestOptions } from './types.js';

// What sends a call (./calls.ts: the exchange, the answer's parsing, the signed-retry engine) is
// loaded at the first call (a login, an action, a refresh, a session listing, an end): restoring the
// sessions kept here sends none. A call's options are checked before the load, so a bad call fails
// the same way loaded or not; a failed load is NETWORK_ERROR, as the call's own request would be.
const calls = /* @__PURE__ */ loadOnFirstUse(() => import('./calls.js'), 'network call');

const METHODS: readonly HttpMethod[] = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function nonNegative(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalidArgument(name, 'a non-negative number');
  return value;
}

/** A bound on a wait: a finite number of milliseconds above zero. */
function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalidArgument(name, 'a finite number of milliseconds above 0');
  return value;
}

function isAbortSignal(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'aborted' in value;
}

function checkHeaders(headers: unknown, name: string): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null) throw invalidArgument(name, 'an object of header names to strings');
  for (const [key, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(key) || typeof value !== 'string' || !isHeaderValue(value)) {
      throw invalidArgument(`${name}.${key}`, 'a string header value (no CR, LF, NUL or characters above U+00FF)');
    }
  }
  return { ...(headers as Record<string, string>) };
}

function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> | undefined): string {
  let url = baseUrl + path;
  if (query !== undefined) {
    if (typeof query !== 'object' || query === null) throw invalidArgument('query', 'an object');
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw invalidArgument(`query.${key}`, 'a string, number or boolean');
      }
      params.append(key, String(value));
    }
    const qs = params.toString();
    if (qs !== '') url += `?${qs}`;
  }
  return url;
}

/** Validates a call and serialises its body exactly once. */
function prepare(config: ClientConfig, options: RequestOptions): PreparedCall {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { method, path } = options;
  if (!METHODS.includes(method)) throw invalidArgument('method', METHODS.join(' | '));
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) throw invalidArgument('path', "a path starting with '/'");
  let body: string | undefined;
  if (options.body !== undefined) {
    if (method === 'GET') throw invalidArgument('body', 'absent on GET');
    try {
      body = JSON.stringify(options.body);
    } catch (cause) {
      throw new WalletError('INVALID_ARGUMENT', 'body must be JSON-serialisable', { cause });
    }
    if (typeof body !== 'string') throw invalidArgument('body', 'a JSON-serialisable value');
  }
  const headers: Record<string, string> = { Accept: 'application/json', ...config.headers, ...checkHeaders(options.headers, 'headers') };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.idempotencyKey !== undefined && (typeof options.idempotencyKey !== 'string' || options.idempotencyKey === '' || !isHeaderValue(options.idempotencyKey))) {
    throw invalidArgument('idempotencyKey', 'a non-empty string usable as a header value');
  }
  if (options.signal !== undefined && !isAbortSignal(options.signal)) {
    throw invalidArgument('signal', 'an AbortSignal');
  }
  return {
    method,
    path,
    url: buildUrl(config.baseUrl, path, options.query),
    body,
    headers,
    idempotencyKey: options.idempotencyKey,
    signal: options.signal,
    attempts: 0,
  };
}

function optionalFunction(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'function') throw invalidArgument(name, 'a function');
}

/**
 * A client of the service's HTTP contract below `baseUrl`: error bodies become `WalletError`s,
 * `429`s wait `Retry-After`, `200 {"status":"PROCESSING"}` is resent, and `signed()` runs the
 * signed-retry legs (a `202` challenge → stamp → resend). `createWallet` makes one; use it directly
 * for a call the wallet has no method for. Bad options → `INVALID_ARGUMENT`.
 */
export function createClient(options: ClientOptions): Client {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  if (typeof options.baseUrl !== 'string' || options.baseUrl === '') throw invalidArgument('options.baseUrl', 'a non-empty URL or path');
  optionalFunction(options.fetch, 'options.fetch');
  optionalFunction(options.now, 'options.now');
  optionalFunction(options.onBeforeSign, 'options.onBeforeSign');
  optionalFunction(options.onRequest, 'options.onRequest');
  const signatureHeader = options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER;
  if (typeof signatureHeader !== 'string' || !HEADER_NAME.test(signatureHeader)) throw invalidArgument('options.signatureHeader', 'a header name');
  const userFetch = options.fetch;
  const config: ClientConfig = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    // Looked up per call (never at import) and called unbound-safe.
    fetch: (input, init) => (userFetch ?? globalThis.fetch)(input, init),
    headers: checkHeaders(options.headers, 'options.headers'),
    timeoutMs: nonNegative(options.timeoutMs, 'options.timeoutMs', 30_000),
    signatureHeader,
    maxRateLimitRetries: nonNegative(options.maxRateLimitRetries, 'options.maxRateLimitRetries', 2),
    maxRetryAfterMs: nonNegative(options.maxRetryAfterMs, 'options.maxRetryAfterMs', 10_000),
    maxProcessingResends: nonNegative(options.maxProcessingResends, 'options.maxProcessingResends', 5),
    processingBackoffMs: nonNegative(options.processingBackoffMs, 'options.processingBackoffMs', 250),
    now: options.now ?? Date.now,
    onBeforeSign: options.onBeforeSign,
    onBeforeSignTimeoutMs: positive(options.onBeforeSignTimeoutMs, 'options.onBeforeSignTimeoutMs', 120_000),
    automaticSignTimeoutMs: positive(options.automaticSignTimeoutMs, 'options.automaticSignTimeoutMs', 2_000),
    onRequest: options.onRequest,
  };

  return {
    async request<T>(requestOptions: RequestOptions): Promise<T> {
      const call = prepare(config, requestOptions);
      return (await calls((m) => m.runRequest(config, call))) as T;
    },
    async signed<T>(signedOptions: SignedRequestOptions): Promise<T> {
      const call = prepare(config, signedOptions);
      if (typeof signedOptions.purpose !== 'string' || signedOptions.purpose === '') throw invalidArgument('purpose', 'a non-empty string');
      if (signedOptions.signer === undefined && typeof signedOptions.getSigner !== 'function') {
        throw invalidArgument('signer', 'a Signer or key (or pass getSigner)');
      }
      if (signedOptions.requestId !== undefined && (typeof signedOptions.requestId !== 'string' || signedOptions.requestId === '' || !isHeaderValue(signedOptions.requestId))) {
        throw invalidArgument('requestId', 'a non-empty string usable as a header value');
      }
      if (signedOptions.stampOnly !== undefined && (typeof signedOptions.stampOnly !== 'string' || signedOptions.stampOnly === '')) {
        throw invalidArgument('stampOnly', 'the non-empty payload to stamp');
      }
      optionalFunction(signedOptions.onBeforeSign, 'onBeforeSign');
      if (signedOptions.automatic !== undefined && typeof signedOptions.automatic !== 'boolean') throw invalidArgument('automatic', 'a boolean');
      if (signedOptions.approved !== undefined && typeof signedOptions.approved !== 'boolean') throw invalidArgument('approved', 'a boolean');
      if (signedOptions.signingSignal !== undefined && !isAbortSignal(signedOptions.signingSignal)) throw invalidArgument('signingSignal', 'an AbortSignal');
      return (await calls((m) => m.runSigned(config, call, signedOptions))) as T;
    },
  };
}
