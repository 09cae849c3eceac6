/** Shared set-up of the proxy tests: credentials, a proxy on a fake upstream, captured log lines. */
import { createProxy, type ProxyHandler, type ProxyLogEntry, type ProxyOptions } from '../../src/proxy/index.js';
import type { Upstream } from './upstream.js';

export const CLIENT_ID = 'platform-client-7f3a';
export const CLIENT_SECRET = 'sk_sandbox_9b1e4c2d8a7f6e5d';
export const BASIC = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
/** Every spelling of the credentials that must never leave the proxy towards the caller or the log. */
export const SECRET_FORMS = [CLIENT_SECRET, BASIC.slice('Basic '.length), `${CLIENT_ID}:${CLIENT_SECRET}`];

export const ACCOUNT = 'InternalAccount:0b5f2c9e-7d41-4a8e-9c3b-1f2e3d4c5b6a';
export const CUSTOMER = 'Customer:5d8c1a2b-3e4f-4a5b-8c9d-0e1f2a3b4c5d';

export interface Harness {
  readonly proxy: ProxyHandler;
  readonly lines: string[];
  readonly entries: ProxyLogEntry[];
  /** Sends a request to the proxy at http://app.test`path`. */
  call(path: string, init?: RequestInit): Promise<Response>;
}

export function harness(upstream: Upstream, options: Partial<ProxyOptions> = {}): Harness {
  const lines: string[] = [];
  const entries: ProxyLogEntry[] = [];
  const proxy = createProxy({
    baseUrl: upstream.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    logger: (line, entry) => {
      lines.push(line);
      entries.push(entry);
    },
    // These tests are about transport; the ownership and deny-by-default tests set their own rules.
    ...(options.authorize === undefined && options.currentUser === undefined ? { dangerouslyAllowEveryCaller: true as const } : {}),
    ...options,
  });
  return { proxy, lines, entries, call: (path, init) => proxy(new Request(`http://app.test${path}`, init)) };
}

export function json(value: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

export async function errorBody(response: Response): Promise<{ code: string; reason: string }> {
  return (await response.json()) as { code: string; reason: string };
}
