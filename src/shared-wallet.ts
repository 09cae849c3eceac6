/**
 * What the in-origin `Wallet` (wallet-api.ts) and the frame mode's `FrameWallet`
 * (signer/parent/frame-wallet.ts) have in common, with the same shapes: the session store, the
 * session calls, the signed actions and the passkey and OAuth logins. The React bindings are
 * written against it, so the same hooks run over either wallet. Types only.
 */
import type { OtpType, StartOtpLoginArgs } from './flows/otp.js';
import type { Session } from './session/types.js';
import type { Wallet } from './wallet-api.js';

/** The methods both wallets have with the same signature. */
export type SharedWalletMethod =
  | 'on'
  | 'session'
  | 'sessions'
  | 'serverNow'
  | 'subscribe'
  | 'getSnapshot'
  | 'restore'
  | 'refresh'
  | 'logout'
  | 'listSessions'
  | 'signOutOtherDevices'
  | 'listCredentials'
  | 'deleteCredential'
  | 'createDelegatedKey'
  | 'listDelegatedKeys'
  | 'getDelegatedKey'
  | 'revokeDelegatedKey'
  | 'updateAccount'
  | 'createQuote'
  | 'executeQuote'
  | 'changeContact'
  | 'preparePasskeyLogin'
  | 'preparePasskeyRegistration'
  | 'registerPasskey'
  | 'prepareOAuth'
  | 'completeOAuth'
  | 'addOAuthCredential'
  | 'dispose';

/**
 * A one-time-code login under way, as both wallets give it. Where the user types the code:
 * `codeEntry` absent, in the app (`verify(code)`, the in-origin `OtpLogin`); `'frame'`, in the signer
 * frame (`verify()` with no code opens the frame's code entry; a code given here is refused).
 */
export interface SharedOtpLogin {
  /** The credential (`AuthMethod:…`) the code was sent for. */
  readonly credentialId: string;
  /** Whether the code went by email or SMS. */
  readonly type: OtpType;
  /** `'frame'`: the code is typed in the signer frame; absent: in the app. */
  readonly codeEntry?: 'frame';
  /** Checks the code typed in the app (`verify(code)`), or in frame mode opens the frame's code entry (`verify()`); resolves to the session. */
  verify(code?: string): Promise<Session>;
  /** Sends a new code. */
  resend(): Promise<void>;
}

/** The wallet API both wallets implement (see the module's comment). */
export interface SharedWallet extends Pick<Wallet, SharedWalletMethod> {
  /** Sends a code: by account, or (the proxy's email-first login mode) by `{ email }` / `{ phone }` alone. */
  startOtpLogin(args: StartOtpLoginArgs): Promise<SharedOtpLogin>;
  /** `'frame'` for the frame mode's wallet (keys and approvals in the signer frame); absent in-origin. */
  readonly mode?: 'frame';
}
