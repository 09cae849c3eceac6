/**
 * WebAuthn failures → WalletError codes, with the browser's DOMException as `cause` (after
 * SimpleWebAuthn's `identify*Error`, which wraps it in a WebAuthnError).
 *
 * Decision on NotAllowedError: browsers raise it alike for "the user dismissed the prompt", "it
 * timed out" and "not allowed here" (no user activation, page not focused), on purpose (privacy).
 * It is WEBAUTHN_NOT_ALLOWED when the page visibly lacked what the ceremony needs (no transient user
 * activation, or no focus, as seen just before the call), else WEBAUTHN_CANCELLED, by far the most
 * common cause.
 */
import { WalletError, isWalletError } from '../errors.js';

export interface CeremonyConditions {
  /** `navigator.userActivation.isActive` just before the call (undefined when the API is missing). */
  activation: boolean | undefined;
  /** `document.hasFocus()` just before the call (undefined outside a document). */
  focused: boolean | undefined;
}

function domError(error: unknown): { name: string; code: string | undefined; original: unknown } {
  if (typeof error !== 'object' || error === null) return { name: '', code: undefined, original: error };
  const e = error as { name?: unknown; code?: unknown; cause?: unknown };
  // SimpleWebAuthn's WebAuthnError: a string `code` and the DOMException as `cause`.
  if (typeof e.code === 'string' && e.code.startsWith('ERROR_') && typeof e.cause === 'object' && e.cause !== null) {
    const cause = e.cause as { name?: unknown };
    return { name: typeof cause.name === 'string' ? cause.name : '', code: e.code, original: e.cause };
  }
  return { name: typeof e.name === 'string' ? e.name : '', code: undefined, original: error };
}

export function webauthnError(error: unknown, conditions: CeremonyConditions): WalletError {
  if (isWalletError(error)) return error;
  const { name, code, original } = domError(error);
  const message = original instanceof Error ? original.message : undefined;
  const make = (c: string): WalletError => new WalletError(c, message, { cause: original });
  if (code === 'ERROR_INVALID_RP_ID' || code === 'ERROR_INVALID_DOMAIN' || name === 'SecurityError') return make('WEBAUTHN_RP_ID_MISMATCH');
  if (name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED') return make('WEBAUTHN_CANCELLED');
  // Registration only (InvalidStateError from create): the authenticator holds one of excludeCredentials.
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
    return new WalletError('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'this authenticator already holds a passkey of this account', { cause: original });
  }
  if (name === 'NotAllowedError') {
    return make(conditions.activation === false || conditions.focused === false ? 'WEBAUTHN_NOT_ALLOWED' : 'WEBAUTHN_CANCELLED');
  }
  if (name === 'NotSupportedError' || code === 'ERROR_MALFORMED_PUBKEYCREDPARAMS' || code === 'ERROR_AUTHENTICATOR_NO_SUPPORTED_PUBKEYCREDPARAMS_ALG') {
    return make('WEBAUTHN_UNSUPPORTED');
  }
  return make('WEBAUTHN_FAILED');
}

/** What the page looks like right now, for telling "not allowed" from "cancelled" afterwards. */
export function ceremonyConditions(): CeremonyConditions {
  const nav = (globalThis as { navigator?: { userActivation?: { isActive?: unknown } } }).navigator;
  const doc = (globalThis as { document?: { hasFocus?: () => boolean } }).document;
  const active = nav?.userActivation?.isActive;
  let focused: boolean | undefined;
  try {
    focused = typeof doc?.hasFocus === 'function' ? doc.hasFocus() : undefined;
  } catch {
    focused = undefined;
  }
  return { activation: typeof active === 'boolean' ? active : undefined, focused };
}
