export { listCredentials, findCredential } from './credentials.js';
export { startOtpLogin, addOtpCredential, type OtpLogin, type OtpType } from './otp.js';
export { startEmailOtpLogin, addEmailOtp } from './email-otp.js';
export { startSmsOtpLogin, addSmsOtp } from './sms-otp.js';
export { prepareOAuth, completeOAuth, addOAuthCredential, verifyOAuth, type OAuthLogin } from './oauth.js';
export { preparePasskeyLogin, preparePasskeyRegistration, registerPasskey, type PasskeyLogin } from './passkey.js';
export { webauthnError, type CeremonyConditions } from './webauthn-errors.js';
