/**
 * The sandbox HTTP server: one request's life (read, authenticate, route, answer, log) and
 * `startSandbox`.
 *
 * Every answer is a complete HTTP response: handler errors become the profile's error body with
 * their status; an unexpected exception (a sandbox bug) becomes `500 INTERNAL_ERROR` and is logged;
 * unparseable HTTP gets a JSON 400/431 from the `clientError` hook. Paths live under
 * `/2025-10-13`; everything else is `404 NOT_FOUND` (after platform authentication, so route names
 * do not leak).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createClock } from './clock.js';
import { API_VERSION, type Reply, type RequestContext, type SandboxConfig, type SandboxState, json } from './context.js';
import { createEnclave } from './enclave.js';
import { DEFAULT_OAUTH_CLIENT_ID } from './domain/oidc.js';
import { enclaveKeySource, loadEnclaveKey, type EnclaveKeyOption } from './enclave-key.js';
import { isSandboxError, rateLimited, SandboxError } from './errors.js';
import { checkFault, Faults, type FaultSpec, type SandboxFaultControl, type TakenFault } from './faults.js';
import { SIGNATURE_HEADER } from './stamp.js';
import { answerClientError, parseBody, parseTarget, payloadTooLarge, readBody, writeReply } from './http.js';
import { createLogger, type LogSink } from './log.js';
import { checkOptions } from './check-options.js';
import { checkPlatformAuth } from './platform-auth.js';
import { errorBody, resolveProfile, type SandboxProfile } from './profile.js';
import { resolveQuoteExecute, type QuoteExecuteMode } from './quote-execute.js';
import { withProfile } from './present.js';
import { Router } from './router.js';
import { registerRoutes } from './routes/index.js';
import { Store } from './store.js';
import { invalidArgument, WalletError } from '../errors.js';
import { loadSandboxPeers } from './peers.js';

/** Options of {@link startSandbox}; every one has a default. */
export interface SandboxOptions {
  /** TCP port; default 0 (a free port). The CLI defaults to 8787. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Platform client id for HTTP Basic; default `sandbox-client`. */
  clientId?: string;
  /** Platform client secret for HTTP Basic; default `sandbox-secret`. */
  clientSecret?: string;
  /** Origin(s) accepted in WebAuthn client data; default `http://localhost:5173`. */
  origin?: string | string[];
  /** WebAuthn relying-party id; default `localhost`. */
  rpId?: string;
  /**
   * Top origin(s) accepted for a cross-origin ceremony (a passkey used in a frame of another
   * origin, e.g. the signer frame inside the app): the `topOrigin` of client data whose
   * `crossOrigin` is true must be one of them (domain/passkeys.ts). Default: none, so such a
   * ceremony is refused.
   */
  topOrigin?: string | string[];
  /**
   * The platform's OAuth client ids at the IdPs (the `aud` of its users' ID tokens): a token
   * registering an OAUTH credential must name one (bound to the credential, matched at login).
   * Default: `[DEFAULT_OAUTH_CLIENT_ID]` (`sandbox-oauth-client`), the id the stand-in IdP issues
   * tokens for; `[]`: none, so no OAUTH credential can be registered. Never implied by the API
   * client id (domain/oidc.ts).
   */
  oauthClientIds?: string[];
  /**
   * Regions whose payment provider requires contact verification; a customer of another region (or
   * none) gets `409` from the verify-email/verify-phone routes. Default: every customer is in it.
   */
  contactVerificationRegions?: string[];
  /** Base clock in epoch ms (the sandbox adds its own advance offset); default `Date.now`. */
  now?: () => number;
  /** Request log sink (one JSON line per request), or `false` to silence; default stdout. */
  log?: LogSink | false;
  /**
   * `sandbox` (default): answers add explanations (`details.cause`, `reason`, `authMethodId`, …).
   * `service`: answers carry only what the spec and the wire reference define, shaped as the real
   * service sends them (see profile.ts). Default: the `SANDBOX_PROFILE` environment variable, else
   * `sandbox`.
   */
  profile?: SandboxProfile;
  /**
   * A fixed enclave key, so the app's trusted key survives restarts: `{ seed }` (derived: the same
   * on every machine) or `{ file }` (a PKCS#8 PEM P-256 key, made the first time the file is
   * missing). Default: a new key at every start. See enclave-key.ts.
   */
  enclaveKey?: EnclaveKeyOption;
  /**
   * Faults armed from the start: the next N answers of a route PROCESSING, 5xx, 429, slow or
   * dropped (faults.ts). More can be armed with `sandbox.faults` or `POST /sandbox/faults`.
   */
  faults?: FaultSpec[];
  /**
   * How `POST /quotes/{id}/execute` of an embedded-wallet source is signed (quote-execute.ts):
   * `stamp` (one stamped call, spec §4.3; the default), `signed-retry` (a 202 first leg, spec §5.3)
   * or `either`. Default: the `SANDBOX_QUOTE_EXECUTE` environment variable, else `stamp`.
   */
  quoteExecute?: QuoteExecuteMode;
}

/** A sandbox that {@link startSandbox} started. */
export interface RunningSandbox {
  /** `{base_url}`: `http://host:port/2025-10-13`. */
  readonly url: string;
  /** The port it listens on (the one picked when `port` was 0). */
  readonly port: number;
  /** The enclave's uncompressed public key (hex): trust it for OTP and export bundles. */
  readonly enclavePublicKey: string;
  /** The profile the sandbox answers in. */
  readonly profile: SandboxProfile;
  /** How it expects embedded-wallet quote execution to be signed (quote-execute.ts). */
  readonly quoteExecute: QuoteExecuteMode;
  /** Where the enclave key came from: `new at this start`, `derived from a seed`, `kept in <file>`. */
  readonly enclaveKeySource: string;
  /** Moves the sandbox clock forward. */
  advanceClock(seconds: number): void;
  /** Faults on demand (faults.ts): `add({ kind, path, … })`, `list()`, `clear()`, `release(id)`. */
  readonly faults: SandboxFaultControl;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** The platform client id the sandbox accepts by default (HTTP Basic). */
export const DEFAULT_CLIENT_ID = 'sandbox-client';
/** The platform client secret the sandbox accepts by default (HTTP Basic): a test value, not a secret. */
export const DEFAULT_CLIENT_SECRET = 'sandbox-secret';
/** The WebAuthn origin the sandbox accepts by default (the demo's dev server). */
export const DEFAULT_ORIGIN = 'http://localhost:5173';
/** The WebAuthn relying-party id the sandbox accepts by default. */
export const DEFAULT_RP_ID = 'localhost';

const PRUNE_EVERY = 256;

/** The sandbox's state (config, clock, store, enclave, logger); internal: `startSandbox` is the public way in. */
export function createSandboxState(options: SandboxOptions = {}): SandboxState {
  const config: SandboxConfig = {
    clientId: options.clientId ?? DEFAULT_CLIENT_ID,
    clientSecret: options.clientSecret ?? DEFAULT_CLIENT_SECRET,
    origins: options.origin === undefined ? [DEFAULT_ORIGIN] : Array.isArray(options.origin) ? [...options.origin] : [options.origin],
    rpId: options.rpId ?? DEFAULT_RP_ID,
    topOrigins: options.topOrigin === undefined ? [] : Array.isArray(options.topOrigin) ? [...options.topOrigin] : [options.topOrigin],
    oauthClientIds: options.oauthClientIds === undefined ? [DEFAULT_OAUTH_CLIENT_ID] : [...options.oauthClientIds],
    contactVerificationRegions: options.contactVerificationRegions === undefined ? undefined : [...options.contactVerificationRegions],
    profile: resolveProfile(options.profile),
    quoteExecute: resolveQuoteExecute(options.quoteExecute),
  };
  const clock = createClock(options.now);
  const faults = new Faults();
  for (const [i, spec] of (options.faults ?? []).entries()) faults.add(checkFault(spec, `options.faults[${i}]`));
  return { config, clock, store: new Store(), enclave: createEnclave(loadEnclaveKey(options.enclaveKey)), logger: createLogger(options.log, clock), faults };
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

async function answer(state: SandboxState, router: Router, req: IncomingMessage, bodyBytes: Buffer, tooLarge: boolean): Promise<Reply> {
  const method = (req.method ?? 'GET').toUpperCase();
  const { segments, query } = parseTarget(req.url ?? '/');
  const inBase = segments[0] === API_VERSION;
  const relative = inBase ? segments.slice(1) : segments;
  const match = inBase ? router.match(method, relative) : ({ kind: 'none' } as const);
  if (match.kind !== 'route' || match.route.auth) checkPlatformAuth(headerValue(req, 'authorization'), state.config);
  if (match.kind === 'none') throw new SandboxError(404, 'NOT_FOUND', `No such endpoint: ${method} /${segments.join('/')}`);
  if (match.kind === 'method') {
    throw new SandboxError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`, { allow: match.allow }, { Allow: match.allow.join(', ') });
  }
  if (tooLarge) throw payloadTooLarge();
  const { body, text: rawBody } = parseBody(bodyBytes, headerValue(req, 'content-type'), match.route.form);
  const params = match.params;
  const ctx: RequestContext = {
    state,
    method,
    path: `/${relative.join('/')}`,
    params,
    query,
    headers: req.headers,
    body,
    rawBody,
    header: (name) => headerValue(req, name),
    param: (name) => params[name] ?? '',
  };
  return match.route.handler(ctx);
}

function createHandler(state: SandboxState, router: Router): (req: IncomingMessage, res: ServerResponse) => void {
  let count = 0;
  return (req, res) => {
    const started = performance.now();
    void (async () => {
      const read = await readBody(req);
      let reply: Reply;
      let error: string | undefined;
      const taken = takeFault(state, req);
      const fault = taken?.spec;
      if (fault?.kind === 'drop') {
        req.socket.destroy();
        state.logger.request({ method: req.method ?? '?', path: (req.url ?? '/').split('?')[0] ?? '/', status: 0, code: 'FAULT_DROP', ms: Math.round((performance.now() - started) * 100) / 100 });
        return;
      }
      try {
        reply =
          fault !== undefined && fault.kind !== 'delay' && fault.kind !== 'hold'
            ? faultReply(fault)
            : await withProfile(state.config.profile, () => answer(state, router, req, read.bytes, read.tooLarge));
      } catch (e) {
        if (isSandboxError(e)) reply = json(e.status, errorBody(state.config.profile, e), { ...e.headers });
        else {
          error = e instanceof Error ? e.message : String(e);
          reply = json(500, errorBody(state.config.profile, new SandboxError(500, 'INTERNAL_ERROR', 'The sandbox failed unexpectedly (a bug): see its log')));
        }
      }
      if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms ?? 0).unref());
      if (taken !== undefined && fault?.kind === 'hold') await state.faults.hold(taken.id);
      const now = state.clock.now();
      writeReply(res, reply, new Date(now), read.abandoned);
      if (read.abandoned) res.on('finish', () => req.socket.destroy());
      const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
      const code = 'json' in reply && typeof reply.json === 'object' && reply.json !== null && reply.status >= 400 ? (reply.json as { code?: unknown }).code : undefined;
      state.logger.request({
        method: req.method ?? '?',
        path: rawPath.length > 512 ? `${rawPath.slice(0, 512)}…` : rawPath,
        status: reply.status,
        ...(typeof code === 'string' ? { code } : {}),
        ms: Math.round((performance.now() - started) * 100) / 100,
        ...(error !== undefined ? { error } : {}),
      });
      count += 1;
      if (count % PRUNE_EVERY === 0) state.store.prune(now);
    })();
  };
}

/**
 * The fault armed for this request, if any (inside the base path; `/sandbox/*` never). Decided here
 * (issue 34): only a request with valid platform credentials takes (and so uses up) a fault; an
 * unauthenticated one is answered `401` as usual and leaves the fault armed for the test's own call.
 */
function takeFault(state: SandboxState, req: IncomingMessage): TakenFault | undefined {
  try {
    checkPlatformAuth(headerValue(req, 'authorization'), state.config);
  } catch {
    return undefined;
  }
  let segments: string[];
  try {
    ({ segments } = parseTarget(req.url ?? '/'));
  } catch {
    return undefined; // a bad path: answered as such by the normal route, never a fault
  }
  if (segments[0] !== API_VERSION) return undefined;
  return state.faults.take((req.method ?? 'GET').toUpperCase(), segments.slice(1), headerValue(req, SIGNATURE_HEADER) !== undefined);
}

/** The answer of a `processing`, `error` or `rate-limit` fault (taken after platform authentication); the request is not handled. */
function faultReply(fault: FaultSpec): Reply {
  if (fault.kind === 'processing') return json(200, { status: 'PROCESSING' });
  if (fault.kind === 'rate-limit') throw rateLimited('Too many requests (a fault armed in the sandbox)', fault.retryAfterSeconds ?? 1);
  throw new SandboxError(fault.status ?? 500, 'INTERNAL_ERROR', 'The service failed (a fault armed in the sandbox)');
}

/** An HTTP server over a sandbox state (not listening yet); internal: `startSandbox` is the public way in. */
export function createSandboxServer(state: SandboxState): Server {
  const router = new Router();
  registerRoutes(router);
  const server = createServer(createHandler(state, router));
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => answerClientError(err, socket, state.config.profile));
  // Idle connections are kept 65 s (Node's default is 5 s). A client that reuses an idle connection
  // just as the server closes it gets ECONNRESET; fetch learns the timeout from the Keep-Alive
  // header and gives a connection up a second early, but a process stalled longer than that second
  // (the sandbox and its client in one busy test process) still met the race at 5 s.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

/**
 * Starts a sandbox; resolves once it listens. Bad options → `WalletError('INVALID_ARGUMENT')`;
 * an optional peer dependency it needs is not installed → `WalletError('DEPENDENCY_MISSING')`
 * (the message says what to install); the port cannot be bound →
 * `WalletError('SANDBOX_START_FAILED')` with the cause.
 *
 * Needs the optional peer dependencies `@hpke/core`, `@simplewebauthn/server` and `@scure/bip39`
 * (`npm install --save-dev` them); from the command line: `npx embedded-wallet-signer-sandbox`.
 *
 * @example
 * ```ts
 * import { startSandbox, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from 'embedded-wallet-signer/sandbox';
 * import { createProxy } from 'embedded-wallet-signer/proxy';
 *
 * const sandbox = await startSandbox({ port: 0, log: false });
 * const proxy = createProxy({
 *   baseUrl: sandbox.url,
 *   clientId: DEFAULT_CLIENT_ID,
 *   clientSecret: DEFAULT_CLIENT_SECRET,
 *   dangerouslyAllowEveryCaller: true, // a test proxy no user can reach
 * });
 * // … point createWallet({ baseUrl, trustedKeys: [sandbox.enclavePublicKey] }) at the proxy …
 * await sandbox.close();
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkOptions(options);
  await loadSandboxPeers();
  const state = createSandboxState(options);
  const server = createSandboxServer(state);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const onError = (cause: Error): void => reject(new WalletError('SANDBOX_START_FAILED', `The sandbox could not listen on ${host}:${options.port ?? 0}: ${cause.message}`, { cause }));
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/${API_VERSION}`,
    port,
    enclavePublicKey: state.enclave.publicKey,
    enclaveKeySource: enclaveKeySource(options.enclaveKey),
    profile: state.config.profile,
    quoteExecute: state.config.quoteExecute,
    faults: { add: (spec) => state.faults.add(spec), list: () => state.faults.list(), clear: () => state.faults.clear(), release: (id) => state.faults.release(id) },
    advanceClock: (seconds) => {
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) throw invalidArgument('seconds', 'a finite number ≥ 0');
      state.clock.advance(seconds);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
