/**
 * What a wallet is made of, for code outside the facade that builds on it: the legacy entry and the
 * signed actions. Reached through a symbol so that it stays out of the facade's documented surface.
 */
import type { TrustedKeys } from '../crypto/index.js';
import { invalidArgument } from '../errors.js';
import type { KeyStore } from '../keys/index.js';
import type { Client } from '../transport/index.js';
import type { ManagedSessions } from './manager.js';

export const WALLET_CONTEXT: unique symbol = Symbol.for('embedded-wallet-signer.wallet-context') as never;

export interface PasskeyConfig {
  /** WebAuthn relying-party id; default: the page's host (the browser's default). */
  rpId?: string;
  /** Shown by the authenticator at registration; default: the rpId, else the page's host. */
  rpName?: string;
  /** Ceremony timeout in ms; default 60 000. */
  timeoutMs?: number;
  /**
   * WebAuthn user verification (PIN, biometrics) asked at registration and login; default
   * `'required'`: a passkey is a wallet factor, and presence alone (a touch) is not the user.
   */
  userVerification?: 'required' | 'preferred' | 'discouraged';
}

export interface WalletContext {
  readonly client: Client;
  readonly sessions: ManagedSessions;
  readonly keyStore: KeyStore;
  readonly trustedKeys: TrustedKeys;
  readonly passkey: PasskeyConfig;
}

/** The context of a wallet made by createWallet; INVALID_ARGUMENT for anything else. */
export function walletContext(wallet: unknown): WalletContext {
  const context = typeof wallet === 'object' && wallet !== null ? (wallet as { [WALLET_CONTEXT]?: WalletContext })[WALLET_CONTEXT] : undefined;
  if (context === undefined) throw invalidArgument('wallet', 'a wallet made by createWallet');
  return context;
}
