/** SMS one-time-code login and adding an SMS_OTP credential: the OTP flow (otp.ts) on SMS_OTP. */
import type { WalletContext } from '../session/context.js';
import { addOtpCredential, startOtpLogin, type OtpLogin } from './otp.js';

export function startSmsOtpLogin(ctx: WalletContext, args: { accountId: string; credentialId?: string }): Promise<OtpLogin> {
  return startOtpLogin(ctx, { ...args, type: 'SMS_OTP' });
}

/** Adds an SMS_OTP credential for the customer's phone number; activate it with the code sent. */
export function addSmsOtp(ctx: WalletContext, args: { accountId: string }): Promise<OtpLogin> {
  return addOtpCredential(ctx, { ...args, type: 'SMS_OTP' });
}
