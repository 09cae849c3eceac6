'use client';
/**
 * `<WalletProvider wallet={wallet}>`: the one place a React tree gets its wallet. It takes an
 * instance (made once, outside render: StrictMode and inline config cannot make two) and calls
 * `wallet.restore()` once per wallet after mount, however often React mounts it (StrictMode mounts
 * twice). It renders no markup of its own.
 *
 * Callbacks (the latest given is called; a new function re-subscribes nothing), from the session
 * snapshot of the default account, so each fires once per change of it:
 * - `onLogin(session, origin)`: someone signed in after the page knew it was signed out (a login
 *   here or in another tab; not a session found at restore), or another account signed in.
 * - `onLogout(reason, accountId)`: the signed-in account is signed out (`logout`, `other-tab`,
 *   `expired`, `revoked`).
 * - `onError(error, text)`: a hook under it failed (login hooks, useWalletAction, useLogout), or
 *   the restore failed and no `onRestoreError` is given. (A failed automatic refresh: the wallet's
 *   `refresh-failed` event; the session stays usable until it expires.)
 */
import { createElement, useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { WalletError } from '../errors.js';
import { initialSnapshot, type SessionOrigin, type SignedOutReason } from '../session/store.js';
import type { Session } from '../session/types.js';
import type { FrameWallet } from '../signer/parent/frame-wallet.js';
import type { Wallet } from '../wallet.js';
import { Context, type AnyWallet, type WalletContextValue } from './context.js';
import { asWalletError, fail } from './actions.js';
import type { SignatureRequests } from './signatures.js';

/**
 * Props of {@link WalletProvider}: an in-origin `Wallet` (with the app's own confirmation,
 * `signatures`), or frame mode's `FrameWallet`, which has none: the signer frame asks the user, and
 * the app cannot answer for them (`signatures` with it: INVALID_ARGUMENT).
 */
export type WalletProviderProps = WalletProviderCommonProps &
  (
    | {
        /** The wallet, made once outside render (module scope, or a ref/state initialiser). */
        wallet: Wallet;
        /** The queue whose `onBeforeSign` the wallet was created with: {@link usePendingSignature} reads it. */
        signatures?: SignatureRequests;
      }
    | {
        /** Frame mode's wallet (`createWallet` of `embedded-wallet-signer/frame`), made once outside render. */
        wallet: FrameWallet;
        /** Not in frame mode: the signer frame confirms every signature itself. */
        signatures?: never;
      }
  );

/** The props of {@link WalletProvider} whatever its wallet. */
export interface WalletProviderCommonProps {
  /**
   * A non-secret hint the server knows (e.g. from its own login cookie): the account to show while
   * the browser restores its session. Server render, hydration and the client until the restore
   * settles show `initializing` with it.
   */
  hint?: { accountId: string | null };
  /** Call `wallet.restore()` after mount (once per wallet); default true. */
  restore?: boolean;
  /** A failed restore (e.g. KEY_STORAGE_UNAVAILABLE); default: `onError`, else reported to the console (reportError). */
  onRestoreError?: (error: unknown) => void;
  /** Someone signed in (see the module's comment): e.g. `router.refresh()`. */
  onLogin?: (session: Session, origin: SessionOrigin) => void;
  /** The signed-in account was signed out, and why. */
  onLogout?: (reason: SignedOutReason, accountId: string | null) => void;
  /** A failure of a hook under this provider (also in its state) or of the restore; `text` is what to show. */
  onError?: (error: WalletError, text: string) => void;
  /** The app. */
  children?: ReactNode;
}

const restored = new WeakSet<AnyWallet>();

/** Provides `wallet` (and `signatures`) to the hooks below it; restores the wallet's sessions once. The same hooks run over either wallet. */
export function WalletProvider(props: WalletProviderProps): ReactNode {
  const { wallet, signatures, restore = true } = props;
  if (signatures && 'mode' in wallet) throw new WalletError('INVALID_ARGUMENT', 'signatures: not in frame mode');
  const hinted = props.hint?.accountId ?? null;
  const latest = useRef(props);
  useEffect(() => void (latest.current = props));
  const report = useCallback((error: WalletError, text: string) => latest.current.onError?.(error, text), []);
  const value = useMemo<WalletContextValue>(() => ({ wallet, signatures, serverSnapshot: initialSnapshot(hinted), report }), [wallet, signatures, hinted, report]);
  useEffect(() => {
    if (!restore || restored.has(wallet)) return;
    restored.add(wallet);
    wallet.restore().catch((error: unknown) => {
      restored.delete(wallet);
      const { onRestoreError, onError } = latest.current;
      if (onRestoreError || !onError) (onRestoreError ?? (globalThis as { reportError?: (e: unknown) => void }).reportError)?.(error);
      else void fail(report, asWalletError(error));
    });
  }, [wallet, restore, report]);
  const watching = props.onLogin !== undefined || props.onLogout !== undefined;
  useEffect(() => {
    if (!watching) return;
    // Signed in is having a session (active, expiring, refreshing: see isSignedIn).
    let before = wallet.getSnapshot();
    return wallet.subscribe(() => {
      const now = wallet.getSnapshot();
      const { onLogin, onLogout } = latest.current;
      if (now.session && (before.session ? before.accountId !== now.accountId : before.status === 'signed-out')) onLogin?.(now.session, now.origin);
      else if (before.session && now.status === 'signed-out') onLogout?.(now.reason, now.accountId);
      before = now;
    });
  }, [wallet, watching]);
  return createElement(Context.Provider, { value }, props.children);
}
