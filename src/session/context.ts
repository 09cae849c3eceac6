/**
 * What a wallet is made of, for code outside the facade that builds on it: the legacy entry and the
 * signed actions. Reached through a symbol so that it stays out of the facade's documented surface.
 */
import type { TrustedKeys } from '../crypto/index.js';
import { invalidArgument } from '../errors.js';
import type { KeyStore } from '../keys/index.js';
import type { Client } from '../transport/index.js';
import type { ManagedSessions } from './manager.js';

/** The key under which a wallet made by `createWallet` holds its {@link WalletContext}. */
export const WALLET_CONTEXT: unique symbol = Symbol.for('embedded-wallet-signer.wallet-context') as never;

/** Passkey settings of a wallet (`WalletConfig.passkey`). */
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

/**
 * What a wallet is made of, for code that builds on a wallet beyond its methods (the legacy entry,
 * a signed call of your own with {@link signedWithSession}): read it with {@link walletContext}.
 */
export interface WalletContext {
  /** The wallet's HTTP client. */
  readonly client: Client;
  /** The wallet's session manager. */
  readonly sessions: ManagedSessions;
  /** The wallet's key store. */
  readonly keyStore: KeyStore;
  /** The keys the wallet trusts to sign bundles. */
  readonly trustedKeys: TrustedKeys;
  /** The wallet's passkey settings. */
  readonly passkey: PasskeyConfig;
}

/** The context of a wallet made by createWallet; INVALID_ARGUMENT for anything else. */
export function walletContext(wallet: unknown): WalletContext {
  const context = typeof wallet === 'object' && wallet !== null ? (wallet as { [WALLET_CONTEXT]?: WalletContext })[WALLET_CONTEXT] : undefined;
  if (context === undefined) throw invalidArgument('wallet', 'a wallet made by createWallet');
  return context;
}
