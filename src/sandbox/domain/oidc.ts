/**
 * OAuth / OIDC tokens (wire-reference §5.2), with the sandbox's rules:
 *
 * - Shape: a compact JWT whose header and payload are base64url JSON objects and whose signature
 *   segment is non-empty base64url (any bytes: the sandbox does not check IdP signatures).
 *   Anything else, or missing `iss`/`sub`/`aud`/`iat` claims of the right types → `400 INVALID_INPUT`.
 * - Issuer allowlist: `https://accounts.google.com`, `accounts.google.com`,
 *   `https://appleid.apple.com`; another issuer → `400 INVALID_INPUT` (the sandbox cannot accept it).
 *   `accounts.google.com` and its https form are the same issuer.
 * - On verify: `iss`, `sub` and `aud` must match the registered credential, `nonce` must be the
 *   lowercase hex SHA-256 of the exact `clientPublicKey` string, `iat` under 60 s old (and not more
 *   than 60 s in the future), `exp` (if present) not passed. Failures → `401 UNAUTHORIZED` with
 *   `details.cause` = `OIDC_TOKEN_MISMATCH` | `OIDC_NONCE_MISMATCH` | `OIDC_TOKEN_STALE`.
 * - On registration (adding an OAUTH credential) only shape and issuer are checked; `aud` is
 *   recorded (the first one when it is an array).
 *
 * The sandbox's stand-in IdP (routes/oauth-provider.ts) issues such tokens with
 * `iss = https://accounts.google.com`, `aud` = the platform client id, `sub` derived from the email.
 */
import { createHash } from 'node:crypto';
import { bytesToBase64url, utf8 } from '../crypto/encoding.js';
import { decodeJwt, encodeJwtSegment } from '../crypto/jwt.js';
import { invalidField, unauthorized } from '../errors.js';

export const OIDC_ISSUERS = ['https://accounts.google.com', 'accounts.google.com', 'https://appleid.apple.com'] as const;
export const OIDC_MAX_AGE_MS = 60 * 1000;
export const SANDBOX_ISSUER = 'https://accounts.google.com';

export interface OidcClaims {
  iss: string;
  sub: string;
  aud: string[];
  iat: number;
  exp?: number;
  nonce?: string;
  email?: string;
}

/** Canonical issuer for comparisons (`accounts.google.com` ≡ `https://accounts.google.com`). */
export function normalizeIssuer(iss: string): string {
  return iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss;
}

/** Parses an OIDC token by the sandbox's shape rules, or throws `400 INVALID_INPUT` on `field`. */
export function parseOidcToken(token: unknown, field = 'oidcToken'): OidcClaims {
  const bad = (message: string): never => {
    throw invalidField(field, 'FORMAT', message);
  };
  const jwt = decodeJwt(token);
  if (jwt === undefined) return bad('must be a JWT (three base64url segments, JSON header and payload)');
  const { iss, sub, aud, iat, exp, nonce, email } = jwt.claims;
  if (typeof iss !== 'string' || !(OIDC_ISSUERS as readonly string[]).includes(iss)) {
    return bad(`iss must be one of ${OIDC_ISSUERS.join(', ')}`);
  }
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) return bad('sub must be a non-empty string');
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud as string[]) : undefined;
  if (audiences === undefined || audiences.length === 0 || audiences.some((a) => a.length === 0)) return bad('aud must be a string or an array of strings');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return bad('iat must be a number (seconds)');
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp))) return bad('exp must be a number (seconds)');
  if (nonce !== undefined && typeof nonce !== 'string') return bad('nonce must be a string');
  if (email !== undefined && typeof email !== 'string') return bad('email must be a string');
  return {
    iss: normalizeIssuer(iss),
    sub,
    aud: audiences,
    iat,
    ...(typeof exp === 'number' ? { exp } : {}),
    ...(typeof nonce === 'string' ? { nonce } : {}),
    ...(typeof email === 'string' ? { email } : {}),
  };
}

export function nonceFor(clientPublicKey: string): string {
  return createHash('sha256').update(clientPublicKey, 'utf8').digest('hex');
}

/** Checks a verify-time token against the registered credential, the key and the clock. */
export function checkOidcLogin(claims: OidcClaims, registered: { iss: string; sub: string; aud: string }, clientPublicKey: string, now: number): void {
  const fail = (reason: string, cause: string): never => {
    throw unauthorized('UNAUTHORIZED', reason, { cause });
  };
  if (claims.iss !== registered.iss || claims.sub !== registered.sub || !claims.aud.includes(registered.aud)) {
    fail('The token does not belong to this credential (iss, sub or aud differ)', 'OIDC_TOKEN_MISMATCH');
  }
  if (claims.nonce !== nonceFor(clientPublicKey)) fail('The token nonce is not the SHA-256 of clientPublicKey', 'OIDC_NONCE_MISMATCH');
  const iatMs = claims.iat * 1000;
  if (now - iatMs >= OIDC_MAX_AGE_MS || iatMs - now > OIDC_MAX_AGE_MS) fail('The token is not fresh (iat must be under 60 s old)', 'OIDC_TOKEN_STALE');
  if (claims.exp !== undefined && claims.exp * 1000 <= now) fail('The token has expired', 'OIDC_TOKEN_STALE');
}

/** A stable Google-like numeric subject for an email (21 digits). */
export function subjectForEmail(email: string): string {
  const digest = createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
  return `1${BigInt(`0x${digest}`).toString().slice(0, 20)}`;
}

/** A sandbox OIDC token: JWT-shaped, dummy signature, accepted by the sandbox's rules. */
export function sandboxOidcToken(args: { email: string; nonce: string; aud: string; now: number }): string {
  const iat = Math.floor(args.now / 1000);
  const header = encodeJwtSegment({ alg: 'RS256', typ: 'JWT', kid: 'sandbox' });
  const payload = encodeJwtSegment({
    iss: SANDBOX_ISSUER,
    aud: args.aud,
    azp: args.aud,
    sub: subjectForEmail(args.email),
    email: args.email,
    email_verified: true,
    nonce: args.nonce,
    iat,
    exp: iat + 3600,
  });
  return `${header}.${payload}.${bytesToBase64url(utf8('sandbox-unsigned'))}`;
}
