/** Checking `createProxy`'s options once, at creation. */
import { invalidArgument } from '../errors.js';
import { compileRules, DEFAULT_ALLOW, type CompiledRule } from './allowlist.js';
import { DEFAULT_SIGNATURE_HEADER, forwardedHeaderNames } from './headers.js';
import { canonicalSegments } from './path.js';
import { ProxyRefusal } from './responses.js';
import type { AuthorizeHook, ProxyLogger, ProxyOptions } from './types.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ProxyConfig {
  readonly baseUrl: string;
  /** `Basic base64(clientId:clientSecret)`. */
  readonly authorization: string;
  /** Byte strings a response must not contain: the encoded credentials, and the secret itself when long enough to be told apart. */
  readonly secrets: readonly Uint8Array[];
  readonly rules: readonly CompiledRule[];
  readonly authorize: AuthorizeHook | undefined;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  readonly logger: ProxyLogger | undefined;
  readonly prefix: string;
  readonly prefixSegments: readonly string[];
  readonly forwarded: readonly string[];
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw invalidArgument(name, 'a positive integer');
  return value;
}

const defaultLogger: ProxyLogger = (line) => console.info(line);

export function resolveOptions(options: ProxyOptions): ProxyConfig {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const { baseUrl, clientId, clientSecret } = options;
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
  const token = base64(new TextEncoder().encode(`${clientId}:${clientSecret}`));
  const encoder = new TextEncoder();
  const secrets = [encoder.encode(token)];
  // A very short secret could occur in any body by chance; the encoded pair is checked always.
  if (clientSecret.length >= 8) secrets.push(encoder.encode(clientSecret));

  let prefix = '';
  let prefixSegments: string[] = [];
  if (options.prefix !== undefined && options.prefix !== '' && options.prefix !== '/') {
    const segments = typeof options.prefix === 'string' ? canonicalSegments(options.prefix.replace(/\/$/, '')) : undefined;
    if (segments === undefined || segments instanceof ProxyRefusal) throw invalidArgument('prefix', 'a path such as /api');
    prefixSegments = segments;
    prefix = '/' + segments.join('/');
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') throw invalidArgument('authorize', 'a function');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw invalidArgument('fetch', 'a function');
  if (options.logger !== undefined && options.logger !== false && typeof options.logger !== 'function') {
    throw invalidArgument('logger', 'a function or false');
  }
  if (options.forwardHeaders !== undefined && !Array.isArray(options.forwardHeaders)) throw invalidArgument('forwardHeaders', 'an array of header names');
  const injectedFetch = options.fetch;
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    authorization: `Basic ${token}`,
    secrets,
    rules: compileRules(options.allow ?? DEFAULT_ALLOW),
    authorize: options.authorize,
    maxBodyBytes: positiveInteger(options.maxBodyBytes, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES),
    timeoutMs: positiveInteger(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS),
    fetch: injectedFetch ?? ((input, init) => globalThis.fetch(input, init)),
    logger: options.logger === false ? undefined : (options.logger ?? defaultLogger),
    prefix,
    prefixSegments,
    forwarded: forwardedHeaderNames(options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER, options.forwardHeaders ?? []),
  };
}
