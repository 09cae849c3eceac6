/**
 * The demo backend's own calls to the service (or the sandbox) with the platform credentials:
 * creating a customer, listing its accounts, the ownership lookups of the authorize hook, the
 * sandbox tools. Server side only: the credentials live in the prepared `Authorization` value and
 * never appear in an answer, an error message or a log line.
 */

export interface UpstreamOptions {
  /** `{base_url}`, ending in the API version. */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Per request; default 15 000 ms. */
  readonly timeoutMs?: number;
}

export interface UpstreamAnswer {
  readonly status: number;
  /** Parsed JSON, or `undefined` for an empty or non-JSON body. */
  readonly body: unknown;
}

/** The service could not be reached or did not answer in time (never carries the request's headers). */
export class UpstreamUnavailable extends Error {
  override readonly name = 'UpstreamUnavailable';
}

export interface Upstream {
  readonly baseUrl: string;
  call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options?: { query?: Record<string, string>; body?: unknown }): Promise<UpstreamAnswer>;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`, 'utf8').toString('base64')}`;
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    baseUrl,
    async call(method, path, { query, body } = {}) {
      const url = new URL(baseUrl + path);
      for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
      const headers: Record<string, string> = { Authorization: authorization, Accept: 'application/json' };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method,
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        text = await response.text();
      } catch {
        // The cause may quote the request; keep only the route.
        throw new UpstreamUnavailable(`The service did not answer ${method} ${path}`);
      }
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed };
    },
  };
}

/** `{code, reason, details?}` of an error answer, keeping only those fields (safe to show a browser). */
export function errorBody(answer: UpstreamAnswer): { code: string; reason: string; details?: unknown } {
  const b = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  const code = typeof b.code === 'string' ? b.code : `HTTP_${answer.status}`;
  const reason = typeof b.reason === 'string' ? b.reason : typeof b.message === 'string' ? b.message : `The service answered ${answer.status}.`;
  return b.details !== undefined ? { code, reason, details: b.details } : { code, reason };
}

/** The `data` array of a list answer (`{data:[…]}`), or `[]`. */
export function listData(answer: UpstreamAnswer): Record<string, unknown>[] {
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? data.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
}
