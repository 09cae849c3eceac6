/**
 * Email and SMS one-time-code login (wire reference §5.1): challenge → check the enclave's target
 * bundle against the trusted keys → on `verify(code)` a fresh session key, the code and that key's
 * public key HPKE-sealed to the enclave → `/verify` answers 202 with the verification token → stamp
 * it with the new key → the session. Also adding an OTP credential (signed by the current session),
 * which is then activated by its first verify.
 */
import { parseOtpTargetBundle } from '../crypto/bundles.js';
import { buildEncryptedOtpBundle, verifySignedBundle } from '../crypto/enclave.js';
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import { createKeyPlan, type Session, type WalletContext } from '../session/index.js';
import type { AuthMethodResponse } from '../types.js';
import { accountIdOf, addCredential, credentialPath, findCredential, isVerifyRefusal, refusedAs } from './credentials.js';

/** The one-time-code credential types: a code by email or by SMS. */
export type OtpType = 'EMAIL_OTP' | 'SMS_OTP';

/**
 * An OTP login under way (`wallet.startOtpLogin`): the code was sent; `verify` it with what the user
 * typed, or `resend`.
 */
export interface OtpLogin {
  /** The credential (`AuthMethod:…`) the code was sent for. */
  readonly credentialId: string;
  /** Whether the code went by email or SMS. */
  readonly type: OtpType;
  /**
   * Checks the code and creates the session. Errors: OTP_CODE_INVALID (retype; details.attemptsLeft
   * when the service says), OTP_EXPIRED (resend: the code expired, or this login used it already),
   * BUNDLE_SIGNER_UNTRUSTED / BUNDLE_SIGNATURE_INVALID.
   */
  verify(code: string): Promise<Session>;
  /** Sends a new code (the previous one stops working). RATE_LIMITED with details.retryAfterMs when asked too often. */
  resend(): Promise<void>;
}

function checkType(type: unknown): OtpType {
  if (type !== 'EMAIL_OTP' && type !== 'SMS_OTP') throw invalidArgument('type', "'EMAIL_OTP' or 'SMS_OTP'");
  return type;
}

function targetBundleOf(answer: AuthMethodResponse | undefined): string {
  const bundle = answer?.otpEncryptionTargetBundle;
  if (typeof bundle !== 'string' || bundle === '') throw new WalletError('BAD_RESPONSE', 'the answer carries no otpEncryptionTargetBundle');
  return bundle;
}

/** Parses and verifies a target bundle up front, so an untrusted enclave fails before the user types. */
async function checkedBundle(ctx: WalletContext, bundle: string): Promise<string> {
  await verifySignedBundle(parseOtpTargetBundle(bundle), ctx.trustedKeys);
  return bundle;
}

async function challenge(ctx: WalletContext, credentialId: string): Promise<string> {
  const answer = await ctx.client.request<AuthMethodResponse>({ method: 'POST', path: credentialPath(credentialId, 'challenge'), body: {} });
  return checkedBundle(ctx, targetBundleOf(answer));
}

/**
 * Decision: the spec says `400 INVALID_INPUT` for a rejected OTP bundle, the wire reference "401
 * for a wrong code" (both are taken: isVerifyRefusal); the service does not say whether a refused
 * code was wrong, expired or used. What the library knows for sure comes first:
 * - the code was used up when a verify of this login got past leg 1 (the service answered the
 *   challenge: it accepted the code) — a later 401 is OTP_EXPIRED ("send a new code"), and so is a
 *   challenge that expired before its signed leg was accepted (the call is not restarted: leg 1
 *   again would re-post a used code, issue 18);
 * - else `details.cause` when the service explains (the sandbox profile: OTP_CODE_INVALID |
 *   OTP_EXPIRED). Neither the spec (§7: `details` holds field `errors[]`) nor the wire reference
 *   defines it: it is a refinement read only when present and only with one of these two values,
 *   never required; the `service` and `spec-minimal` profiles never send it, and then the
 *   fallback below is the answer (issue 34);
 * - else OTP_CODE_INVALID, the message saying the service did not tell wrong from expired
 *   (platform-credential failures would have failed the challenge already).
 * Signature codes of the signed leg (WALLET_SIGNATURE_*) pass through unchanged.
 */
function otpError(error: unknown, codeUsed: boolean): unknown {
  if (isWalletError(error, 'CHALLENGE_EXPIRED')) {
    return new WalletError('OTP_EXPIRED', 'the verification expired before it was signed and the code is used up: send a new code (resend())', { cause: error });
  }
  // 401 UNAUTHORIZED (wire reference) or 400 INVALID_INPUT (spec); 401 WALLET_SIGNATURE_* pass through.
  const refused = isVerifyRefusal(error) && (error.code === 'UNAUTHORIZED' || error.code === 'INVALID_INPUT');
  if (!refused) return error;
  if (codeUsed) return new WalletError('OTP_EXPIRED', 'this code was used already: send a new code (resend())', { cause: error, ...(error.status !== undefined ? { status: error.status } : {}) });
  const cause = error.details?.cause;
  if (cause === 'OTP_EXPIRED' || cause === 'OTP_CODE_INVALID') return refusedAs(cause, error);
  return new WalletError('OTP_CODE_INVALID', 'the service refused the code and does not say whether it is wrong or expired: retype it, or resend()', {
    cause: error,
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
  });
}

function otpLogin(ctx: WalletContext, args: { accountId: string; credentialId: string; type: OtpType; bundle: string }): OtpLogin {
  let bundle = args.bundle;
  /** The service accepted the current code once (a verify got past leg 1): it cannot work again. */
  let codeUsed = false;
  return {
    credentialId: args.credentialId,
    type: args.type,
    async verify(code) {
      if (typeof code !== 'string' || code.trim() === '') throw invalidArgument('code', 'the one-time code (a non-empty string)');
      // The login starts now: a logout called from here on wins (I1), however long the key takes.
      const loggingIn = ctx.sessions.loginStarts(args.accountId);
      const plan = await createKeyPlan();
      const encryptedOtpBundle = await buildEncryptedOtpBundle({
        targetBundle: bundle,
        otpCode: code.trim(),
        sessionPublicKeyHex: plan.clientPublicKey,
        trustedKeys: ctx.trustedKeys,
      });
      // A login in flight holds the account's login lock (shared) until its session is stored.
      return loggingIn(async (ticket) => {
        let answer: unknown;
        const usedBefore = codeUsed;
        try {
          answer = await ctx.client.signed<unknown>({
            method: 'POST',
            path: credentialPath(args.credentialId, 'verify'),
            body: { type: args.type, encryptedOtpBundle },
            // The verification token is bound to this key: it signs the retry (wire reference §4).
            // Asked for at the first challenge, i.e. once the service accepted the code.
            getSigner: () => {
              codeUsed = true;
              return plan.key;
            },
            purpose: 'otp-verify',
            // Leg 1 used the code up: starting over would post it again (issue 18).
            restartOnExpiry: false,
            // A logout requested meanwhile cancels the signature if it is not sent yet.
            signingSignal: ticket.signal,
          });
        } catch (error) {
          if (isWalletError(error, 'CHALLENGE_EXPIRED')) codeUsed = true;
          throw otpError(error, usedBefore);
        }
        codeUsed = true;
        return ctx.sessions.establish(answer, { accountId: args.accountId, credentialId: args.credentialId, credentialType: args.type, key: plan.key, ticket });
      });
    },
    async resend() {
      bundle = await challenge(ctx, args.credentialId);
      codeUsed = false;
    },
  };
}

/**
 * What `startOtpLogin` takes: the wallet account (the app knows its user), or, with the proxy's
 * email-first login mode (`emailLogin`, src/proxy/email-login.ts), the user's email or phone alone.
 */
export type StartOtpLoginArgs =
  | { readonly accountId: string; readonly type?: OtpType; readonly credentialId?: string }
  | { readonly email: string }
  | { readonly phone: string };

/** The path of the proxy's email-first start route, relative to the wallet's baseUrl. */
export const LOGIN_START_PATH = '/login/start';

/**
 * Email-first: `POST {baseUrl}/login/start {email}` (or `{phone}`); the app's backend finds or
 * provisions the customer, starts the challenge and answers `{accountId, credentialId, type,
 * otpEncryptionTargetBundle}` (and sets its login-ticket cookie, which the verify then carries).
 * Decision: every field is checked here (BAD_RESPONSE otherwise) and the bundle's signature against
 * the trusted keys before the user types, as for the account path.
 */
async function startByContact(ctx: WalletContext, contact: { email: string } | { phone: string }): Promise<OtpLogin> {
  const [field, value] = 'email' in contact ? ['email', contact.email] : ['phone', contact.phone];
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument(field, field === 'email' ? 'an email address' : 'a phone number in E.164 (+14155550123)');
  const answer = await ctx.client.request<Record<string, unknown>>({ method: 'POST', path: LOGIN_START_PATH, body: { [field]: value.trim() } });
  const { accountId, credentialId, type } = answer ?? {};
  if (typeof accountId !== 'string' || accountId === '' || typeof credentialId !== 'string' || credentialId === '' || (type !== 'EMAIL_OTP' && type !== 'SMS_OTP')) {
    throw new WalletError('BAD_RESPONSE', `${LOGIN_START_PATH} answered without accountId, credentialId and type`);
  }
  const bundle = await checkedBundle(ctx, targetBundleOf(answer as AuthMethodResponse));
  return otpLogin(ctx, { accountId, credentialId, type, bundle });
}

/** Sends a code to the account's EMAIL_OTP (or SMS_OTP) credential and returns the login to finish. */
export async function startOtpLogin(ctx: WalletContext, args: StartOtpLoginArgs): Promise<OtpLogin> {
  if (typeof args === 'object' && args !== null && !('accountId' in args) && ('email' in args || 'phone' in args)) return startByContact(ctx, args);
  const accountId = accountIdOf(args);
  const account = args as { type?: OtpType; credentialId?: string };
  const type = checkType(account.type ?? 'EMAIL_OTP');
  const credential = await findCredential(ctx.client, accountId, type, account.credentialId);
  const bundle = await challenge(ctx, credential.id);
  return otpLogin(ctx, { accountId, credentialId: credential.id, type, bundle });
}

/**
 * Adds an EMAIL_OTP or SMS_OTP credential (signed by the account's current session; the service
 * sends the code on the signed leg) and returns the login that activates it with that code.
 * Errors: EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS / SMS_OTP_CREDENTIAL_ALREADY_EXISTS,
 * MISSING_MANDATORY_USER_INFO (no email / phone on the customer), NOT_LOGGED_IN.
 */
export async function addOtpCredential(ctx: WalletContext, args: { accountId: string; type: OtpType }): Promise<OtpLogin> {
  const accountId = accountIdOf(args);
  const type = checkType(args.type);
  const added = await addCredential<AuthMethodResponse>(ctx, { type, accountId });
  // The bundle "may be inline" (wire reference §5): ask for one only when it is not, since every
  // challenge sends another code and counts against the rate limit.
  const inline = added.otpEncryptionTargetBundle;
  const bundle = typeof inline === 'string' && inline !== '' ? await checkedBundle(ctx, inline) : await challenge(ctx, added.id);
  return otpLogin(ctx, { accountId, credentialId: added.id, type, bundle });
}
