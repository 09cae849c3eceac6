/**
 * OAuth / OIDC tokens (wire-reference §5.2), with the sandbox's rules:
 *
 * - Shape: a compact JWT whose header and payload are base64url JSON objects, whose header `alg` is
 *   an IdP's signing algorithm (`RS256`, `ES256`; never `none` nor a shared-secret HMAC) and whose
 *   signature segment is non-empty base64url (any bytes: the sandbox does not check IdP signatures).
 *   Anything else, or missing `iss`/`sub`/`aud`/`iat`/`exp` claims of the right types →
 *   `400 INVALID_INPUT`.
 * - Issuer allowlist: `https://accounts.google.com`, `accounts.google.com`,
 *   `https://appleid.apple.com`; another issuer → `400 INVALID_INPUT` (the sandbox cannot accept it).
 *   `accounts.google.com` and its https form are the same issuer.
 * - Fresh (both uses): `iat` under 60 s old and at most {@link OIDC_MAX_SKEW_MS} in the future (clock
 *   skew between IdP and service), `exp` not passed.
 * - On verify: `iss`, `sub` and `aud` must match the registered credential, `nonce` must be the
 *   lowercase hex SHA-256 of the exact `clientPublicKey` string, the token fresh and never used
 *   before (a token works once: a replay within its 60 s). Failures → `400 INVALID_INPUT` with (sandbox
 *   profile) `details.cause` = `OIDC_TOKEN_MISMATCH` | `OIDC_NONCE_MISMATCH` | `OIDC_TOKEN_STALE` |
 *   `OIDC_TOKEN_REPLAYED`. Decided here: the token is input; spec §7.2 keeps 401 UNAUTHORIZED for
 *   the API credentials, so a refused token is 400 INVALID_INPUT, like a refused OTP bundle.
 * - On registration (adding an OAUTH credential), only what the spec and the wire reference ask
 *   (issue 34: as strict as the spec, no stricter): a well-formed token (the shape rules above) of an
 *   allowed issuer, not expired (`exp` passed → an ID token that is no longer valid, OIDC Core
 *   §3.1.3.7), whose audience can be bound (below). No nonce is demanded, `iat` may be of any age
 *   and the token is not spent: the spec's nonce and 60 s freshness are rules of the login (wire
 *   §5.2 "POST /verify … The service checks"), and a registration token is not a login. Failures →
 *   `400 INVALID_INPUT` on `oidcToken`.
 * - Audience (issue 25, issue 34): the token's `aud` is the app's OAuth client id at the IdP, which
 *   has nothing to do with the platform's API client id (a real Google token never carries it). The
 *   audience is BOUND at registration — the recorded `aud` is the first of the token's audiences that
 *   is one of the platform's OAuth client ids (`oauthClientIds`) — and MATCHED at login (the login
 *   token's `aud` must include the recorded one, with `iss` and `sub`). With no OAuth client id
 *   configured (`oauthClientIds: []`), no audience can be bound: every OAUTH registration → `400
 *   INVALID_INPUT`. `startSandbox` configures {@link DEFAULT_OAUTH_CLIENT_ID} when the option is
 *   not given, the id the stand-in provider issues its tokens for. Never is the API client id
 *   accepted for it: it is not an OAuth client id (unless an app configures it as one).
 *
 * The sandbox's stand-in IdP (routes/oauth-provider.ts) issues such tokens with
 * `iss = https://accounts.google.com`, `aud` = the first configured OAuth client id (by default
 * {@link DEFAULT_OAUTH_CLIENT_ID}, distinct from the API client id), `sub` derived from the email.
 */
import { createHash } from 'node:crypto';
import { bytesToBase64url, utf8 } from '../crypto/encoding.js';
import { decodeJwt, encodeJwtSegment } from '../crypto/jwt.js';
import type { SandboxState } from '../context.js';
import { invalidField, invalidInput } from '../errors.js';

export const OIDC_ISSUERS = ['https://accounts.google.com', 'accounts.google.com', 'https://appleid.apple.com'] as const;
export const OIDC_MAX_AGE_MS = 60 * 1000;
/** How far in the future `iat` may be (the IdP's clock may run a little ahead). */
export const OIDC_MAX_SKEW_MS = 5 * 1000;
/** The signature algorithms of the allowed IdPs' ID tokens. */
export const OIDC_ALGORITHMS = ['RS256', 'ES256'] as const;
export const SANDBOX_ISSUER = 'https://accounts.google.com';
/** The OAuth client id `startSandbox` configures by default and its stand-in IdP issues tokens for (not the API client id). */
export const DEFAULT_OAUTH_CLIENT_ID = 'sandbox-oauth-client';

export interface OidcClaims {
  iss: string;
  sub: string;
  aud: string[];
  iat: number;
  exp: number;
  /** Hex SHA-256 of the whole token (the replay register's key). */
  hash: string;
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
  if (!(OIDC_ALGORITHMS as readonly unknown[]).includes(jwt.header.alg)) return bad(`the header alg must be one of ${OIDC_ALGORITHMS.join(', ')}`);
  const { iss, sub, aud, iat, exp, nonce, email } = jwt.claims;
  if (typeof iss !== 'string' || !(OIDC_ISSUERS as readonly string[]).includes(iss)) {
    return bad(`iss must be one of ${OIDC_ISSUERS.join(', ')}`);
  }
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) return bad('sub must be a non-empty string');
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud as string[]) : undefined;
  if (audiences === undefined || audiences.length === 0 || audiences.some((a) => a.length === 0)) return bad('aud must be a string or an array of strings');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return bad('iat must be a number (seconds)');
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return bad('exp must be a number (seconds)');
  if (nonce !== undefined && typeof nonce !== 'string') return bad('nonce must be a string');
  if (email !== undefined && typeof email !== 'string') return bad('email must be a string');
  return {
    iss: normalizeIssuer(iss),
    sub,
    aud: audiences,
    iat,
    exp,
    hash: createHash('sha256').update(token as string, 'utf8').digest('hex'),
    ...(typeof nonce === 'string' ? { nonce } : {}),
    ...(typeof email === 'string' ? { email } : {}),
  };
}

export function nonceFor(clientPublicKey: string): string {
  return createHash('sha256').update(clientPublicKey, 'utf8').digest('hex');
}

/** Why a token is not fresh at `now`, or undefined when it is. */
function staleness(claims: OidcClaims, now: number): string | undefined {
  const iatMs = claims.iat * 1000;
  if (now - iatMs >= OIDC_MAX_AGE_MS) return 'The token is not fresh (iat must be under 60 s old)';
  if (iatMs - now > OIDC_MAX_SKEW_MS) return 'The token was issued in the future (iat ahead of the service clock)';
  if (claims.exp * 1000 <= now) return 'The token has expired';
  return undefined;
}

/** Checks a verify-time token against the registered credential, the key, the clock and the replay register. */
export function checkOidcLogin(state: SandboxState, claims: OidcClaims, registered: { iss: string; sub: string; aud: string }, clientPublicKey: string): void {
  const fail = (reason: string, cause: string): never => {
    throw invalidInput(reason, undefined, { cause });
  };
  if (claims.iss !== registered.iss || claims.sub !== registered.sub || !claims.aud.includes(registered.aud)) {
    fail('The token does not belong to this credential (iss, sub or aud differ)', 'OIDC_TOKEN_MISMATCH');
  }
  if (claims.nonce !== nonceFor(clientPublicKey)) fail('The token nonce is not the SHA-256 of clientPublicKey', 'OIDC_NONCE_MISMATCH');
  const stale = staleness(claims, state.clock.now());
  if (stale !== undefined) fail(stale, 'OIDC_TOKEN_STALE');
  if (state.store.usedOidcTokens.has(claims.hash)) fail('The token was used already: sign in with the IdP again', 'OIDC_TOKEN_REPLAYED');
}

/** Checks a registration token (see above); `400 INVALID_INPUT` on `oidcToken`. */
export function checkOidcRegistration(state: SandboxState, claims: OidcClaims): void {
  if (boundAudience(state, claims) === undefined) {
    throw invalidField('oidcToken', 'FORMAT', state.config.oauthClientIds.length === 0 ? 'cannot be registered: the platform has no OAuth client id configured' : "aud must name one of the platform's OAuth client ids");
  }
  if (claims.exp * 1000 <= state.clock.now()) throw invalidField('oidcToken', 'RANGE', 'The token has expired');
}

/** The audience a registration binds (see the header), or undefined when none is allowed. */
export function boundAudience(state: SandboxState, claims: OidcClaims): string | undefined {
  const allowed = state.config.oauthClientIds;
  return claims.aud.find((a) => allowed.includes(a));
}

/** The audience the stand-in IdP issues tokens for when the caller names none: the first OAuth client id configured. */
export function providerAudience(state: SandboxState): string {
  return state.config.oauthClientIds[0] ?? DEFAULT_OAUTH_CLIENT_ID;
}

/** Marks a token used (after it was accepted); it stays refused until its `exp`. */
export function spendOidcToken(state: SandboxState, claims: OidcClaims): void {
  state.store.usedOidcTokens.set(claims.hash, claims.exp * 1000);
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
