'use client';
/**
 * The provider's context, and the error every hook throws outside it. Nothing here touches a
 * browser global; the wallet's own methods do that on first call.
 */
import { createContext, useContext } from 'react';
import { WalletError } from '../errors.js';
import type { SessionSnapshot } from '../session/store.js';
import type { Wallet } from '../wallet.js';
import type { SignatureRequests } from './signature-types.js';

/** What `<WalletProvider>` hands its hooks. */
export interface WalletContextValue {
  /** The wallet given to the provider. */
  readonly wallet: Wallet;
  /** The signature queue given to the provider, if any. */
  readonly signatures: SignatureRequests | undefined;
  /** What a server render (and hydration) shows: `initializing`, with the hinted account. */
  readonly serverSnapshot: SessionSnapshot;
  /** Hands a hook's failure, with its text, to the provider's `onError` (a stable function). */
  readonly report: (error: WalletError, text: string) => void;
}

export const Context = createContext<WalletContextValue | null>(null);

/** The provider's value; WALLET_PROVIDER_MISSING (naming `hook`) outside one. */
export function useWalletContext(hook: string): WalletContextValue {
  const value = useContext(Context);
  if (value === null) throw new WalletError('WALLET_PROVIDER_MISSING', `${hook}() must be called inside <WalletProvider>`);
  return value;
}

/**
 * The wallet of the nearest `<WalletProvider>` (its methods are stable: it is the instance you
 * passed). Outside a provider: WALLET_PROVIDER_MISSING.
 */
export function useWallet(): Wallet {
  return useWalletContext('useWallet').wallet;
}
