/**
 * Changing a customer's email or phone number (wire reference §8.2, spec §5.3):
 * `PATCH /customers/{id}`. When the new value must also change the customer's EMAIL_OTP (or
 * SMS_OTP) credentials the service answers `202` and the change is signed by a session of one of
 * the customer's wallets; otherwise it answers `200` at once and no session is needed.
 */
import { invalidArgument } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord, type Customer } from '../types.js';
import { ACCOUNT_ID, expectRecord, optionalString, requireString, seg } from './args.js';
import { signedIfAsked } from './signing.js';

/** Exactly one contact field per call. */
export type ContactChange = { email: string } | { phoneNumber: string };

/** Options of `wallet.changeContact`. */
export interface ChangeContactOptions {
  /** The wallet whose session signs when the service asks; default the current session's account. */
  accountId?: string;
}

function checkChange(change: unknown): { email: string } | { phoneNumber: string } {
  if (!isRecord(change)) throw invalidArgument('change', 'an object { email } or { phoneNumber }');
  // Fields set to undefined count as absent (JSON would drop them too).
  const keys = Object.keys(change).filter((k) => change[k] !== undefined);
  // The service refuses both at once (400 INVALID_INPUT); the library refuses before any request.
  if (keys.includes('email') && keys.includes('phoneNumber')) {
    throw invalidArgument('change', 'one field per call: { email } or { phoneNumber }, not both (change them in two calls)');
  }
  const extra = keys.filter((k) => k !== 'email' && k !== 'phoneNumber');
  if (extra.length > 0 || keys.length !== 1) throw invalidArgument('change', `exactly one of { email } or { phoneNumber }${extra.length > 0 ? ` (not ${extra.join(', ')})` : ''}`);
  if (keys[0] === 'email') return { email: requireString(change.email, 'change.email', 'an email address') };
  return { phoneNumber: requireString(change.phoneNumber, 'change.phoneNumber', 'an E.164 phone number, e.g. +15551234567') };
}

/**
 * One request when the service answers at once, two when it asks for a signature. Errors: the
 * service's `409 EMAIL_OTP_EMAIL_ALREADY_EXISTS` / `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS` (another
 * wallet's OTP credential has that value), `409 EMAIL_OTP_CREDENTIAL_SET_CHANGED` /
 * `SMS_OTP_CREDENTIAL_SET_CHANGED` (credentials changed between the legs: call again),
 * `400 INVALID_INPUT` (malformed value), NOT_LOGGED_IN when a signature is asked for and this
 * browser holds no session.
 */
export async function changeContact(ctx: WalletContext, customerId: string, change: ContactChange, options: ChangeContactOptions = {}): Promise<Customer> {
  const id = requireString(customerId, 'customerId', 'a Customer id');
  const body = checkChange(change);
  if (!isRecord(options)) throw invalidArgument('options', 'an object');
  const accountId = optionalString(options.accountId, 'options.accountId', ACCOUNT_ID);
  const answer = await signedIfAsked<unknown>(ctx, accountId, {
    method: 'PATCH',
    path: `/customers/${seg(id)}`,
    body,
    purpose: 'change-contact',
  });
  return expectRecord<Customer>(answer, 'a Customer');
}
