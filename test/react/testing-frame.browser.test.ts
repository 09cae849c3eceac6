// The public test double of a frame-mode app (createTestFrameWallet, src/react/testing-frame.ts)
// serves the same provider and hooks as the real FrameWallet (frame.browser.test.ts): the code is
// typed in the frame (the test plays the user there; a code given to the hook is refused), each
// signed action waits for the user's approval in the frame, a refresh is signed without one, and
// the app's own confirmation queue is refused with it as with the real one.
import { StrictMode, createElement as h, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { WalletProvider } from '../../src/react/index.js';
import { createTestFrameWallet, createTestWallet } from '../../src/react/testing.js';
import { mount as mountRoot, text } from './dom.js';
import { frameApp, refusedWithSignatures } from './frame-app.js';

const mount = (node: ReactNode): HTMLElement => mountRoot(node).el;

describe('createTestFrameWallet: a frame-mode app’s component tests', () => {
  it('login by a code typed in the frame (cancelled, a wrong one, then the right one), an action approved and one declined in the frame, logout', async () => {
    const t = createTestFrameWallet();
    const { App, hooks } = frameApp();
    const el = mount(h(StrictMode, null, h(WalletProvider, { wallet: t.wallet }, h(App))));
    await expect.poll(() => text(el, 'in')).toBe('false:signed-out');
    expect(t.restores).toBe(1);
    expect(hooks.mode).toBe('frame');

    await hooks.otp!.start({ accountId: 'InternalAccount:1' });
    // The hook opens the frame's code entry itself.
    await expect.poll(() => t.codeEntryOpen).toBe(true);
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:');
    // A code given to the hook is refused; the frame's entry stays open.
    expect(await hooks.otp!.verify('000000')).toBeUndefined();
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:INVALID_ARGUMENT');
    expect(t.codeEntryOpen).toBe(true);
    // The user cancels in the frame: still awaiting its code; verify() opens the entry again.
    t.cancelCode();
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:frame:SIGNER_DECLINED');
    expect(t.codeEntryOpen).toBe(false);
    void hooks.otp!.verify();
    await expect.poll(() => t.codeEntryOpen).toBe(true);
    // A wrong code is told in the frame: the entry stays open, nobody is signed in.
    expect(t.typeCode('111111')).toBe(false);
    expect(t.codeEntryOpen).toBe(true);
    expect(text(el, 'in')).toBe('false:signed-out');
    expect(t.typeCode('000000')).toBe(true);
    await expect.poll(() => text(el, 'otp')).toBe('done:frame:');
    await expect.poll(() => text(el, 'in')).toBe('true:active');
    // The login's own verify was signed by the frame, without an approval.
    expect(t.approvals).toEqual([]);

    const approved = hooks.update!.run(true);
    await expect.poll(() => t.approvals).toEqual([{ purpose: 'update-internal-account', payload: { privateEnabled: true } }]);
    await expect.poll(() => text(el, 'update')).toBe('pending:');
    t.approve();
    expect(await approved).toEqual({ id: 'InternalAccount:1', privateEnabled: true });
    await expect.poll(() => text(el, 'update')).toBe('success:');
    const declined = hooks.update!.run(false);
    await expect.poll(() => t.approvals.length).toBe(1);
    t.decline();
    expect(await declined).toBeUndefined();
    await expect.poll(() => text(el, 'update')).toBe('error:SIGNER_DECLINED');

    await hooks.logout!.run();
    await expect.poll(() => text(el, 'in')).toBe('false:signed-out');
  });

  it('is refused with the app’s signature queue, as the real frame wallet is; the in-origin double is not', () => {
    expect(isWalletError(refusedWithSignatures(createTestFrameWallet().wallet), 'INVALID_ARGUMENT')).toBe(true);
    expect('mode' in createTestWallet().wallet).toBe(false);
  });
});
