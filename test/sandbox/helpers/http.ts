/**
 * Raw HTTP access to a sandbox for tests: Basic auth by default, JSON in and out, every answer
 * returned (never thrown) so tests assert statuses and codes.
 */
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/index.js';
import { jsonOrUndefined } from '../../helpers/json.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined. */
  json: any;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body string (sent as is, overrides `body`). */
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** false = no Authorization header; a string = that header value. */
  auth?: boolean | string;
}

export const BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;

export class Api {
  constructor(readonly sandbox: RunningSandbox) {}

  get url(): string {
    return this.sandbox.url;
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== false) headers.Authorization = typeof options.auth === 'string' ? options.auth : BASIC;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    if (method === 'GET' || method === 'HEAD') body = undefined; // fetch refuses bodies on these
    const res = await fetch(`${this.sandbox.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
    const text = await res.text();
    const json = jsonOrUndefined(text);
    return { status: res.status, headers: res.headers, text, json };
  }

  get(path: string, options?: CallOptions) {
    return this.call('GET', path, options);
  }
  post(path: string, body?: unknown, options: CallOptions = {}) {
    return this.call('POST', path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  patch(path: string, body?: unknown, options: CallOptions = {}) {
    return this.call('PATCH', path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  delete(path: string, options?: CallOptions) {
    return this.call('DELETE', path, options);
  }
}

/**
 * Starts a silent sandbox on a free port; collect log lines when `lines` is given. The sandbox's own
 * tests assert its explanations, so the profile is `sandbox` unless a test asks for another
 * (whatever SANDBOX_PROFILE says).
 */
export async function start(options: SandboxOptions = {}, lines?: string[]): Promise<Api> {
  const sandbox = await startSandbox({ port: 0, profile: 'sandbox', ...options, log: lines === undefined ? false : (l) => lines.push(l) });
  return new Api(sandbox);
}

export function enc(id: string): string {
  return encodeURIComponent(id);
}
