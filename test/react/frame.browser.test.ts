// The React bindings over frame mode's wallet (issue 32): the same provider and hooks as in-origin,
// over the real FrameWallet whose signer frame is the test's double (frame-double.ts). The code is
// typed in the frame (useOtpLogin opens its entry; a code given to the hook is refused and never
// crosses), signed actions resolve once approved in the frame (SIGNER_DECLINED when declined), and
// what cannot exist in frame mode (the app's own confirmation) is refused with a typed error.
import { StrictMode, createElement as h, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { WALLET_ERROR_CODES } from '../../src/error-codes.js';
import { isWalletError } from '../../src/errors.js';
import {
  WalletProvider,
  usePendingSignature,
  type SignedOutReason,
} from '../../src/react/index.js';
import { createFrameDouble } from './frame-double.js';
import { mount as mountRoot, text } from './dom.js';
import { frameApp, refusedWithSignatures } from './frame-app.js';

const mount = (node: ReactNode): HTMLElement => mountRoot(node).el;

describe('React over the frame wallet', () => {
  it('email-first login typed in the frame, signed in, a signed action approved and one declined in the frame, logout', async () => {
    const frame = createFrameDouble();
    const logins: string[] = [];
    const logouts: SignedOutReason[] = [];
    const { App, hooks } = frameApp();
    const el = mount(h(StrictMode, null, h(WalletProvider, { wallet: frame.wallet, onLogin: (s) => void logins.push(s.accountId), onLogout: (reason) => void logouts.push(reason) }, h(App))));
    await expect.poll(() => text(el, 'in')).toBe('false:signed-out');
    expect(frame.calls.filter((c) => c.method === 'restore')).toHaveLength(1);
    expect(hooks.mode).toBe('frame');

    await hooks.otp!.start({ email: 'ada@example.com' });
    // The email goes to the frame as is; the frame's code entry opens without the app asking.
    expect(frame.calls.find((c) => c.method === 'startOtpLogin')?.args).toEqual([{ email: 'ada@example.com' }]);
    await expect.poll(() => frame.waiting('otp.verify')).toBe(1);
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:');
    // A code given to the hook is refused, never sent; the frame's entry stays open and counts.
    expect(await hooks.otp!.verify('000000')).toBeUndefined();
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:INVALID_ARGUMENT');
    expect(JSON.stringify(frame.calls)).not.toContain('000000');
    // The user cancels in the frame: still awaiting its code; verify() opens the entry again.
    frame.decline('otp.verify');
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:SIGNER_DECLINED');
    void hooks.otp!.verify();
    await expect.poll(() => frame.waiting('otp.verify')).toBe(1);
    // A resend while the entry is open opens no second one; the entry's answer still ends the login.
    await hooks.otp!.resend();
    expect(frame.calls.filter((c) => c.method === 'otp.resend')).toHaveLength(1);
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:');
    expect(frame.waiting('otp.verify')).toBe(1);
    frame.typeCode('InternalAccount:1');
    await expect.poll(() => text(el, 'otp')).toBe('done:frame:');
    await expect.poll(() => text(el, 'in')).toBe('true:active');
    expect(logins).toEqual(['InternalAccount:1']);

    const approved = hooks.update!.run(true);
    await expect.poll(() => frame.waiting('updateAccount')).toBe(1);
    await expect.poll(() => text(el, 'update')).toBe('pending:');
    frame.approve('updateAccount', { id: 'InternalAccount:1', privateEnabled: true });
    expect(await approved).toEqual({ id: 'InternalAccount:1', privateEnabled: true });
    await expect.poll(() => text(el, 'update')).toBe('success:');
    const declined = hooks.update!.run(false);
    await expect.poll(() => frame.waiting('updateAccount')).toBe(1);
    frame.decline('updateAccount');
    expect(await declined).toBeUndefined();
    await expect.poll(() => text(el, 'update')).toBe('error:SIGNER_DECLINED');
    expect(hooks.update!.errorText).toBe(WALLET_ERROR_CODES.SIGNER_DECLINED);

    await hooks.logout!.run();
    await expect.poll(() => text(el, 'in')).toBe('false:signed-out');
    await expect.poll(() => text(el, 'logout')).toBe('success');
    expect(logouts).toEqual(['logout']);
  });

  it('the app’s own confirmation does not exist in frame mode: usePendingSignature and <WalletProvider signatures> are typed errors', async () => {
    const frame = createFrameDouble();
    const caught: unknown[] = [];
    function Prompt(): ReactNode {
      try {
        usePendingSignature();
      } catch (error) {
        caught.push(error);
      }
      return h('p', { 'data-id': 'prompt' }, 'rendered');
    }
    const el = mount(h(WalletProvider, { wallet: frame.wallet, restore: false }, h(Prompt)));
    await expect.poll(() => text(el, 'prompt')).toBe('rendered');
    expect(caught.length).toBeGreaterThan(0);
    expect(caught.every((e) => isWalletError(e, 'WALLET_PROVIDER_MISSING'))).toBe(true);

    // The check runs before any hook: called as a function, the provider throws at once.
    expect(isWalletError(refusedWithSignatures(frame.wallet), 'INVALID_ARGUMENT')).toBe(true);
  });
});
