/**
 * The app's own HTTP calls: the demo backend (`/demo/*`: who am I, sign-up, sandbox clock) and the
 * few service calls the wallet library does not make itself (quotes, cards, sandbox funding),
 * which go through the same proxy at `/api` and show up in the request log.
 */
import type { Customer, InternalAccount } from '../../src/types.js';
import type { LegRow } from './log-panel.js';

export interface Payee {
  label: string;
  accountId: string;
}

export interface Me {
  customer: Customer;
  accounts: InternalAccount[];
  walletAccountId: string | null;
  trustedKeys: string[] | 'skip-verification';
  sandbox: boolean;
  payees: Payee[];
  oauth: { authorizeUrl: string } | null;
  /** Frame mode: the signer page holding the wallet; null in in-origin mode. */
  signerUrl: string | null;
}

/** An error answer of the demo backend or the proxy: `{code, reason, details?}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | undefined,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

async function send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (cause) {
    throw new ApiError('NETWORK_ERROR', 'The demo server could not be reached.', undefined, { cause: String(cause) });
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const b = (data ?? {}) as { code?: unknown; reason?: unknown; message?: unknown; details?: unknown };
    const code = typeof b.code === 'string' ? b.code : `HTTP_${response.status}`;
    const reason = typeof b.reason === 'string' ? b.reason : typeof b.message === 'string' ? b.message : `HTTP ${response.status}`;
    throw new ApiError(code, reason, response.status, b.details);
  }
  return { status: response.status, data };
}

export const demoApi = {
  /** `null` when this browser is not bound to a demo customer. */
  async me(): Promise<Me | null> {
    const { status, data } = await send('GET', '/demo/me');
    return status === 204 ? null : (data as Me);
  },
  async signup(args: { fullName: string; email: string; phoneNumber: string }): Promise<Me> {
    return (await send('POST', '/demo/signup', args)).data as Me;
  },
  async signin(email: string): Promise<Me> {
    return (await send('POST', '/demo/signin', { email })).data as Me;
  },
  async logout(): Promise<void> {
    // `{}` so that the request carries Content-Type: application/json, which every /demo POST needs (CSRF guard).
    await send('POST', '/demo/logout', {});
  },
  async advanceClock(seconds: number): Promise<{ now: string }> {
    return (await send('POST', '/demo/sandbox/clock', { seconds })).data as { now: string };
  },
};

/** A plain (unsigned) service call through the proxy, reported to `onLeg`. */
export async function serviceCall<T>(
  onLeg: (row: LegRow) => void,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; query?: Record<string, string>; idempotencyKey?: string } = {},
): Promise<T> {
  const qs = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  const started = performance.now();
  let status: number | undefined;
  try {
    const answer = await send(method, `/api${path}${qs}`, options.body, options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {});
    status = answer.status;
    return answer.data as T;
  } catch (e) {
    if (e instanceof ApiError) status = e.status;
    throw e;
  } finally {
    onLeg({ method, path, status, ms: performance.now() - started, leg: 1, signed: false, source: 'app' });
  }
}
