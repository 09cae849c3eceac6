'use client';
/**
 * embedded-wallet-signer/react: React bindings over the wallet's session store (React ≥ 18, an
 * optional peer dependency). A provider that takes a wallet instance, `useSession` on
 * useSyncExternalStore with a server snapshot, headless login hooks, wallet actions and logout as
 * state (status, data, error with its text), and pending signatures as state. No markup, no CSS,
 * no portal.
 */
export { WalletProvider, type WalletProviderCommonProps, type WalletProviderProps } from './provider.js';
export { useWallet, type AnyWallet, type WalletContextValue } from './context.js';
export { isSignedIn, useIsSignedIn, useSession } from './session.js';
export { useLogout, useWalletAction } from './actions.js';
export type { WalletActionControls, WalletActionState, WalletActionStatus } from './actions.js';
export { useOAuthLogin, useOtpLogin, usePasskeyLogin } from './login.js';
export type { LoginState, LoginStep, OAuthLoginControls, OtpLoginControls, OtpLoginState, PasskeyLoginControls } from './login.js';
export type { StartOtpLoginArgs } from '../flows/otp.js';
export { createSignatureRequests, defaultSignaturePolicy, usePendingSignature } from './signatures.js';
export type { PendingSignature, SignatureRequests, SignatureRequestsOptions } from './signatures.js';
export type { SessionOrigin, SessionSnapshot, SessionStatus, SignedOutReason } from '../session/store.js';
