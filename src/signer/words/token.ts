/**
 * Whom an OIDC ID token names, for the words of adding an OAUTH credential (security review C3):
 * the token comes from the parent page, so the frame shows what the token itself says — its issuer
 * as a readable host, and the email (masked by the describer) or, without one, the subject. Read
 * without verification, for display only: the service verifies the token; the user sees whose
 * identity would be added before approving.
 */
import { base64urlDecode } from '../../crypto/base64url.js';
import { utf8Decode } from '../../crypto/bytes.js';
import { isRecord } from '../../types.js';

export interface TokenIdentity {
  /** The issuer's host (`https://accounts.google.com` → `accounts.google.com`; IDNs in punycode). */
  readonly issuer: string;
  /** The `email` claim, as the token has it. */
  readonly email?: string;
  /** The `sub` claim, as the token has it. */
  readonly subject?: string;
}

/** `iss` as a host: an http(s) URL's host, or a bare host name (Google's `accounts.google.com`). */
function issuerHost(iss: unknown): string | undefined {
  if (typeof iss !== 'string' || iss === '') return undefined;
  const url = /^https?:\/\//i.test(iss) ? iss : /^[a-z0-9.-]+$/i.test(iss) ? `https://${iss}` : undefined;
  if (url === undefined) return undefined;
  try {
    const host = new URL(url).host;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

const claim = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * The identity `token` names, or undefined when it is not a JWT whose payload is a JSON object
 * naming an issuer and an email or a subject (then the describer cannot say whose sign-in it adds).
 */
export function tokenIdentity(token: unknown): TokenIdentity | undefined {
  if (typeof token !== 'string') return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(utf8Decode(base64urlDecode((parts[1] as string).replace(/=+$/, ''), 'oidcToken')));
  } catch {
    return undefined;
  }
  if (!isRecord(claims)) return undefined;
  const issuer = issuerHost(claims.iss);
  const email = claim(claims.email);
  const subject = claim(claims.sub);
  if (issuer === undefined || (email === undefined && subject === undefined)) return undefined;
  return { issuer, ...(email !== undefined ? { email } : {}), ...(subject !== undefined ? { subject } : {}) };
}
