// The hooks issue 35 asked for, over the test double in real browsers: useIsSignedIn (signed in is
// active, expiring and refreshing), useWalletAction and useLogout (status, data, error with its
// text), and the provider's onLogin / onLogout / onError.
import { StrictMode, createElement as h, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { WALLET_ERROR_CODES } from '../../src/error-codes.js';
import type { WalletError } from '../../src/errors.js';
import { WalletProvider, useIsSignedIn, useLogout, useOtpLogin, useWalletAction, type SignedOutReason } from '../../src/react/index.js';
import { createTestWallet } from '../../src/react/testing.js';
import { PendingPurpose, effectsMarker, mount as mountRoot, text } from './dom.js';

const mount = (node: ReactNode): HTMLElement => mountRoot(node).el;

describe('useIsSignedIn', () => {
  it('true through active, expiring and refreshing; false while initializing and signed out; one render per change of it', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    const seen: boolean[] = [];
    function SignedIn(): ReactNode {
      const signedIn = useIsSignedIn();
      seen.push(signedIn);
      return h('p', { 'data-id': 'in' }, String(signedIn));
    }
    const el = mount(h(WalletProvider, { wallet: t.wallet, restore: false }, h(SignedIn)));
    await expect.poll(() => text(el, 'in')).toBe('false'); // initializing
    await t.wallet.restore();
    await expect.poll(() => text(el, 'in')).toBe('true');
    const renders = seen.length;
    t.expiring();
    t.refreshing(true);
    t.refreshing(false, true);
    await expect.poll(() => t.wallet.getSnapshot().status).toBe('active');
    expect(text(el, 'in')).toBe('true');
    expect(seen.length).toBe(renders);
    t.signOut('expired');
    await expect.poll(() => text(el, 'in')).toBe('false');
  });
});

describe('useWalletAction and useLogout', () => {
  it('pending → success with data; a refused signature → error SIGNING_REFUSED with its description; reset → idle; logout → signed out', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1', latencyMs: 10 });
    await t.wallet.restore();
    const steps: string[] = [];
    let update: ReturnType<typeof useWalletAction<[boolean], { id: string }>> | undefined;
    let logout: ReturnType<typeof useLogout> | undefined;
    function Actions(): ReactNode {
      // An inline action: the latest is the one run calls.
      update = useWalletAction((wallet, enabled: boolean) => wallet.updateAccount('InternalAccount:1', { privateEnabled: enabled }));
      logout = useLogout();
      if (steps.at(-1) !== update.status) steps.push(update.status);
      return h('p', { 'data-id': 'update' }, `${update.status}:${update.data?.id ?? ''}:${update.error?.code ?? ''}|${logout.status}`);
    }
    // The prompt counts once its effect ran (a request before is refused): wait for that, not for the text.
    const { Marker, ran } = effectsMarker();
    const el = mount(h(StrictMode, null, h(WalletProvider, { wallet: t.wallet, signatures: t.signatures, restore: false }, h(Actions), h(PendingPurpose), h(Marker))));
    await expect.poll(() => text(el, 'update')).toBe('idle::|idle');
    await expect.poll(ran).toBe(true);
    const first = update!.run;
    const done = update!.run(true);
    await expect.poll(() => text(el, 'pending')).toBe('update-internal-account');
    expect(text(el, 'update')).toBe('pending::|idle');
    t.signatures.getSnapshot()?.approve();
    expect(await done).toMatchObject({ id: 'InternalAccount:1', privateEnabled: true });
    await expect.poll(() => text(el, 'update')).toBe('success:InternalAccount:1:|idle');
    expect(update!.run).toBe(first);

    const refused = update!.run(false);
    await expect.poll(() => text(el, 'pending')).toBe('update-internal-account');
    t.signatures.getSnapshot()?.reject();
    expect(await refused).toBeUndefined();
    await expect.poll(() => text(el, 'update')).toBe('error::SIGNING_REFUSED|idle');
    expect(update!.errorText).toBe(WALLET_ERROR_CODES.SIGNING_REFUSED);
    update!.reset();
    await expect.poll(() => text(el, 'update')).toBe('idle::|idle');
    expect(steps).toEqual(['idle', 'pending', 'success', 'pending', 'error', 'idle']);

    await logout!.run();
    await expect.poll(() => text(el, 'update')).toBe('idle::|success');
    expect(t.wallet.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'logout' });
  });

  it('a run overtaken by a later one is dropped (the latest wins)', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    const answers: Array<(value: string) => void> = [];
    let action: ReturnType<typeof useWalletAction<[], string>> | undefined;
    function Action(): ReactNode {
      action = useWalletAction(() => new Promise<string>((resolve) => answers.push(resolve)));
      return h('p', { 'data-id': 'a' }, `${action.status}:${action.data ?? ''}`);
    }
    const el = mount(h(WalletProvider, { wallet: t.wallet, restore: false }, h(Action)));
    await expect.poll(() => text(el, 'a')).toBe('idle:');
    const one = action!.run();
    const two = action!.run();
    await expect.poll(() => answers.length).toBe(2);
    answers[1]!('second');
    expect(await two).toBe('second');
    await expect.poll(() => text(el, 'a')).toBe('success:second');
    answers[0]!('first');
    expect(await one).toBe('first');
    await new Promise((r) => setTimeout(r, 0));
    expect(text(el, 'a')).toBe('success:second');
  });
});

describe('provider callbacks', () => {
  it('onLogin after a login (not for the session found at restore), onLogout with the reason, onError with the hook’s error and its text', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:restored' });
    const logins: string[] = [];
    const logouts: Array<[SignedOutReason, string | null]> = [];
    const errors: Array<[string, string]> = [];
    let otp: ReturnType<typeof useOtpLogin> | undefined;
    function Login(): ReactNode {
      otp = useOtpLogin();
      return h('p', { 'data-id': 'otp' }, `${otp.step}:${otp.errorText ?? ''}`);
    }
    const el = mount(
      h(
        StrictMode,
        null,
        h(
          WalletProvider,
          {
            wallet: t.wallet,
            // Inline callbacks: a new function every render, the latest is called.
            onLogin: (session, origin) => void logins.push(`${session.accountId}:${origin}`),
            onLogout: (reason, accountId) => void logouts.push([reason, accountId]),
            onError: (error: WalletError, description: string) => void errors.push([error.code, description]),
          },
          h(Login),
        ),
      ),
    );
    await expect.poll(() => t.wallet.getSnapshot().status).toBe('active');
    expect(logins).toEqual([]);
    t.signOut('revoked');
    await expect.poll(() => logouts).toEqual([['revoked', 'InternalAccount:restored']]);
    // verify() right after start() resolved (the login it needs is kept when the step ends, not at the next render).
    await otp!.start({ accountId: 'InternalAccount:2' });
    await otp!.verify('123456');
    await expect.poll(() => text(el, 'otp')).toBe(`awaiting-code:${WALLET_ERROR_CODES.OTP_CODE_INVALID}`);
    expect(errors).toEqual([['OTP_CODE_INVALID', WALLET_ERROR_CODES.OTP_CODE_INVALID]]);
    await otp!.verify('000000');
    await expect.poll(() => logins).toEqual(['InternalAccount:2:this-tab']);
    // A refresh is no new login; another tab's login of another account is.
    await t.wallet.refresh().catch(() => undefined);
    t.signIn({ accountId: 'InternalAccount:3', origin: 'other-tab' });
    await expect.poll(() => logins).toEqual(['InternalAccount:2:this-tab', 'InternalAccount:3:other-tab']);
    t.signOut('other-tab');
    await expect.poll(() => logouts.at(-1)).toEqual(['other-tab', 'InternalAccount:3']);
    expect(logouts).toHaveLength(2);
  });
});
