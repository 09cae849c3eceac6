/**
 * Every signed action in words (issue 33): given the request the signer frame itself is about to
 * send and what it knows, the description its approval screen shows. Pure: no DOM, no network.
 * A request no describer matches is refused with SIGNING_REFUSED, or, only when the host's
 * configuration sets `allowUnknown`, described as "unknown action" with its raw request.
 */
import { WalletError } from '../../errors.js';
import { ROUTES, type Env } from './kinds.js';
import { stringsWith } from './strings.js';
import type { KnownFacts, SignedRequest, WordsDescription, WordsOptions } from './types.js';

export { DEFAULT_STRINGS, stringsWith, type StringKey, type Strings } from './strings.js';
export { maskEmail, maskPhone, formatAmount } from './format.js';
export type { KnownFacts, Line, SignedRequest, WordsDescription, WordsKind, WordsOptions } from './types.js';

/** The path's segments decoded, or undefined for a path that is not `/a/b/…` with decodable segments. */
function segments(path: string): string[] | undefined {
  if (!path.startsWith('/') || path.includes('?') || path.includes('#')) return undefined;
  try {
    return path.slice(1).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

function match(pattern: readonly string[], parts: readonly string[]): string[] | undefined {
  if (pattern.length !== parts.length) return undefined;
  const ids: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const part = parts[i] as string;
    if (pattern[i] === '*') {
      if (part === '') return undefined;
      ids.push(part);
    } else if (pattern[i] !== part) return undefined;
  }
  return ids;
}

/** The description of `request`; SIGNING_REFUSED when it cannot be described and unknown actions are not allowed. */
export function describeSignedRequest(request: SignedRequest, facts: KnownFacts = {}, options: WordsOptions = {}): WordsDescription {
  const env: Env = { s: stringsWith(options.strings), locale: options.locale, timeZone: options.timeZone };
  const parts = typeof request.path === 'string' ? segments(request.path) : undefined;
  if (parts !== undefined) {
    for (const route of ROUTES) {
      if (route.method !== request.method) continue;
      const ids = match(route.path, parts);
      if (ids === undefined) continue;
      const described = route.describe(request, ids, facts, env);
      if (described !== undefined) return described;
    }
  }
  if (options.allowUnknown !== true) {
    throw new WalletError('SIGNING_REFUSED', 'the signer cannot put this request in words, and its configuration does not allow unknown actions');
  }
  const raw = JSON.stringify({ method: String(request.method), path: String(request.path), ...(request.body !== undefined ? { body: request.body } : {}) }, null, 2);
  return {
    kind: 'unknown',
    title: env.s.unknownTitle,
    lines: [{ label: env.s.request, value: `${String(request.method)} ${String(request.path)}` }],
    warnings: [env.s.unknownWarning],
    raw,
  };
}

/** The description as the frame's approval screen takes it (`{ title, lines: [label, value][] }`), warnings and raw as lines last. */
export function toApprovalLines(description: WordsDescription, options: Pick<WordsOptions, 'strings'> = {}): { title: string; lines: (readonly [string, string])[] } {
  const s = stringsWith(options.strings);
  return {
    title: description.title,
    lines: [
      ...description.lines.map((l) => [l.label, l.value] as const),
      ...description.warnings.map((w) => [s.warning, w] as const),
      ...(description.raw !== undefined ? [[s.body, description.raw] as const] : []),
    ],
  };
}
