'use client';
/**
 * The provider's context, and the error every hook throws outside it. Nothing here touches a
 * browser global; the wallet's own methods do that on first call.
 */
import { createContext, useContext } from 'react';
import { WalletError } from '../errors.js';
import type { SessionSnapshot } from '../session/store.js';
import type { FrameWallet } from '../signer/parent/frame-wallet.js';
import type { Wallet } from '../wallet.js';

/**
 * The wallets the bindings run over: the in-origin `Wallet` (keys in the app's origin) or frame
 * mode's `FrameWallet` (keys, codes and approvals in the signer frame). The hooks use only what both
 * have (`SharedWallet`, src/shared-wallet.ts); tell them apart with `'mode' in wallet`.
 */
export type AnyWallet = Wallet | FrameWallet;
import type { SignatureRequests } from './signature-types.js';

/** What `<WalletProvider>` hands its hooks. */
export interface WalletContextValue {
  /** The wallet given to the provider. */
  readonly wallet: AnyWallet;
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
 * passed): a `Wallet`, or in frame mode a `FrameWallet` (`'mode' in wallet`). Outside a provider:
 * WALLET_PROVIDER_MISSING.
 */
export function useWallet(): AnyWallet {
  return useWalletContext('useWallet').wallet;
}
