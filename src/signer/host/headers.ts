/**
 * The headers the signer page must be served with, from its host configuration: a strict
 * Content-Security-Policy whose `frame-ancestors` names exactly the allowed parent origins (the
 * browser then refuses to show the page in any other), `Origin-Agent-Cluster` (its own process
 * where the browser can), no referrer, no MIME sniffing. Any host (CDN, static server) should send
 * the same; `serveSignerPage` does.
 */
import type { SignerConfig } from '../frame/config.js';

/** The signer's host configuration (served as signer-config.json; checked by the page). */
export type SignerHostConfig = SignerConfig;

/** The headers to serve the signer page (and its files) with, for the host configuration `config`. */
export function signerPageHeaders(config: Pick<SignerHostConfig, 'allowedParentOrigins' | 'baseUrl'>): Record<string, string> {
  const proxy = new URL(config.baseUrl).origin;
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    `connect-src 'self' ${proxy}`,
    `frame-ancestors ${config.allowedParentOrigins.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'Origin-Agent-Cluster': '?1',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
