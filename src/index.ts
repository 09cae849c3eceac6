/**
 * embedded-wallet-signer: the public browser API (re-exports only).
 * The deprecated sealed-session-key flow lives in the separate `embedded-wallet-signer/legacy` entry.
 */
export { WALLET_ERROR_CODES, WalletError, isWalletError } from './errors.js';
export type { WalletErrorCode, WalletErrorOptions } from './errors.js';
export * from './crypto/index.js';
