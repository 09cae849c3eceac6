/** Public shapes of the transport. */
import type { SessionKey, Signer } from '../crypto/index.js';

/** The HTTP methods the transport sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A query parameter's value; undefined leaves the parameter out. */
export type QueryValue = string | number | boolean | undefined;

/** A Signer, or a stored key pair it can be made from. */
export type SignerLike = Signer | Pick<SessionKey, 'privateKey' | 'publicKeyHex'>;

/** One HTTP request as reported to `onRequest`. */
export interface RequestLogEntry {
  /** The HTTP method. */
  method: HttpMethod;
  /** The path as given (without base URL or query). */
  path: string;
  /** HTTP status, or undefined when no answer came (network error, timeout, abort). */
  status: number | undefined;
  /** Wall time of the request, body read included. */
  ms: number;
  /** Protocol leg: 1 = the first call, 2 = after the first signature, 3 = after the second. */
  leg: number;
  /** HTTP request number within this call: counts 429 retries, PROCESSING resends and the restart. */
  attempt: number;
  /** Whether the request carried the signature header. */
  signed: boolean;
  /** The Request-Id header sent, if any. */
  requestId?: string;
  /** The WalletError code when the request got no HTTP answer. */
  error?: string;
}

/** Options of {@link createClient}; `createWallet` takes the same ones in its config. */
export interface ClientOptions {
  /** Base URL ending in the version, e.g. `https://api.example.com/2025-10-13`, or a same-origin proxy path like `/api/wallet`. */
  baseUrl: string;
  /** Default globalThis.fetch (looked up at call time). */
  fetch?: typeof globalThis.fetch;
  /** Sent on every request (e.g. a CSRF token for the proxy). Never put platform credentials here in a browser. */
  headers?: Record<string, string>;
  /** Per HTTP request, body read included; default 30 000 ms. */
  timeoutMs?: number;
  /** Stamp header name; default `Service-Wallet-Signature`. */
  signatureHeader?: string;
  /** How many times a 429 is retried after waiting Retry-After; default 2. */
  maxRateLimitRetries?: number;
  /** Longest Retry-After honoured; a longer one fails at once with the 429's error. Default 10 000 ms. */
  maxRetryAfterMs?: number;
  /** How many times a `200 {"status":"PROCESSING"}` answer is resent; default 5. */
  maxProcessingResends?: number;
  /** Base of the linear backoff between PROCESSING resends (n-th wait = n × base, at most 2 s); default 250 ms. */
  processingBackoffMs?: number;
  /** The local clock (epoch ms) used with the server's Date header to judge challenge expiry; default Date.now. */
  now?: () => number;
  /** Default hook before every signature (a call's own hook wins). */
  onBeforeSign?: OnBeforeSign;
  /**
   * Longest wait for `onBeforeSign` on a call the app made; default 120 000 ms. When it passes, the
   * hook's `signal` is aborted and that call alone fails with SIGNING_REFUSED (`details.timeoutMs`).
   */
  onBeforeSignTimeoutMs?: number;
  /**
   * Longest wait for `onBeforeSign` on a signature the library makes on its own (`automatic: true`:
   * the automatic session refresh); default 2 000 ms. Answer those from policy, not from a user
   * prompt: a refused or timed-out one is not retried.
   */
  automaticSignTimeoutMs?: number;
  /** Reports every HTTP request. Exceptions thrown by the hook are ignored. */
  onRequest?: (entry: RequestLogEntry) => void;
}

/** One plain JSON call of {@link Client.request}. */
export interface RequestOptions {
  /** The HTTP method. */
  method: HttpMethod;
  /** Path below the base URL, starting with '/'. */
  path: string;
  /** A JSON-safe value, serialised once with JSON.stringify. */
  body?: unknown;
  /** Query parameters (an undefined value is left out). */
  query?: Record<string, QueryValue>;
  /** Headers of this call, beside the client's. */
  headers?: Record<string, string>;
  /** Aborts the call (ABORTED). */
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` (on every leg of a signed call). */
  idempotencyKey?: string;
}

/** What `onBeforeSign` is shown: exactly the bytes about to be signed and what for. */
export interface SignRequest {
  /** Exactly the text about to be signed (the service's challenge payload, or the stamped payload). */
  payloadToSign: string;
  /** The call's HTTP method. */
  method: HttpMethod;
  /** The call's path below the base URL. */
  path: string;
  /** What the signature is for, e.g. `update-internal-account`, `refresh-session`. */
  purpose: string;
  /** The leg this signature will be sent on (2 or 3; 1 for the single-leg stamped form). */
  leg: number;
  /** The challenge's request id (absent for the single-leg stamped form). */
  requestId?: string;
  /** The challenge's expiry as sent by the service. */
  expiresAt?: string;
  /**
   * True when the library signs on its own, not for a call of the app: the automatic session refresh
   * (`purpose: 'refresh-session'`). The wait for such an answer is bounded by
   * `automaticSignTimeoutMs` (default 2 s).
   */
  automatic: boolean;
  /**
   * Aborted when the library stops waiting for this answer: the bounded wait ran out, the call was
   * aborted, or a logout cancelled the refresh that asked. Close any prompt you opened when it fires.
   */
  signal: AbortSignal;
}

/**
 * Return false (or throw) to refuse: the call then fails with SIGNING_REFUSED. The wait is bounded
 * (`onBeforeSignTimeoutMs`, `automaticSignTimeoutMs`): an answer that comes later is ignored and the
 * call fails with SIGNING_REFUSED. A refused or timed-out prompt fails that call only.
 */
export type OnBeforeSign = (request: SignRequest) => boolean | void | Promise<boolean | void>;

/** One signed-retry call of {@link Client.signed}: a plain call's options plus who signs and how. */
export interface SignedRequestOptions extends RequestOptions {
  /** The key that answers every challenge of this call. */
  signer?: SignerLike;
  /**
   * When `signer` is not given: called at each challenge before onBeforeSign (so a call answered at
   * once needs no key, and one that cannot be signed fails before the prompt) and again after it,
   * just before stamping; that second answer signs.
   */
  getSigner?: () => SignerLike | Promise<SignerLike>;
  /** A label for the hook, e.g. 'update-internal-account'. */
  purpose: string;
  /** Sent as `Request-Id` on the first leg (passkey verify carries the challenge's request id). */
  requestId?: string;
  /**
   * Single-leg stamped form (quote execute): stamp this payload and send it on the first leg, with no
   * Request-Id and no challenge.
   */
  stampOnly?: string;
  /** Overrides the client's onBeforeSign for this call. */
  onBeforeSign?: OnBeforeSign;
  /**
   * How many `202` challenges this call answers: 1 (the default), or 2 for delegated-key creation,
   * the one action with a third leg. The stamped single-leg form (`stampOnly`) answers none. A server
   * that asks for one more gets no signature: the call fails with UNEXPECTED_CHALLENGE.
   */
  challenges?: 1 | 2;
  /**
   * Whether an expired challenge makes the call start over from leg 1, once (default true). Set it
   * false where leg 1 spends something a restart cannot give back — the OTP verify's leg 1 uses up
   * the code — so the call fails with CHALLENGE_EXPIRED at once instead of re-posting it.
   */
  restartOnExpiry?: boolean;
  /** The library signs on its own (see SignRequest.automatic); default false. */
  automatic?: boolean;
  /**
   * The signature was approved before this call was made, so onBeforeSign is not asked: the library
   * ending the sessions of a logout the app asked for (`logout()` is the approval), which must never
   * wait on a user. Default false.
   */
  approved?: boolean;
  /**
   * Cancels signing: a pending onBeforeSign is given up (its signal aborts) and no further signature
   * is sent (ABORTED). Unlike `signal`, it never aborts a request already on the wire, whose answer
   * the caller may still need (e.g. to end the session it created).
   */
  signingSignal?: AbortSignal;
}

/** The HTTP client of the service's contract (made by {@link createClient}): plain calls and signed-retry calls. */
export interface Client {
  /** A plain JSON call: 2xx → parsed body (204/205 → undefined), else a WalletError. */
  request<T>(options: RequestOptions): Promise<T>;
  /** A signed-retry call: runs every leg and returns the final answer's body. */
  signed<T>(options: SignedRequestOptions): Promise<T>;
}
