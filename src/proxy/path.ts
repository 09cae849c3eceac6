/**
 * Path canonicalisation: one decoding, no ambiguity.
 *
 * Decisions (the wire reference leaves these open):
 * - Every segment is percent-decoded exactly once and matched on its decoded form. A decoded
 *   segment may hold printable ASCII (0x21–0x7e) except `/`, `\` and `%`: so `%2F`, `%5C`, double
 *   encoding (`%252F`), spaces, control characters (`%00`, `%0D%0A`) and non-ASCII are refused.
 * - `.` and `..` segments (also `%2e` forms), empty segments (`//`, a trailing `/`) and raw
 *   backslashes are refused, never resolved.
 * - Ids are sent with a literal colon (`InternalAccount:<uuid>`); `%3A` is accepted too and decodes
 *   to the same segment. The forwarded path re-encodes each segment with `encodeURIComponent`
 *   but keeps `:` literal, so both spellings reach the service as `InternalAccount:<uuid>`.
 *
 * Fetch runtimes parse the URL before the handler sees it, and the WHATWG parser already resolves
 * dot segments and turns `\` into `/`; what is left is matched against the allowlist, so it can only
 * reach an allowed route. The Node adapter checks the raw request target with this same function
 * before any URL parsing, so there those attempts are refused with 400.
 */
import { ProxyRefusal } from './responses.js';

/** Decoded segments of a raw path (the part before `?`), or a refusal. */
export function canonicalSegments(rawPath: string): string[] | ProxyRefusal {
  if (!rawPath.startsWith('/')) return new ProxyRefusal('INVALID_PATH', 'The path must start with /.');
  if (rawPath === '/') return [];
  if (rawPath.includes('\\')) return new ProxyRefusal('INVALID_PATH', 'The path holds a backslash.');
  const raw = rawPath.slice(1).split('/');
  const segments: string[] = [];
  for (const part of raw) {
    if (part === '') return new ProxyRefusal('INVALID_PATH', 'The path holds an empty segment.');
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return new ProxyRefusal('INVALID_PATH', 'The path holds bad percent-encoding.');
    }
    if (!/^[\x21-\x7e]+$/.test(decoded)) {
      return new ProxyRefusal('INVALID_PATH', 'The path holds a control, space or non-ASCII character.');
    }
    if (/[/\\%]/.test(decoded)) {
      return new ProxyRefusal('INVALID_PATH', 'The path holds an encoded slash, backslash or percent sign.');
    }
    if (decoded === '.' || decoded === '..') return new ProxyRefusal('INVALID_PATH', 'The path holds a dot segment.');
    segments.push(decoded);
  }
  return segments;
}

/** The path forwarded upstream: each segment encoded, `:` kept literal. */
export function encodeSegments(segments: readonly string[]): string {
  if (segments.length === 0) return '/';
  return segments.map((s) => '/' + encodeURIComponent(s).replace(/%3A/g, ':')).join('');
}

/** Segments left after the prefix's segments, or `undefined` when the path is not under the prefix. */
export function stripPrefix(segments: readonly string[], prefix: readonly string[]): string[] | undefined {
  if (segments.length < prefix.length) return undefined;
  for (let i = 0; i < prefix.length; i++) if (segments[i] !== prefix[i]) return undefined;
  return segments.slice(prefix.length);
}

/** A short excerpt of untrusted text that is safe to put in one log line. */
export function printable(text: string): string {
  const cut = text.length > 200 ? text.slice(0, 200) + '...' : text;
  return cut.replace(/[^\x20-\x7e]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}
