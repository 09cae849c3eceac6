/**
 * The backend's own calls to the service with the platform credentials: the ownership lookups of
 * the proxy and the provisioning helpers. Server side only. The credentials live only in the
 * prepared `Authorization` value; errors never carry them, the request or the service's message.
 */
import { invalidArgument, WalletError } from '../errors.js';

export interface ServiceAnswer {
  readonly status: number;
  /** Parsed JSON, or `undefined` for an empty or non-JSON body. */
  readonly body: unknown;
}

/** The service could not be reached, timed out, or answered something unusable. */
export class ServiceUnavailable extends Error {
  override readonly name = 'ServiceUnavailable';
}

export type ServiceMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ServiceClient {
  call(method: ServiceMethod, path: string, options?: { readonly query?: Readonly<Record<string, string>>; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }): Promise<ServiceAnswer>;
}

export interface ServiceClientConfig {
  /** Without a trailing slash. */
  readonly baseUrl: string;
  /** `Basic base64(clientId:clientSecret)`. */
  readonly authorization: string;
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  readonly timeoutMs: number;
}

export function serviceClient(config: ServiceClientConfig): ServiceClient {
  return {
    async call(method, path, { query, body, headers } = {}) {
      const url = new URL(config.baseUrl + path);
      for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
      const sent: Record<string, string> = { ...headers, Accept: 'application/json', Authorization: config.authorization };
      if (body !== undefined) sent['Content-Type'] = 'application/json';
      let status: number;
      let text: string;
      try {
        const response = await config.fetch(url.href, {
          method,
          headers: sent,
          redirect: 'manual',
          signal: AbortSignal.timeout(config.timeoutMs),
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        status = response.status;
        text = await response.text();
      } catch {
        // The cause may quote the request: keep only the route.
        throw new ServiceUnavailable(`The service did not answer ${method} ${path.split('/').slice(0, 3).join('/')}.`);
      }
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status, body: parsed };
    },
  };
}

/** Options shared by everything that talks to the service with the platform credentials. */
export interface ServiceOptions {
  /** The service's base URL, e.g. `https://api.example.com/2025-10-13` or the local sandbox's URL. */
  readonly baseUrl: string;
  /** The platform client id (HTTP Basic to the service). */
  readonly clientId: string;
  /** The platform client secret (HTTP Basic to the service); never sent anywhere else or logged. */
  readonly clientSecret: string;
  /** Default `globalThis.fetch`, looked up per call. */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Per call; default 15 000 ms. */
  readonly timeoutMs?: number;
}

/** The service's address and the platform credentials, checked: what `createProxy` and the provisioning helpers share. */
export interface ServiceCredentials {
  /** The base URL without a trailing slash. */
  readonly baseHref: string;
  /** `base64(clientId:clientSecret)`, the HTTP Basic token. */
  readonly token: string;
}

/** Checks `baseUrl`, `clientId` and `clientSecret` (WalletError INVALID_ARGUMENT naming the option) and makes the Basic token. */
export function serviceCredentials(options: { readonly baseUrl: unknown; readonly clientId: unknown; readonly clientSecret: unknown }): ServiceCredentials {
  const { baseUrl, clientId, clientSecret } = options;
  for (const [name, value, variable] of [['baseUrl', baseUrl, 'SERVICE_BASE_URL'], ['clientId', clientId, 'SERVICE_CLIENT_ID'], ['clientSecret', clientSecret, 'SERVICE_CLIENT_SECRET']] as const) {
    if (value === undefined || value === '') {
      throw new WalletError('INVALID_ARGUMENT', `${name} is ${value === '' ? 'empty' : 'undefined'}: set it (the README reads it from ${variable}, e.g. with serviceFromEnv(process.env)).`);
    }
  }
  if (typeof baseUrl !== 'string') throw invalidArgument('baseUrl', 'an http(s) URL string');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalidArgument('baseUrl', 'an http(s) URL string');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument('baseUrl', 'an http(s) URL');
  if (url.username !== '' || url.password !== '') throw invalidArgument('baseUrl', 'free of user name and password (use clientId and clientSecret)');
  if (url.search !== '' || url.hash !== '') throw invalidArgument('baseUrl', 'free of query and fragment');
  // Basic auth: the user id cannot hold a colon (RFC 7617); neither value may be empty or hold control characters.
  if (typeof clientId !== 'string' || clientId === '' || clientId.includes(':') || /[\x00-\x1f\x7f]/.test(clientId)) {
    throw invalidArgument('clientId', 'a non-empty string without colon or control characters');
  }
  if (typeof clientSecret !== 'string' || clientSecret === '' || /[\x00-\x1f\x7f]/.test(clientSecret)) {
    throw invalidArgument('clientSecret', 'a non-empty string without control characters');
  }
  let binary = '';
  for (const byte of new TextEncoder().encode(`${clientId}:${clientSecret}`)) binary += String.fromCharCode(byte);
  return { baseHref: url.href.replace(/\/+$/, ''), token: btoa(binary) };
}

/** Checks `ServiceOptions` (the same rules as `createProxy`'s) and builds a client. */
export function clientFromOptions(options: ServiceOptions): ServiceClient {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { baseHref, token } = serviceCredentials(options);
  const timeoutMs = options.timeoutMs ?? 15_000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw invalidArgument('timeoutMs', 'a positive integer');
  const injected = options.fetch;
  if (injected !== undefined && typeof injected !== 'function') throw invalidArgument('fetch', 'a function');
  return serviceClient({
    baseUrl: baseHref,
    authorization: `Basic ${token}`,
    fetch: injected ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs,
  });
}

/** The `data` array of a list answer (`{data:[…]}`), or `[]`. */
export function listData(answer: ServiceAnswer): Record<string, unknown>[] {
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? data.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
}

/** The environment variables {@link serviceFromEnv} reads, by default. */
export const SERVICE_ENV = { baseUrl: 'SERVICE_BASE_URL', clientId: 'SERVICE_CLIENT_ID', clientSecret: 'SERVICE_CLIENT_SECRET' } as const;

/**
 * `{ baseUrl, clientId, clientSecret }` from environment variables (default `SERVICE_BASE_URL`,
 * `SERVICE_CLIENT_ID`, `SERVICE_CLIENT_SECRET`): pass `process.env` (or your runtime's env). Throws
 * `WalletError INVALID_ARGUMENT` naming every variable that is unset or empty, so a build or start
 * without them says what to set. For the local sandbox: its URL, `sandbox-client`, `sandbox-secret`.
 */
export function serviceFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  names: { readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string } = SERVICE_ENV,
): { baseUrl: string; clientId: string; clientSecret: string } {
  if (typeof env !== 'object' || env === null) throw invalidArgument('env', 'an object such as process.env');
  const read = (name: string): string | undefined => {
    const value = env[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const baseUrl = read(names.baseUrl);
  const clientId = read(names.clientId);
  const clientSecret = read(names.clientSecret);
  const missing = [
    baseUrl === undefined ? `${names.baseUrl} (the service's base URL, e.g. https://api.example-payments.com/2025-10-13, or the local sandbox's URL)` : undefined,
    clientId === undefined ? `${names.clientId} (the platform client id; the local sandbox's default is sandbox-client)` : undefined,
    clientSecret === undefined ? `${names.clientSecret} (the platform client secret; the local sandbox's default is sandbox-secret)` : undefined,
  ].filter((x): x is string => x !== undefined);
  if (baseUrl === undefined || clientId === undefined || clientSecret === undefined) {
    throw new WalletError('INVALID_ARGUMENT', `Set the environment variable${missing.length > 1 ? 's' : ''} ${missing.join('; ')}.`);
  }
  return { baseUrl, clientId, clientSecret };
}
