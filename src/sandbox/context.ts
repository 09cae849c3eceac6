/**
 * The types every route handler sees: the sandbox state and one request's context.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from './clock.js';
import type { Enclave } from './enclave.js';
import type { Faults } from './faults.js';
import type { Logger } from './log.js';
import type { SandboxProfile } from './profile.js';
import type { QuoteExecuteMode } from './quote-execute.js';
import type { Store } from './store.js';

/** The API version the sandbox serves: its base URL ends in `/2025-10-13`. */
export const API_VERSION = '2025-10-13';
export const BASE_PATH = `/${API_VERSION}`;

export interface SandboxConfig {
  clientId: string;
  clientSecret: string;
  /** Origins accepted in WebAuthn client data. */
  origins: string[];
  /** WebAuthn relying-party id. */
  rpId: string;
  /** Top origins accepted for a cross-origin ceremony (client data `crossOrigin: true`); empty: none. */
  topOrigins: string[];
  /**
   * The platform's OAuth client ids (the `aud` of its users' ID tokens), one of which a registration
   * token must name; empty: none configured, no OAUTH credential can be registered (domain/oidc.ts).
   */
  oauthClientIds: readonly string[];
  /** Regions whose customers are in the contact-verification regime; undefined: all (routes/contact-verification.ts). */
  contactVerificationRegions: readonly string[] | undefined;
  /** What answers carry beyond the contract (profile.ts). */
  profile: SandboxProfile;
  /** How an embedded-wallet quote execution is signed (quote-execute.ts). */
  quoteExecute: QuoteExecuteMode;
}

export interface SandboxState {
  readonly config: SandboxConfig;
  readonly clock: Clock;
  readonly store: Store;
  readonly enclave: Enclave;
  readonly logger: Logger;
  /** Faults armed on demand (faults.ts). */
  readonly faults: Faults;
}

export interface RequestContext {
  readonly state: SandboxState;
  readonly method: string;
  /** Path relative to the base (`/customers/Customer:…`), percent-decoded per segment. */
  readonly path: string;
  /** Values of the route's `:name` segments. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body (`undefined` when empty), or the fields of a form-urlencoded body. */
  readonly body: unknown;
  /** The body exactly as sent, as UTF-8 text (`''` when there is none): signed retries compare it byte for byte. */
  readonly rawBody: string;
  /** One header's value, trimmed; `undefined` when absent or empty. */
  header(name: string): string | undefined;
  /** A route parameter (always present for a matched route). */
  param(name: string): string;
}

/** What a handler returns; the server writes it. */
export type Reply =
  | { status: number; json?: unknown; headers?: Record<string, string> }
  | { status: number; text: string; contentType: string; headers?: Record<string, string> };

export function json(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, json: body } : { status, json: body, headers };
}

export function noContent(): Reply {
  return { status: 204 };
}

export function html(status: number, text: string): Reply {
  return { status, text, contentType: 'text/html; charset=utf-8' };
}

export function redirect(location: string): Reply {
  return { status: 302, text: '', contentType: 'text/plain; charset=utf-8', headers: { Location: location } };
}
