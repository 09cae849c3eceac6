/**
 * One leg of a call: a single HTTP exchange with timeout, abort, network-error mapping and the
 * bounded 429 / Retry-After loop. Non-2xx answers become WalletErrors here.
 */
import { WalletError, isWalletError } from '../errors.js';
import { errorFromResponse } from './errors.js';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from './headers.js';
import { parseDateHeader, parseRetryAfter } from './retry-after.js';
import type { HttpMethod, OnBeforeSign, RequestLogEntry } from './types.js';

/** Client options with defaults applied. */
export interface ClientConfig {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  headers: Record<string, string>;
  timeoutMs: number;
  signatureHeader: string;
  maxRateLimitRetries: number;
  maxRetryAfterMs: number;
  maxProcessingResends: number;
  processingBackoffMs: number;
  now: () => number;
  onBeforeSign: OnBeforeSign | undefined;
  onBeforeSignTimeoutMs: number;
  automaticSignTimeoutMs: number;
  onRequest: ((entry: RequestLogEntry) => void) | undefined;
}

/** A call prepared once: the URL, the body string every leg sends, the headers common to every leg. */
export interface PreparedCall {
  method: HttpMethod;
  path: string;
  url: string;
  body: string | undefined;
  headers: Record<string, string>;
  idempotencyKey: string | undefined;
  signal: AbortSignal | undefined;
  /** HTTP requests made so far in this call. */
  attempts: number;
}

/** Per-leg protocol headers. */
export interface LegHeaders {
  leg: number;
  signature?: string;
  requestId?: string;
  /**
   * A signed leg's cancellation (the call's signingSignal: a logout): checked before the leg is sent
   * again after a 429, so a signature the service has not accepted never leaves again once it fired.
   */
  stop?: AbortSignal | undefined;
}

/** A 2xx answer, body unread by JSON yet. */
export interface LegAnswer {
  status: number;
  text: string;
  /** The server's clock from its Date header (epoch ms), when present and readable. */
  serverDate: number | undefined;
  /** The local clock (config.now) when the answer arrived. */
  receivedAt: number;
}

const DEFAULT_RETRY_AFTER_MS = 1000;

/** The server's clock (Date header) of the answer a non-2xx error was made from, for the engine's expiry judgement. */
const errorServerDates = new WeakMap<WalletError, number>();

/** The Date header (epoch ms) of the answer `error` was made from, when it had one. */
export function serverDateOf(error: unknown): number | undefined {
  return error instanceof WalletError ? errorServerDates.get(error) : undefined;
}

function failed(error: WalletError, serverDate: number | undefined): WalletError {
  if (serverDate !== undefined) errorServerDates.set(error, serverDate);
  return error;
}

function elapsedClock(): () => number {
  const perf = (globalThis as { performance?: { now(): number } }).performance;
  const start = perf ? perf.now() : Date.now();
  return () => Math.round(((perf ? perf.now() : Date.now()) - start) * 10) / 10;
}

/** Waits `ms`, or rejects with ABORTED when the caller's signal fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new WalletError('ABORTED', undefined, { cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new WalletError('ABORTED', undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function report(config: ClientConfig, entry: RequestLogEntry): void {
  try {
    config.onRequest?.(entry);
  } catch {
    // A logging hook must never break a request.
  }
}

interface RawAnswer {
  status: number;
  text: string;
  headers: Headers;
  receivedAt: number;
}

/** Exactly one HTTP request. */
async function fetchOnce(config: ClientConfig, call: PreparedCall, leg: LegHeaders): Promise<RawAnswer> {
  const headers = new Headers(call.headers);
  if (call.idempotencyKey !== undefined) headers.set(IDEMPOTENCY_KEY_HEADER, call.idempotencyKey);
  if (leg.signature !== undefined) headers.set(config.signatureHeader, leg.signature);
  if (leg.requestId !== undefined) headers.set(REQUEST_ID_HEADER, leg.requestId);

  if (call.signal?.aborted) throw new WalletError('ABORTED', undefined, { cause: call.signal.reason });
  call.attempts++;
  const entry: RequestLogEntry = {
    method: call.method,
    path: call.path,
    status: undefined,
    ms: 0,
    leg: leg.leg,
    attempt: call.attempts,
    signed: leg.signature !== undefined,
  };
  if (leg.requestId !== undefined) entry.requestId = leg.requestId;

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, config.timeoutMs);
  const onCallerAbort = (): void => controller.abort();
  call.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const elapsed = elapsedClock();

  const init: RequestInit = { method: call.method, headers, signal: controller.signal };
  if (call.body !== undefined) init.body = call.body;
  // Settles at the timeout or the caller's abort even when an injected fetch (or its body stream)
  // ignores the signal: the call must never wait longer than timeoutMs.
  const stopped = new Promise<never>((_resolve, reject) => {
    controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const response = await Promise.race([config.fetch(call.url, init), stopped]);
    entry.status = response.status;
    const text = await Promise.race([response.text(), stopped]);
    return { status: response.status, text, headers: response.headers, receivedAt: config.now() };
  } catch (cause) {
    const error = timedOut
      ? new WalletError('TIMEOUT', `no answer within ${config.timeoutMs} ms`, { cause })
      : call.signal?.aborted
        ? new WalletError('ABORTED', undefined, { cause: call.signal.reason })
        : entry.status !== undefined
          ? new WalletError('NETWORK_ERROR', 'the connection failed while reading the answer', { cause, status: entry.status })
          : new WalletError('NETWORK_ERROR', undefined, { cause });
    entry.error = error.code;
    throw error;
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener('abort', onCallerAbort);
    entry.ms = elapsed();
    report(config, entry);
  }
}

/**
 * One leg, with 429 handling: wait Retry-After and send the identical request again, at most
 * `maxRateLimitRetries` times. Decision: a Retry-After longer than `maxRetryAfterMs` fails at once
 * with the 429's error (waiting less than asked would only earn another 429). No Retry-After → 1 s.
 * Any other non-2xx → its WalletError.
 */
export async function exchange(config: ClientConfig, call: PreparedCall, leg: LegHeaders): Promise<LegAnswer> {
  for (let retries = 0; ; retries++) {
    const answer = await fetchOnce(config, call, leg);
    const serverDate = parseDateHeader(answer.headers.get('Date'));
    if (answer.status >= 200 && answer.status < 300) {
      return { status: answer.status, text: answer.text, serverDate, receivedAt: answer.receivedAt };
    }
    if (answer.status === 429) {
      const waitMs = parseRetryAfter(answer.headers.get(RETRY_AFTER_HEADER), serverDate, answer.receivedAt) ?? DEFAULT_RETRY_AFTER_MS;
      if (retries < config.maxRateLimitRetries && waitMs <= config.maxRetryAfterMs) {
        await sleep(waitMs, call.signal);
        if (leg.signature !== undefined && leg.stop?.aborted) {
          const reason: unknown = leg.stop.reason;
          throw isWalletError(reason) ? reason : new WalletError('ABORTED', 'signing was cancelled', { cause: reason });
        }
        continue;
      }
      throw failed(errorFromResponse(answer.status, answer.text, { retryAfterMs: waitMs }), serverDate);
    }
    throw failed(errorFromResponse(answer.status, answer.text), serverDate);
  }
}
