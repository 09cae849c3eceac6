'use client';
/**
 * `<WalletProvider wallet={wallet}>`: the one place a React tree gets its wallet. It takes an
 * instance (made once, outside render: StrictMode and inline config cannot make two) and calls
 * `wallet.restore()` once per wallet after mount, however often React mounts it (StrictMode mounts
 * twice). It renders no markup of its own.
 */
import { createElement, useEffect, useMemo, type ReactNode } from 'react';
import { initialSnapshot } from '../session/store.js';
import type { Wallet } from '../wallet.js';
import { Context, type WalletContextValue } from './context.js';
import type { SignatureRequests } from './signatures.js';

/** Props of {@link WalletProvider}. */
export interface WalletProviderProps {
  /** The wallet, made once outside render (module scope, or a ref/state initialiser). */
  wallet: Wallet;
  /** The queue whose `onBeforeSign` the wallet was created with: {@link usePendingSignature} reads it. */
  signatures?: SignatureRequests;
  /**
   * A non-secret hint the server knows (e.g. from its own login cookie): the account to show while
   * the browser restores its session. Server render and hydration show `initializing` with it.
   */
  hint?: { accountId: string | null };
  /** Call `wallet.restore()` after mount (once per wallet); default true. */
  restore?: boolean;
  /** A failed restore (e.g. KEY_STORAGE_UNAVAILABLE); default: reported to the console (reportError). */
  onRestoreError?: (error: unknown) => void;
  /** The app. */
  children?: ReactNode;
}

const restored = new WeakSet<Wallet>();

/** Provides `wallet` (and `signatures`) to the hooks below it; restores the wallet's sessions once. */
export function WalletProvider(props: WalletProviderProps): ReactNode {
  const { wallet, signatures, restore = true, onRestoreError } = props;
  const hinted = props.hint?.accountId ?? null;
  const value = useMemo<WalletContextValue>(() => ({ wallet, signatures, serverSnapshot: initialSnapshot(hinted) }), [wallet, signatures, hinted]);
  useEffect(() => {
    if (!restore || restored.has(wallet)) return;
    restored.add(wallet);
    wallet.restore().catch((error: unknown) => {
      restored.delete(wallet);
      if (onRestoreError) onRestoreError(error);
      else (globalThis as { reportError?: (e: unknown) => void }).reportError?.(error);
    });
    // onRestoreError is read when the restore fails; a new function does not restore again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wallet, restore]);
  return createElement(Context.Provider, { value }, props.children);
}
