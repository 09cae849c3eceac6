/**
 * What each of the library's own error codes means: the documentation of {@link WalletErrorCode},
 * kept out of errors.ts (and so out of the main browser bundle). Import it from
 * `embedded-wallet-signer/error-codes`; ERRORS.md is generated from it (scripts/errors-md.ts).
 */
import type { WalletErrorCode } from './errors.js';

/** The library's own codes, with what each means (`satisfies` keeps it in step with the union). */
export const WALLET_ERROR_CODES = {
  INVALID_ARGUMENT: 'A function was called with a value of the wrong type or shape.',
  ENCODING_INVALID: 'A hex or base64url string is malformed (bad characters, odd length, padding).',
  INVALID_POINT: 'A P-256 public key has the wrong length or prefix, or is not on the curve.',
  SIGNATURE_MALFORMED: 'An ECDSA signature is not strict minimal DER or not 64 bytes of r||s.',
  MALFORMED_BUNDLE: 'A bundle (OTP target, export, sealed key, encrypted OTP) cannot be parsed.',
  BUNDLE_SIGNATURE_INVALID: 'A bundle signature does not verify.',
  BUNDLE_SIGNER_UNTRUSTED: 'A bundle is signed by a key that is not among the trusted keys.',
  DECRYPTION_FAILED: 'HPKE opening failed (wrong key, tampered ciphertext or tag).',
  CRYPTO_UNAVAILABLE: 'WebCrypto (crypto.subtle) is not available in this context.',
  KEY_STORAGE_UNAVAILABLE: 'The key store cannot be used (IndexedDB missing, blocked or refusing keys).',
  KEY_NOT_FOUND: 'No key with that public key is in the key store.',
  KEY_EVICTED: 'Session metadata survived but its private key is gone (storage was evicted).',
  NETWORK_ERROR: 'The request could not reach the server.',
  TIMEOUT: 'The server did not answer in time.',
  BAD_RESPONSE: 'The server answered with something that is not the expected JSON.',
  SIGNING_REFUSED: 'The onBeforeSign hook refused to sign.',
  SIGNER_FAILED: 'The signer (or getSigner) given to a signed call threw something other than a WalletError.',
  STILL_PROCESSING: 'The service kept answering 200 {"status":"PROCESSING"} after the bounded resends; the action may still complete.',
  ABORTED: "The caller's AbortSignal cancelled the request; or, for `refresh()`, the session was refreshed or ended (in this tab or another) while this refresh was on its way, so its own new session was ended: the account keeps whatever is current.",
  CHALLENGE_EXPIRED: 'The signed-retry challenge expired before it could be signed, even after one restart.',
  UNEXPECTED_CHALLENGE: 'The server asked for more signatures than the action needs (one; two for delegated keys): nothing more was signed.',
  SESSION_EXPIRED: 'The session has expired: log in again.',
  NOT_LOGGED_IN: 'There is no session for this account, or a logout (in any tab) cancelled this call before it was signed: log in first.',
  OTHER_CREDENTIAL_SESSION_REQUIRED:
    'Deleting a credential must be signed by a session of a different credential: log in with another credential first.',
  WEBAUTHN_CANCELLED: 'The user cancelled the passkey prompt or it timed out.',
  WEBAUTHN_NOT_ALLOWED: 'The browser did not allow the passkey ceremony (no user gesture, or no matching passkey).',
  WEBAUTHN_RP_ID_MISMATCH: 'The passkey RP ID does not match this origin.',
  WEBAUTHN_UNSUPPORTED: 'This browser does not support passkeys.',
  WEBAUTHN_FAILED: 'The passkey ceremony failed for another reason (see cause).',
  SESSION_REVOKED: 'The service no longer accepts this session (signed out elsewhere, or evicted by the session limit): log in again.',
  SESSION_REPLACED_DURING_CALL:
    "The service refused the call's signed leg on each of its 4 tries (the first and 3 restarts) because a refresh of this browser (usually another tab's) replaced the session that signed it while the leg was on its way: nothing was done, the user is still logged in; try the call again.",
  CREDENTIAL_NOT_FOUND: 'The account has no credential of the requested type (or with the given id).',
  OTP_CODE_INVALID: 'The service refused the one-time code as wrong, or without saying whether it was wrong or expired (details.attemptsLeft when it says); ask the user to retype it, or resend.',
  OTP_EXPIRED: 'The one-time code expired, was used already or had too many wrong tries: resend a new one.',
  OAUTH_TOKEN_REJECTED: 'The service refused the OIDC token (why, in details.cause, only where the service says: the local sandbox sends OIDC_NONCE_MISMATCH, OIDC_TOKEN_STALE, OIDC_TOKEN_MISMATCH, OIDC_TOKEN_REPLAYED); sign in with the IdP again.',
  OAUTH_NOT_PREPARED: 'No prepared OAuth login in this browser matches the token\'s nonce: call prepareOAuth first.',
  PASSKEY_ASSERTION_REJECTED: 'The service refused the passkey assertion (wrong credential, challenge or signature); prepare a new login.',
  SANDBOX_START_FAILED: 'The local sandbox could not listen on the requested host and port (see cause, e.g. EADDRINUSE).',
  DEPENDENCY_MISSING:
    'An optional peer dependency that this part needs is not installed (the sandbox needs @hpke/core, @simplewebauthn/server and @scure/bip39: details.packages names the missing ones, the message the install command).',
  WALLET_PROVIDER_MISSING:
    'A hook of embedded-wallet-signer/react was called outside <WalletProvider> (or usePendingSignature under a provider given no `signatures`): the message names the hook.',
  SIGNER_FRAME_UNREACHABLE: 'Frame mode: the signer frame did not load or did not answer the handshake in time (wrong URL, the signer is down, or its frame-ancestors / CSP refuse this page), or it was closed.',
  SIGNER_FRAME_TIMEOUT: 'Frame mode: the signer frame did not answer a call in time (the call is cancelled in the frame).',
  SIGNER_FRAME_FAILED: 'Frame mode: the signer frame failed unexpectedly, or its answer did not fit the protocol (the frame\'s console says why).',
  SIGNER_ORIGIN_NOT_ALLOWED: "Frame mode: the signer's host configuration does not list this page's origin in allowedParentOrigins.",
  SIGNER_STORAGE_UNAVAILABLE: "Frame mode: the signer frame cannot store keys in this browser's partition for it (IndexedDB blocked, or the frame is sandboxed without allow-same-origin).",
  SIGNER_DECLINED: 'Frame mode: the user declined in the signer frame (the approval, or the code entry).',
  SIGNER_POPUP_BLOCKED: 'Frame mode: the browser blocked the window on the signer origin that the signer frame opened on the user\'s click: the approval window (for a high-value action, or where the browser cannot tell whether the frame is covered), or the passkey window (the browser refused the passkey in the frame). Nothing was signed; allow popups for this site (and embed the frame with allow-popups if sandboxed), then call again: the user opens the window by a click in the frame.',
  SIGNER_APPROVAL_EXPIRED: 'Frame mode: the approval prompt expired before the user approved it (60 s, or sooner when the service\'s challenge or the quote being executed expired, on the service\'s clock): nothing was signed; call again for a new prompt.',
} as const satisfies Record<WalletErrorCode, string>;

/** The documented meaning of one of our codes (undefined for a service code). */
export function describeWalletError(code: string): string | undefined {
  return Object.hasOwn(WALLET_ERROR_CODES, code) ? WALLET_ERROR_CODES[code as WalletErrorCode] : undefined;
}
