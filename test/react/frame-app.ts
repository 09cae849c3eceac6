// A React app of a frame-mode wallet for the component tests (frame.browser.test.ts over the real
// FrameWallet, testing-frame.browser.test.ts over the public double): a code login, one signed
// action, logout, each hook's state on screen (`data-id` otp, in, update, logout) and the hooks
// kept for the test to drive.
import { createElement as h, type ReactNode } from 'react';
import { WalletProvider, createSignatureRequests, useIsSignedIn, useLogout, useOtpLogin, useSession, useWallet, useWalletAction, type WalletProviderProps } from '../../src/react/index.js';
import type { FrameWallet } from '../../src/signer/parent/frame-wallet.js';

export interface FrameAppHooks {
  otp?: ReturnType<typeof useOtpLogin>;
  update?: ReturnType<typeof useWalletAction<[boolean], unknown>>;
  logout?: ReturnType<typeof useLogout>;
  /** The wallet's `mode` ('in-origin' when it has none). */
  mode?: string;
}

export function frameApp(): { App: () => ReactNode; hooks: FrameAppHooks } {
  const hooks: FrameAppHooks = {};
  function App(): ReactNode {
    const otp = (hooks.otp = useOtpLogin({ resendAfterMs: 0 }));
    const signedIn = useIsSignedIn();
    const status = useSession((s) => s.status);
    const update = (hooks.update = useWalletAction((wallet, on: boolean) => wallet.updateAccount('InternalAccount:1', { privateEnabled: on })));
    const logout = (hooks.logout = useLogout());
    const wallet = useWallet();
    hooks.mode = 'mode' in wallet ? wallet.mode : 'in-origin';
    return h(
      'div',
      null,
      h('p', { 'data-id': 'otp' }, `${otp.step}:${otp.codeEntry ?? ''}:${otp.error?.code ?? ''}`),
      h('p', { 'data-id': 'in' }, `${String(signedIn)}:${status}`),
      h('p', { 'data-id': 'update' }, `${update.status}:${update.error?.code ?? ''}`),
      h('p', { 'data-id': 'logout' }, logout.status),
    );
  }
  return { App, hooks };
}

/** What `<WalletProvider>` throws when given a frame wallet and the app's signature queue (called as a function: the check runs before any hook). */
export function refusedWithSignatures(wallet: FrameWallet): unknown {
  // @ts-expect-error -- a frame wallet takes no signature queue (the frame asks the user)
  const props: WalletProviderProps = { wallet, signatures: createSignatureRequests() };
  try {
    WalletProvider(props);
  } catch (error) {
    return error;
  }
  return undefined;
}
