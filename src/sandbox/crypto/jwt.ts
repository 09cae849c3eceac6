/**
 * Compact JWTs: ES256 signing (the enclave's verification tokens) and strict structural parsing
 * (OIDC tokens, whose signatures the sandbox does not check: wire-reference §5.2).
 */
import { base64urlToBytes, bytesToBase64url, fromUtf8, parseJson, utf8 } from './encoding.js';
import { isPlainObject } from '../validate.js';

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signature: Uint8Array;
  signingInput: string;
}

const MAX_TOKEN_LENGTH = 16_384;

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = base64urlToBytes(segment);
  if (bytes === undefined || bytes.length === 0) return undefined;
  const text = fromUtf8(bytes);
  if (text === undefined) return undefined;
  const parsed = parseJson(text);
  return parsed !== undefined && isPlainObject(parsed.value) ? parsed.value : undefined;
}

/** Parses `header.payload.signature`; `undefined` unless all three are well-formed and non-empty. */
export function decodeJwt(token: unknown): DecodedJwt | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeSegment(h);
  const claims = decodeSegment(p);
  const signature = base64urlToBytes(s);
  if (header === undefined || claims === undefined || signature === undefined || signature.length === 0) return undefined;
  return { header, claims, signature, signingInput: `${h}.${p}` };
}

export function encodeJwtSegment(value: Record<string, unknown>): string {
  return bytesToBase64url(utf8(JSON.stringify(value)));
}

/** Builds a JWT whose signature is produced by `signP1363` over the signing input (ES256 = r‖s). */
export function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, signP1363: (data: Uint8Array) => Uint8Array): string {
  const input = `${encodeJwtSegment(header)}.${encodeJwtSegment(claims)}`;
  return `${input}.${bytesToBase64url(signP1363(utf8(input)))}`;
}
