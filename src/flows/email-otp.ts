/** Email one-time-code login: the OTP flow (otp.ts) on the account's EMAIL_OTP credential. */
import type { WalletContext } from '../session/context.js';
import { addOtpCredential, startOtpLogin, type OtpLogin } from './otp.js';

export function startEmailOtpLogin(ctx: WalletContext, args: { accountId: string; credentialId?: string }): Promise<OtpLogin> {
  return startOtpLogin(ctx, { ...args, type: 'EMAIL_OTP' });
}

/** Re-adds the EMAIL_OTP credential (after it was deleted); activate it with the code sent. */
export function addEmailOtp(ctx: WalletContext, args: { accountId: string }): Promise<OtpLogin> {
  return addOtpCredential(ctx, { ...args, type: 'EMAIL_OTP' });
}
