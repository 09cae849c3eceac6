/**
 * `embedded-wallet-signer/frame`: the app's side of frame mode. The keys, the sessions, the codes
 * the user types and the approval of each signature live in the signer frame, a page on an origin
 * of its own (`embedded-wallet-signer/signer-page`); this entry is the thin client that talks to
 * it. It imports no key or session code.
 *
 * @example
 * ```ts
 * import { createWallet, signerFrame } from 'embedded-wallet-signer/frame';
 * const wallet = createWallet({ signer: signerFrame({ url: 'https://signer.app.example/' }) });
 * await wallet.restore();
 * const login = await wallet.startOtpLogin({ accountId });        // or { email } with the proxy's email-first mode
 * await login.verify();                                   // the user types the code in the frame
 * await wallet.updateAccount(accountId, { privateEnabled: true }); // approved in the frame
 * ```
 */
export { WalletError, isWalletError } from '../../errors.js';
export type { WalletErrorCode, WalletErrorOptions } from '../../errors.js';
export { signerFrame, type SignerFrame, type SignerFrameOptions, type FrameChannel } from './frame-channel.js';
export { createFrameWallet as createWallet, type FrameOtpLogin, type FrameWallet, type FrameWalletConfig } from './frame-wallet.js';
export type { ExportShown } from '../protocol.js';
export type { SharedOtpLogin, SharedWallet, SharedWalletMethod } from '../../shared-wallet.js';
export type { OtpType, StartOtpLoginArgs } from '../../flows/otp.js';
export type { Session, SessionEvents } from '../../session/types.js';
export type { SessionSnapshot, SessionStatus } from '../../session/store.js';
