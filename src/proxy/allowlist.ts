/**
 * The default allowlist: exactly the method + path pairs the library calls (wire reference §5 and
 * §8; spec §4.2, §4.3, §4.5, §4.6). Placeholder names say which id a segment is, and feed the
 * `authorize` hook's context.
 */
import { invalidArgument } from '../errors.js';
import type { AllowRule, ProxyMethod } from './types.js';

const LIBRARY_ROUTES: AllowRule[] = [
  // Credentials (wire reference §5)
  { method: 'POST', pattern: '/auth/credentials' },
  { method: 'GET', pattern: '/auth/credentials' }, // ?accountId=
  { method: 'POST', pattern: '/auth/credentials/{credentialId}/challenge' },
  { method: 'POST', pattern: '/auth/credentials/{credentialId}/verify' },
  { method: 'DELETE', pattern: '/auth/credentials/{credentialId}' },
  // Sessions
  { method: 'GET', pattern: '/auth/sessions' }, // ?accountId=
  { method: 'DELETE', pattern: '/auth/sessions/{sessionId}' },
  { method: 'POST', pattern: '/auth/sessions/{sessionId}/refresh' },
  // Delegated keys (§8.4)
  { method: 'POST', pattern: '/auth/delegated-keys' },
  { method: 'GET', pattern: '/auth/delegated-keys' }, // ?accountId= | ?fundingSourceId=
  { method: 'GET', pattern: '/auth/delegated-keys/{delegatedKeyId}' },
  { method: 'DELETE', pattern: '/auth/delegated-keys/{delegatedKeyId}' },
  // Internal accounts (§8.1, §8.6; spec §4.3)
  { method: 'GET', pattern: '/internal-account' }, // ?customerId=&currency=
  { method: 'PATCH', pattern: '/internal-accounts/{accountId}' },
  { method: 'POST', pattern: '/internal-accounts/{accountId}/export' },
  // Quotes and transactions (§8.3; spec §4.3, §4.4)
  { method: 'POST', pattern: '/quotes' },
  { method: 'GET', pattern: '/quotes/{quoteId}' },
  { method: 'POST', pattern: '/quotes/{quoteId}/execute' },
  { method: 'GET', pattern: '/transactions' },
  // Customers (§8.2)
  { method: 'GET', pattern: '/customers/{customerId}' },
  { method: 'PATCH', pattern: '/customers/{customerId}' },
  // Cards (spec §4.6), for the delegated-key flow
  { method: 'POST', pattern: '/cards' },
  { method: 'GET', pattern: '/cards/{cardId}' },
];

/** The routes the library uses, frozen. Extend with `[...DEFAULT_ALLOW, { method, pattern }]`. */
export const DEFAULT_ALLOW: readonly AllowRule[] = Object.freeze(LIBRARY_ROUTES.map((rule) => Object.freeze({ ...rule })));

const METHODS: readonly string[] = ['GET', 'POST', 'PATCH', 'DELETE'];
const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const LITERAL = /^[A-Za-z0-9._~:@!$&'()*+,;=-]+$/;

/** A compiled rule: literal segments as strings, placeholders as `{ name }`. */
export interface CompiledRule {
  readonly method: ProxyMethod;
  readonly pattern: string;
  readonly parts: readonly (string | { readonly name: string })[];
}

export function compileRules(rules: readonly AllowRule[]): CompiledRule[] {
  if (!Array.isArray(rules)) throw invalidArgument('allow', 'an array of {method, pattern}');
  return rules.map((rule, i) => {
    const label = `allow[${i}]`;
    if (typeof rule !== 'object' || rule === null) throw invalidArgument(label, 'an object {method, pattern}');
    if (!METHODS.includes(rule.method)) throw invalidArgument(`${label}.method`, 'one of GET, POST, PATCH, DELETE');
    if (typeof rule.pattern !== 'string' || !rule.pattern.startsWith('/') || rule.pattern === '/') {
      throw invalidArgument(`${label}.pattern`, 'a path starting with / such as /quotes/{quoteId}');
    }
    const names = new Set<string>();
    const parts = rule.pattern
      .slice(1)
      .split('/')
      .map((seg: string) => {
        const placeholder = PLACEHOLDER.exec(seg);
        if (placeholder?.[1] !== undefined) {
          if (names.has(placeholder[1])) throw invalidArgument(`${label}.pattern`, 'free of repeated placeholder names');
          names.add(placeholder[1]);
          return { name: placeholder[1] };
        }
        if (!LITERAL.test(seg) || seg === '.' || seg === '..') {
          throw invalidArgument(`${label}.pattern`, 'made of literal segments and {name} placeholders');
        }
        return seg;
      });
    return { method: rule.method, pattern: rule.pattern, parts };
  });
}

export interface RouteMatch {
  readonly rule: CompiledRule;
  readonly params: Record<string, string>;
}

/** The first rule matching method and decoded segments exactly. */
export function matchRoute(rules: readonly CompiledRule[], method: string, segments: readonly string[]): RouteMatch | undefined {
  for (const rule of rules) {
    if (rule.method !== method || rule.parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < rule.parts.length && ok; i++) {
      const part = rule.parts[i];
      const seg = segments[i];
      if (part === undefined || seg === undefined) ok = false;
      else if (typeof part === 'string') ok = part === seg;
      else params[part.name] = seg;
    }
    if (ok) return { rule, params };
  }
  return undefined;
}
