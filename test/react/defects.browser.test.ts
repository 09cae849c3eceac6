// Defects of the React entry found by issue 35, each as the case that showed it: an inline object
// selector, the server's hint after hydration, login hooks across an <Activity> hide/show, hook
// actions called too early, a queued signature across an effect re-run of its prompt. In real
// browsers, over the test double (the point is React's side).
import { Activity, StrictMode, createElement as h, useEffect, useLayoutEffect, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server.browser';
import { describe, expect, it } from 'vitest';
import type { OtpLogin } from '../../src/flows/otp.js';
import { WalletProvider, useOtpLogin, usePasskeyLogin, useSession } from '../../src/react/index.js';
import { createTestWallet } from '../../src/react/testing.js';
import { PendingPurpose, cleanup, effectsMarker, mount, text } from './dom.js';

/** A promise and its resolver. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('useSession with an inline selector returning an object', () => {
  it('the same snapshot gives the same object on every parent render (an effect on it runs once)', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    const seen = new Set<object>(); // the values committed
    let effects = 0;
    function Reader(): ReactNode {
      const picked = useSession((s) => ({ status: s.status, accountId: s.accountId }));
      useLayoutEffect(() => void seen.add(picked));
      useEffect(() => void effects++, [picked]);
      return h('p', { 'data-id': 'picked' }, `${picked.status}:${picked.accountId}`);
    }
    let bump: () => void = () => undefined;
    function Parent(): ReactNode {
      const [n, set] = useState(0);
      bump = () => set((x) => x + 1);
      return h('div', { 'data-id': 'n' }, String(n), h(Reader));
    }
    const { el } = mount(h(StrictMode, null, h(WalletProvider, { wallet: t.wallet, restore: false }, h(Parent))));
    await expect.poll(() => text(el, 'picked')).toBe('active:InternalAccount:1');
    for (let i = 1; i <= 5; i++) {
      bump();
      await expect.poll(() => el.querySelector('[data-id="n"]')?.firstChild?.textContent).toBe(String(i));
    }
    expect(seen.size).toBe(1);
    expect(effects).toBe(2); // StrictMode runs a mount effect twice; no parent render ran it again
    // A change of what it picks gives a new object.
    t.signOut();
    await expect.poll(() => text(el, 'picked')).toBe('signed-out:InternalAccount:1');
    expect(seen.size).toBe(2);
  });
});

describe('the server hint across hydration', () => {
  it('hydration keeps showing the hinted account while the wallet initializes (never initializing with no account)', async () => {
    const server = createTestWallet();
    const hint = { accountId: 'InternalAccount:hinted' };
    const shown: string[] = [];
    function Shown(): ReactNode {
      const s = useSession();
      const value = `${s.status}:${s.accountId ?? 'null'}`;
      useLayoutEffect(() => void shown.push(value));
      return h('p', { 'data-id': 'shown' }, value);
    }
    const html = renderToString(h(WalletProvider, { wallet: server.wallet, restore: false, hint }, h(Shown)));
    expect(html).toContain('initializing:InternalAccount:hinted');
    const el = document.createElement('div');
    el.innerHTML = html;
    document.body.append(el);
    const client = createTestWallet({ signedInAs: 'InternalAccount:hinted' });
    const recoverable: unknown[] = [];
    const root = hydrateRoot(el, h(WalletProvider, { wallet: client.wallet, hint, restore: false }, h(Shown)), { onRecoverableError: (e) => void recoverable.push(e) });
    cleanup.push(() => {
      root.unmount();
      el.remove();
    });
    // Hydrated and subscribed (any re-render that finds the client's snapshot different from the
    // server's is scheduled then, before the restore below): then the restore, then its session.
    await expect.poll(() => client.subscribers).toBe(1);
    expect(text(el, 'shown')).toBe('initializing:InternalAccount:hinted');
    await client.wallet.restore();
    await expect.poll(() => text(el, 'shown')).toBe('active:InternalAccount:hinted');
    expect(shown.filter((v) => v.startsWith('initializing'))).not.toContain('initializing:null');
    expect(shown[0]).toBe('initializing:InternalAccount:hinted');
    expect(recoverable).toEqual([]);
  });
});

describe('login hooks across an <Activity> hide and show', () => {
  it('a code sent while the login was hidden shows awaiting-code when it is visible again (not sending forever)', async () => {
    const sent = deferred<OtpLogin>();
    const t = createTestWallet({ overrides: { startOtpLogin: () => sent.promise } });
    let otp: ReturnType<typeof useOtpLogin> | undefined;
    function Login(): ReactNode {
      otp = useOtpLogin();
      return h('p', { 'data-id': 'otp' }, otp.step);
    }
    const tree = (mode: 'visible' | 'hidden'): ReactNode => h(WalletProvider, { wallet: t.wallet, restore: false }, h(Activity, { mode, children: h(Login) }));
    const { root, el } = mount(tree('visible'));
    await expect.poll(() => text(el, 'otp')).toBe('idle');
    const started = otp!.start({ accountId: 'InternalAccount:1' });
    await expect.poll(() => text(el, 'otp')).toBe('sending');
    flushSync(() => root.render(tree('hidden')));
    sent.resolve({ credentialId: 'AuthMethod:x', type: 'EMAIL_OTP', verify: () => Promise.reject(new Error('unused')), resend: () => Promise.resolve() });
    await started;
    flushSync(() => root.render(tree('visible')));
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code');
  });
});

describe('hook actions called too early set `error` instead of rejecting', () => {
  it('verify() before start(), resend() before resendAt, login() before prepare(): resolve, with the error in state; no unhandled rejection', async () => {
    const t = createTestWallet();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: PromiseRejectionEvent): void => void unhandled.push(e.reason);
    window.addEventListener('unhandledrejection', onUnhandled);
    cleanup.push(() => window.removeEventListener('unhandledrejection', onUnhandled));
    let otp: ReturnType<typeof useOtpLogin> | undefined;
    let passkey: ReturnType<typeof usePasskeyLogin> | undefined;
    function Login(): ReactNode {
      otp = useOtpLogin({ resendAfterMs: 60_000 });
      passkey = usePasskeyLogin();
      return h('p', { 'data-id': 'state' }, `${otp.step}:${otp.error?.code ?? ''}|${passkey.step}:${passkey.error?.code ?? ''}`);
    }
    const { el } = mount(h(WalletProvider, { wallet: t.wallet, restore: false }, h(Login)));
    await expect.poll(() => text(el, 'state')).toBe('idle:|idle:');
    // As the README writes it: `void otp.verify(code)`.
    void otp!.verify('000000');
    expect(await otp!.verify('000000')).toBeUndefined();
    await expect.poll(() => text(el, 'state')).toBe('error:INVALID_ARGUMENT|idle:');
    expect(await passkey!.login()).toBeUndefined();
    await expect.poll(() => text(el, 'state')).toBe('error:INVALID_ARGUMENT|error:INVALID_ARGUMENT');
    await otp!.start({ accountId: 'InternalAccount:1' });
    await expect.poll(() => text(el, 'state')).toMatch(/^awaiting-code:\|/);
    void otp!.resend();
    await expect.poll(() => text(el, 'state')).toMatch(/^awaiting-code:RATE_LIMITED\|/);
    expect(otp!.error?.details).toMatchObject({ retryAfterMs: expect.any(Number) });
    // The code can still be typed after the refused resend.
    expect(await otp!.verify('000000')).toMatchObject({ accountId: 'InternalAccount:1' });
    await expect.poll(() => text(el, 'state')).toMatch(/^done:\|/);
    // A macrotask for any rejection to be reported.
    await new Promise((r) => setTimeout(r, 0));
    expect(unhandled).toEqual([]);
  });
});

describe('a queued signature across an effect re-run of its prompt', () => {
  it('a prompt remounted in one commit (StrictMode, a new key, an <Activity> hide and show) keeps what waits; hidden, it is refused', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    const { Marker, ran } = effectsMarker();
    const tree = (key: number, mode: 'visible' | 'hidden' = 'visible'): ReactNode =>
      h(StrictMode, null, h(WalletProvider, { wallet: t.wallet, signatures: t.signatures, restore: false }, h(Activity, { mode, children: h(PendingPurpose, { key }) }), h(Marker)));
    const { root, el } = mount(tree(1));
    await expect.poll(() => text(el, 'pending')).toBe('none');
    await expect.poll(ran).toBe(true); // the prompt is attached
    const answer = t.requestSignature({ purpose: 'execute-quote', payload: { amount: 5 } });
    await expect.poll(() => text(el, 'pending')).toBe('execute-quote');
    // The prompt remounts (its effects run again): the request still waits.
    flushSync(() => root.render(tree(2)));
    flushSync(() => root.render(tree(2, 'hidden')));
    flushSync(() => root.render(tree(2, 'visible')));
    await new Promise((r) => setTimeout(r, 0));
    expect(text(el, 'pending')).toBe('execute-quote');
    t.signatures.getSnapshot()?.approve();
    expect(await answer).toBe(true);
    // Hidden and left hidden: no prompt is shown, what waits is refused (deny by default).
    const refused = t.requestSignature({ purpose: 'execute-quote', payload: { amount: 6 } });
    await expect.poll(() => text(el, 'pending')).toBe('execute-quote');
    flushSync(() => root.render(tree(2, 'hidden')));
    expect(await refused).toBe(false);
  });
});
