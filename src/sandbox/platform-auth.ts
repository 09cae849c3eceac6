/**
 * Platform authentication (spec §5.1): `Authorization: Basic base64(client_id:client_secret)`.
 * Anything else — absent, another scheme, bad base64, no colon, wrong id or secret — is
 * `401 UNAUTHORIZED` with `WWW-Authenticate: Basic`. Comparison is constant-time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SandboxError } from './errors.js';
import type { SandboxConfig } from './context.js';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function same(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function checkPlatformAuth(header: string | undefined, config: SandboxConfig): void {
  const fail = (reason: string): never => {
    throw new SandboxError(401, 'UNAUTHORIZED', reason, undefined, { 'WWW-Authenticate': 'Basic realm="sandbox"' });
  };
  if (header === undefined) return fail('Platform credentials are required (HTTP Basic)');
  const match = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (match === null) return fail('Platform credentials must use HTTP Basic');
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return fail('Platform credentials are malformed');
  const id = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  // Evaluate both comparisons so timing does not tell which part was wrong.
  const idOk = same(id, config.clientId);
  const secretOk = same(secret, config.clientSecret);
  if (!idOk || !secretOk) fail('Platform credentials were rejected');
}
