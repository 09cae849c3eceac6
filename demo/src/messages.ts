/**
 * Human messages for every failure a user can cause. Works on WalletErrors and on the demo's own
 * ApiErrors alike (both carry `code`, `message`, maybe `status` and `details`). The code is kept at
 * the end in brackets, for developers and bug reports.
 */

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: unknown;
}

/** Codes that mean "this wallet has no usable session here": the app goes back to the login screen. */
export const SESSION_GONE = new Set(['SESSION_EXPIRED', 'NOT_LOGGED_IN', 'SESSION_REVOKED', 'KEY_EVICTED']);

export function errorCode(error: unknown): string {
  const code = (error as ErrorLike | null)?.code;
  return typeof code === 'string' ? code : 'UNEXPECTED';
}

function details(error: unknown): Record<string, unknown> {
  const d = (error as ErrorLike | null)?.details;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
}

const MESSAGES: Record<string, string> = {
  OTP_EXPIRED: 'That code has expired or was used up. Send a new code and try again.',
  OAUTH_TOKEN_REJECTED: 'The sign-in was not accepted (is OAuth added to this wallet for that email?).',
  OAUTH_NOT_PREPARED: 'That sign-in was not started in this browser, or it is too old. Start it again.',
  SESSION_EXPIRED: 'Your wallet session has expired. Log in again.',
  NOT_LOGGED_IN: 'You are not logged in to this wallet. Log in first.',
  SESSION_REVOKED: 'This session was ended (signed out from another device?). Log in again.',
  KEY_EVICTED: 'The browser deleted the session key from storage. Log in again.',
  WEBAUTHN_CANCELLED: 'The passkey prompt was cancelled or timed out. Try again when you are ready.',
  WEBAUTHN_NOT_ALLOWED: 'The browser did not allow the passkey: no matching passkey on this device, or the prompt was dismissed.',
  WEBAUTHN_RP_ID_MISMATCH: 'This passkey belongs to another site (RP ID mismatch). Open the demo at http://localhost.',
  WEBAUTHN_UNSUPPORTED: 'This browser does not support passkeys.',
  WEBAUTHN_FAILED: 'The passkey ceremony failed.',
  SIGNING_REFUSED: 'You declined to sign, so nothing was done.',
  CHALLENGE_EXPIRED: 'The signing request expired before it was signed. Try again.',
  INSUFFICIENT_FUNDS: 'Not enough funds in the wallet for this transfer. Fund it first, or send less.',
  QUOTE_EXPIRED: 'The quote expired before it was executed. Send again to get a fresh quote.',
  RATE_LIMITED: 'Too many attempts in a short time. Wait a moment and try again.',
  OTHER_CREDENTIAL_SESSION_REQUIRED:
    'A credential cannot delete itself: log in with another credential of this wallet (then come back here) to delete this one.',
  CREDENTIAL_NOT_FOUND: 'This wallet has no credential of that kind. Add it first (from a logged-in session).',
  EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS: 'This wallet already has an email-code credential.',
  SMS_OTP_CREDENTIAL_ALREADY_EXISTS: 'This wallet already has an SMS-code credential.',
  PASSKEY_CREDENTIAL_ALREADY_EXISTS: 'This passkey is already registered on the wallet.',
  MISSING_MANDATORY_USER_INFO: 'The customer has no email or phone number for that kind of code.',
  EMAIL_OTP_EMAIL_ALREADY_EXISTS: 'Another wallet already uses that email for its login codes.',
  SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS: 'Another wallet already uses that phone number for its login codes.',
  EMAIL_OTP_CREDENTIAL_SET_CHANGED: 'The wallet credentials changed while signing. Try again.',
  SMS_OTP_CREDENTIAL_SET_CHANGED: 'The wallet credentials changed while signing. Try again.',
  BUNDLE_SIGNATURE_INVALID: 'The code bundle from the service has a bad signature: refusing to use it.',
  BUNDLE_SIGNER_UNTRUSTED: 'The code bundle is signed by an enclave key this app does not trust: refusing to use it.',
  KEY_STORAGE_UNAVAILABLE: 'This browser cannot store keys (private mode or storage blocked).',
  CRYPTO_UNAVAILABLE: 'This page needs WebCrypto: open it at http://localhost, not an IP address or file.',
  NETWORK_ERROR: 'The demo server could not be reached. Is `npm start` still running?',
  TIMEOUT: 'The server did not answer in time. Try again.',
  UPSTREAM_UNAVAILABLE: 'The payments service (sandbox) could not be reached.',
  UPSTREAM_TIMEOUT: 'The payments service (sandbox) did not answer in time.',
  LOGIN_REQUIRED: 'The demo does not know who you are any more (was it restarted?). Create or pick a demo customer.',
  NO_DEMO_CUSTOMER: 'This demo has not created a customer with that email. Create one instead.',
  FORBIDDEN: 'The demo backend refused: that belongs to another customer.',
  STILL_PROCESSING: 'The service is still processing this. Check again in a moment.',
  SELF_PAYMENT: 'The source and the destination are the same account.',
  QUOTE_RATE_UNAVAILABLE: 'These two accounts hold different currencies: no rate is available.',
  CARDHOLDER_KYC_NOT_APPROVED: 'Cards need an approved customer (KYC).',
};

/** A sentence for the user, ending with the code in brackets. */
export function humanMessage(error: unknown): string {
  const code = errorCode(error);
  const d = details(error);
  const reason = typeof (error as ErrorLike | null)?.message === 'string' ? String((error as ErrorLike).message) : '';
  let text = MESSAGES[code];
  if (code === 'OTP_CODE_INVALID') {
    const left = typeof d.attemptsLeft === 'number' ? ` ${d.attemptsLeft} attempt${d.attemptsLeft === 1 ? '' : 's'} left.` : '';
    text = `That code is not right. Check it and try again.${left}`;
  } else if (code === 'INVALID_INPUT' && d.cause === 'LAST_CREDENTIAL') {
    text = 'This is the wallet’s last credential: add another one before deleting it.';
  } else if (code === 'INVALID_INPUT' && d.cause === 'CREDENTIAL_LIMIT') {
    text = 'The wallet already has the maximum number of credentials (5). Delete one first.';
  } else if (code === 'CONFLICT' && /delegated/i.test(reason)) {
    text = 'This card already has an active delegated key. Revoke it first.';
  } else if (text === undefined && Array.isArray(d.errors) && d.errors.length > 0) {
    const fields = d.errors
      .map((e) => (typeof e === 'object' && e !== null ? `${String((e as { field?: unknown }).field ?? '')} ${String((e as { message?: unknown }).message ?? '')}`.trim() : ''))
      .filter((s) => s !== '');
    text = `Please check: ${fields.join('; ')}.`;
  }
  if (text === undefined) text = reason !== '' && reason !== code ? reason : 'Something went wrong.';
  return `${text} [${code}]`;
}
