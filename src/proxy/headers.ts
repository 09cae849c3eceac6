/** Which headers cross the proxy, in each direction. */
import { invalidArgument } from '../errors.js';
import { ProxyRefusal } from './responses.js';

/** The wallet signature header forwarded by default (`ProxyOptions.signatureHeader` renames it). */
export const DEFAULT_SIGNATURE_HEADER = 'Service-Wallet-Signature';

/** Always forwarded (with the signature header) when the caller sends them. */
const BASE_FORWARDED = ['request-id', 'idempotency-key', 'content-type', 'accept'] as const;

/** Never forwarded, whatever the options say: credentials, cookies and hop-by-hop headers. */
const NEVER_FORWARDED = new Set([
  'authorization',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'cookie',
  'set-cookie',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/**
 * Passed back from the service: the body's type, the rate-limit pause, and `Date`, because the
 * library judges a challenge's `expiresAt` against the service's clock taken from it. `Set-Cookie`
 * and everything else stay behind.
 */
export const RESPONSE_HEADERS = ['content-type', 'retry-after', 'date'] as const;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The lower-cased names of every request header that is forwarded. */
export function forwardedHeaderNames(signatureHeader: string, extra: readonly string[]): string[] {
  const names = [signatureHeader, ...BASE_FORWARDED, ...extra].map((name, i) => {
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw invalidArgument(i === 0 ? 'signatureHeader' : 'forwardHeaders', 'HTTP header names');
    }
    const lower = name.toLowerCase();
    if (NEVER_FORWARDED.has(lower) || lower.startsWith('proxy-')) {
      throw invalidArgument(i === 0 ? 'signatureHeader' : 'forwardHeaders', 'free of credential, cookie and hop-by-hop headers');
    }
    return lower;
  });
  return [...new Set(names)];
}

/** A header value with CR, LF, NUL or another control character (tab aside). */
function hasControl(value: string): boolean {
  return /[\x00-\x08\x0a-\x1f\x7f]/.test(value);
}

/** The upstream request headers: the forwarded ones, checked, plus Basic credentials. */
export function upstreamHeaders(incoming: Headers, names: readonly string[], authorization: string): Headers | ProxyRefusal {
  const out = new Headers();
  for (const name of names) {
    const value = incoming.get(name);
    if (value === null) continue;
    if (hasControl(value)) return new ProxyRefusal('INVALID_HEADER', `The ${name} header holds a control character.`);
    out.set(name, value);
  }
  out.set('authorization', authorization);
  return out;
}

/** The response headers passed back to the caller. */
export function downstreamHeaders(upstream: Headers): Headers {
  const out = new Headers({ 'cache-control': 'no-store' });
  for (const name of RESPONSE_HEADERS) {
    const value = upstream.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}
