// embedded-wallet-signer/react in real browsers (the vitest browser project: Chromium, Firefox ESR,
// WebKitGTK), against the sandbox behind the CORS forwarder of test/setup/sandbox-global.ts where a
// real wallet is needed, and over the test double where the point is React's side.
import { Profiler, StrictMode, createElement as h, startTransition, useLayoutEffect, useState, type ReactNode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server.browser';
import { describe, expect, inject, it } from 'vitest';
import { createIndexedDbBackend, createKeyStore, createWallet, type RequestLogEntry, type Wallet } from '../../src/index.js';
import { WalletProvider, createSignatureRequests, useOAuthLogin, useOtpLogin, usePasskeyLogin, usePendingSignature, useSession, type SessionSnapshot, type SignatureRequests } from '../../src/react/index.js';
import { createTestWallet } from '../../src/react/testing.js';
import { cleanup, effectsMarker, holdNextCall, mount, text } from './dom.js';
import { deferred, type Deferred } from '../helpers/wait-for.js';

const url = inject('sandboxUrl');
const enclavePublicKey = inject('enclavePublicKey');

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function newAccount(): Promise<string> {
  const id = crypto.randomUUID();
  const customer = await admin('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${id}`, email: `r-${id}@example.com`, currencies: ['USD'] });
  const accounts = await admin('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}`);
  return accounts.data.find((a: { type: string }) => a.type === 'EMBEDDED_WALLET').id;
}

function tab(db: string, extra: { requests?: RequestLogEntry[]; signatures?: SignatureRequests } = {}): Wallet {
  const wallet = createWallet({
    baseUrl: url,
    trustedKeys: [enclavePublicKey],
    keyStore: createKeyStore({ backend: createIndexedDbBackend({ dbName: db }) }),
    crossTab: { name: db },
    onRequest: (entry) => extra.requests?.push(entry),
    ...(extra.signatures ? { onBeforeSign: extra.signatures.onBeforeSign } : {}),
  });
  cleanup.push(() => wallet.dispose());
  return wallet;
}

function Status(props: { id?: string }): ReactNode {
  const s = useSession();
  return h('p', { 'data-id': props.id ?? 'status' }, `${s.status}:${s.reason ?? ''}:${s.origin ?? ''}:${s.accountId ?? ''}`);
}

describe('WalletProvider under StrictMode with a real wallet', () => {
  it('exactly one restore and one channel, and nothing subscribed after unmount', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const opened: string[] = [];
    const Original = globalThis.BroadcastChannel;
    globalThis.BroadcastChannel = class extends Original {
      constructor(name: string) {
        super(name);
        opened.push(name);
      }
    };
    cleanup.push(() => void (globalThis.BroadcastChannel = Original));
    const real = tab(db);
    let restores = 0;
    let live = 0;
    const wallet: Wallet = {
      ...real,
      restore: () => (restores++, real.restore()),
      subscribe: (listener) => {
        live++;
        const off = real.subscribe(listener);
        return () => (live--, off());
      },
    };
    const { root, el } = mount(h(StrictMode, null, h(WalletProvider, { wallet }, h(Status), h(Status, { id: 'again' }))));
    await expect.poll(() => text(el, 'status')).toBe('signed-out:none::');
    expect(restores).toBe(1);
    expect(opened).toEqual([`${db}:sessions`]);
    expect(live).toBe(2);
    root.unmount();
    expect(live).toBe(0);
  });
});

describe('server rendering and hydration', () => {
  it('hydrating server HTML (initializing) over a browser that holds a session: zero recoverable errors, then active', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    const first = tab(db);
    await first.restore();
    await (await first.startOtpLogin({ accountId })).verify('000000');
    // The server knows nothing of this browser's session: it renders initializing.
    const server = createTestWallet();
    const html = renderToString(h(WalletProvider, { wallet: server.wallet, restore: false }, h(Status)));
    expect(html).toContain('initializing:::');
    const el = document.createElement('div');
    el.innerHTML = html;
    document.body.append(el);
    // The client's wallet has restored already: its snapshot differs from the server's.
    const wallet = tab(db);
    await wallet.restore();
    expect(wallet.getSnapshot().status).toBe('active');
    const recoverable: unknown[] = [];
    const errors: unknown[] = [];
    const root = hydrateRoot(el, h(WalletProvider, { wallet }, h(Status)), {
      onRecoverableError: (e) => void recoverable.push(e),
      onUncaughtError: (e) => void errors.push(e),
    });
    cleanup.push(() => {
      root.unmount();
      el.remove();
    });
    await expect.poll(() => text(el, 'status')).toBe(`active::storage:${accountId}`);
    expect(recoverable).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('cross-tab, two providers over two wallets on one IndexedDB (two tabs)', () => {
  it('a login in one shows in the other; a logout elsewhere shows other-tab; near expiry one refresh', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    const requests: RequestLogEntry[] = [];
    const a = tab(db, { requests });
    const b = tab(db, { requests });
    const A = mount(h(WalletProvider, { wallet: a }, h(Status)));
    const B = mount(h(WalletProvider, { wallet: b }, h(Status)));
    await expect.poll(() => text(B.el, 'status')).toBe('signed-out:none::');
    await expect.poll(() => text(A.el, 'status')).toBe('signed-out:none::');
    await (await a.startOtpLogin({ accountId })).verify('000000');
    await expect.poll(() => text(A.el, 'status')).toBe(`active::this-tab:${accountId}`);
    await expect.poll(() => text(B.el, 'status')).toBe(`active::other-tab:${accountId}`);

    const before = a.session(accountId)!.id;
    await admin('POST', '/sandbox/clock/advance', { seconds: 10 * 60 + 5 });
    await Promise.all([a.listSessions(accountId), b.listSessions(accountId)]);
    await expect.poll(() => a.getSnapshot().session?.id !== before && b.getSnapshot().session?.id === a.getSnapshot().session?.id, { timeout: 15_000 }).toBe(true);
    expect(requests.filter((r) => r.path.endsWith('/refresh') && r.leg === 1)).toHaveLength(1);
    await expect.poll(() => text(B.el, 'status')).toMatch(/^active::/);

    await b.logout(accountId);
    await expect.poll(() => text(A.el, 'status')).toBe(`signed-out:other-tab:other-tab:${accountId}`);
    await expect.poll(() => text(B.el, 'status')).toBe(`signed-out:logout:this-tab:${accountId}`);
  });
});

describe('rendering', () => {
  it('no tearing under startTransition: in every commit, every reader shows the same snapshot', async () => {
    const t = createTestWallet();
    await t.wallet.restore();
    // Told when the transition to `round` has rendered reader `at` (or a later one): it is under way.
    let rendering: { round: number; at: number; reached: Deferred<void> } | undefined;
    const renders = (round: number, at: number): Promise<void> => (rendering = { round, at, reached: deferred() }).reached.promise;
    function Slow(props: { i: number; round: number }): ReactNode {
      const id = useSession((s) => s.session?.id ?? 'none');
      const until = performance.now() + 3;
      while (performance.now() < until) {
        // a slow component: the transition yields between readers, and the store changes meanwhile
      }
      if (rendering && props.round === rendering.round && props.i >= rendering.at) rendering.reached.resolve();
      return h('i', { 'data-round': props.round }, id);
    }
    // After each commit's DOM mutations (layout effects run then), every reader's text must agree.
    const torn: string[][] = [];
    let commits = 0;
    function Check(): ReactNode {
      useSession();
      useLayoutEffect(() => {
        commits++;
        const values = [...new Set([...document.querySelectorAll('i[data-round]')].map((n) => n.textContent ?? ''))];
        if (values.length > 1) torn.push(values);
      });
      return null;
    }
    let setRound: (n: number) => void = () => undefined;
    function App(): ReactNode {
      const [round, set] = useState(0);
      setRound = set;
      return h('div', null, ...Array.from({ length: 40 }, (_, i) => h(Slow, { key: i, i, round })), h(Check, { key: 'check' }));
    }
    const { el } = mount(h(WalletProvider, { wallet: t.wallet, restore: false }, h(App)));
    await expect.poll(() => el.querySelectorAll('i').length).toBe(40);
    const shown = (round: number): Promise<void> => expect.poll(() => el.querySelector('i')?.getAttribute('data-round')).toBe(String(round)) as Promise<void>;
    for (let round = 1; round <= 5; round++) {
      // Change the store while the transition renders (40 × 3 ms): once it has rendered a few
      // readers, and again further on (or once it is on screen, should the change have made React
      // finish it at once).
      const early = renders(round, 5);
      startTransition(() => setRound(round));
      await early;
      t.signIn({ accountId: `InternalAccount:${round}` });
      await Promise.race([renders(round, 20), shown(round)]);
      t.signIn({ accountId: `InternalAccount:${round}` });
      await expect.poll(() => el.querySelector('i')?.getAttribute('data-round')).toBe(String(round));
      await expect.poll(() => el.querySelector('i')?.textContent).toBe(t.wallet.getSnapshot().session?.id);
    }
    expect(commits).toBeGreaterThan(5);
    expect(torn).toEqual([]);
  });

  it('selector readers re-render only for what they read (React Profiler): status, account and signed-in readers on a refresh', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    const renders = { status: 0, account: 0, signedIn: 0, whole: 0 };
    const Status_ = (): ReactNode => h('span', { 'data-id': 'st' }, useSession((s) => s.status));
    const Account = (): ReactNode => h('span', null, useSession((s) => s.accountId));
    const SignedIn = (): ReactNode => h('span', null, String(useSession((s) => s.session !== null)));
    const Whole = (): ReactNode => h('span', { 'data-id': 'id' }, useSession().session?.id);
    const counted = (key: keyof typeof renders, node: ReactNode) => h(Profiler, { id: key, onRender: () => void renders[key]++ }, node);
    // An update of a component of its own, made after a step is on screen, commits only once React
    // has rendered everything queued before it: any stray render of the readers is counted by then.
    let bump: (n: number) => void = () => undefined;
    function Sentinel(): ReactNode {
      const [n, set] = useState(0);
      bump = set;
      return h('b', { 'data-id': 'sentinel' }, String(n));
    }
    let bumps = 0;
    const { el } = mount(h(WalletProvider, { wallet: t.wallet, restore: false }, counted('status', h(Status_)), counted('account', h(Account)), counted('signedIn', h(SignedIn)), counted('whole', h(Whole)), h(Sentinel)));
    await expect.poll(() => text(el, 'st')).toBe('active');
    // Each step is awaited until it is on screen, then until React has rendered all it had queued.
    const shows = async (status: string) => {
      await expect.poll(() => text(el, 'st')).toBe(status);
      await expect.poll(() => text(el, 'id')).toBe(t.wallet.getSnapshot().session?.id);
      const n = ++bumps;
      bump(n);
      await expect.poll(() => text(el, 'sentinel')).toBe(String(n));
    };

    // A refresh this tab makes: active → expiring → refreshing → active with a new session.
    let start = { ...renders };
    t.expiring();
    await shows('expiring');
    t.refreshing(true);
    await shows('refreshing');
    t.refreshing(false, true);
    await shows('active');
    expect(renders.status - start.status).toBe(3); // expiring, refreshing, active: nothing more
    expect(renders.account - start.account).toBe(0);
    expect(renders.signedIn - start.signedIn).toBe(0);
    expect(renders.whole - start.whole).toBe(3);

    // A refresh another tab made, adopted here: the session changes, the status does not.
    start = { ...renders };
    t.refreshing(false, true);
    await shows('active');
    expect(renders.status - start.status).toBe(0);
    expect(renders.account - start.account).toBe(0);
    expect(renders.signedIn - start.signedIn).toBe(0);
    expect(renders.whole - start.whole).toBe(1);
  });

  it('hooks outside a provider throw WALLET_PROVIDER_MISSING', () => {
    const Bad = (): ReactNode => h('p', null, useSession().status);
    expect(() => renderToString(h(Bad))).toThrow(expect.objectContaining({ code: 'WALLET_PROVIDER_MISSING' }));
  });
});

function Confirm(): ReactNode {
  const pending = usePendingSignature();
  if (!pending) return h('p', { 'data-id': 'none' }, 'nothing to sign');
  return h(
    'div',
    { 'data-id': 'pending' },
    h('p', { 'data-id': 'purpose' }, pending.purpose),
    h('button', { 'data-id': 'approve', onClick: pending.approve }, 'Approve'),
    h('button', { 'data-id': 'reject', onClick: pending.reject }, 'Reject'),
  );
}

describe('pending signatures', () => {
  it('a real signed action waits for the app’s confirmation: approve signs, reject is SIGNING_REFUSED', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    const signatures = createSignatureRequests();
    const wallet = tab(db, { signatures });
    const prompt = effectsMarker();
    const { el } = mount(h(WalletProvider, { wallet, signatures }, h(Confirm), h(prompt.Marker)));
    // The restore opens IndexedDB: slow on a busy machine (WebKit most), so wait for it, not 1 s.
    await expect.poll(() => wallet.getSnapshot().status, { timeout: 15_000 }).toBe('signed-out');
    await expect.poll(prompt.ran).toBe(true); // the prompt is attached
    // The OTP verify signs too, approved by the default policy (the login's own key): no prompt.
    const login = await wallet.startOtpLogin({ accountId });
    expect((await login.verify('000000')).accountId).toBe(accountId);
    expect(text(el, 'none')).toBe('nothing to sign');
    const update = wallet.updateAccount(accountId, { privateEnabled: true });
    await expect.poll(() => text(el, 'purpose')).toBe('update-internal-account');
    (el.querySelector('[data-id="approve"]') as HTMLButtonElement).click();
    expect((await update).id).toBe(accountId);
    await expect.poll(() => text(el, 'none')).toBe('nothing to sign');
    const refused = wallet.updateAccount(accountId, { privateEnabled: false }).catch((e: { code: string }) => e.code);
    await expect.poll(() => text(el, 'purpose')).toBe('update-internal-account');
    (el.querySelector('[data-id="reject"]') as HTMLButtonElement).click();
    expect(await refused).toBe('SIGNING_REFUSED');
  });

  it('unmounting the prompt refuses what waits; an aborted request leaves the queue; automatic ones never wait; none mounted → refused', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    expect(await t.requestSignature({ purpose: 'x', payload: {} })).toBe(false);
    const prompt = effectsMarker();
    const { root, el } = mount(h(WalletProvider, { wallet: t.wallet, signatures: t.signatures, restore: false }, h(Confirm), h(prompt.Marker)));
    await expect.poll(() => text(el, 'none')).toBe('nothing to sign');
    await expect.poll(prompt.ran).toBe(true); // the prompt is attached (its text shows before its effect runs)
    const controller = new AbortController();
    const aborted = t.requestSignature({ purpose: 'first', payload: { a: 1 }, signal: controller.signal });
    await expect.poll(() => text(el, 'purpose')).toBe('first');
    expect(t.signatures.getSnapshot()?.payload).toEqual({ a: 1 });
    controller.abort();
    expect(await aborted).toBe(false);
    await expect.poll(() => text(el, 'none')).toBe('nothing to sign');
    expect(await t.requestSignature({ purpose: 'refresh-session', payload: {}, automatic: true })).toBe(true);
    expect(await t.requestSignature({ purpose: 'something-else', payload: {}, automatic: true })).toBe(false);
    const waiting = t.requestSignature({ purpose: 'second', payload: 'plain text' });
    await expect.poll(() => text(el, 'purpose')).toBe('second');
    root.unmount();
    expect(await waiting).toBe(false);
  });

  it('useOtpLogin: idle → sending → awaiting-code → (wrong code) awaiting-code with error → verifying → done; resend before resendAt sets RATE_LIMITED', async () => {
    const t = createTestWallet({ latencyMs: 30 });
    const steps: string[] = [];
    let controls: ReturnType<typeof useOtpLogin> | undefined;
    function Login(): ReactNode {
      const otp = useOtpLogin({ resendAfterMs: 60_000 });
      controls = otp;
      if (steps.at(-1) !== otp.step) steps.push(otp.step);
      return h('p', { 'data-id': 'otp' }, `${otp.step}:${otp.error?.code ?? ''}`);
    }
    const { el } = mount(h(WalletProvider, { wallet: t.wallet }, h(Login), h(Status)));
    await expect.poll(() => text(el, 'status')).toBe('signed-out:none::');
    const first = controls!;
    await first.start({ accountId: 'InternalAccount:9' });
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:');
    expect(controls!.start).toBe(first.start);
    expect(controls!.resendAt).toBeGreaterThan(Date.now());
    // Too early: the error in state, the code still awaited (no rejection).
    await controls!.resend();
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:RATE_LIMITED');
    await controls!.verify('111111');
    await expect.poll(() => text(el, 'otp')).toBe('awaiting-code:OTP_CODE_INVALID');
    await controls!.verify('000000');
    await expect.poll(() => text(el, 'otp')).toBe('done:');
    await expect.poll(() => text(el, 'status')).toBe('active::this-tab:InternalAccount:9');
    expect(steps).toEqual(['idle', 'sending', 'awaiting-code', 'verifying', 'awaiting-code', 'verifying', 'done']);
  });
});

describe('passkey and OAuth login hooks (test double)', () => {
  it('usePasskeyLogin: idle → preparing → ready → verifying → done; useOAuthLogin: … ready (nonce) → verifying → done; a reset drops a late result', async () => {
    const t = createTestWallet({ latencyMs: 20 });
    const steps = { passkey: [] as string[], oauth: [] as string[] };
    let passkey: ReturnType<typeof usePasskeyLogin> | undefined;
    let oauth: ReturnType<typeof useOAuthLogin> | undefined;
    function Logins(): ReactNode {
      passkey = usePasskeyLogin();
      oauth = useOAuthLogin();
      if (steps.passkey.at(-1) !== passkey.step) steps.passkey.push(passkey.step);
      if (steps.oauth.at(-1) !== oauth.step) steps.oauth.push(oauth.step);
      return h('p', { 'data-id': 'logins' }, `${passkey.step}|${oauth.step}|${oauth.nonce ?? ''}`);
    }
    const { el } = mount(h(WalletProvider, { wallet: t.wallet }, h(Logins), h(Status)));
    await expect.poll(() => text(el, 'status')).toBe('signed-out:none::');
    // Each busy step is held until it is on screen (React may batch a step that lasts no render).
    const calls = t.wallet as unknown as Record<'preparePasskeyLogin' | 'prepareOAuth' | 'completeOAuth', () => Promise<unknown>>;
    let held = holdNextCall(calls, 'preparePasskeyLogin');
    const preparing = passkey!.prepare({ accountId: 'InternalAccount:p' });
    await expect.poll(() => text(el, 'logins')).toBe('preparing|idle|');
    held.release();
    await preparing;
    await expect.poll(() => text(el, 'logins')).toBe('ready|idle|');
    // A reset while the ceremony is under way: its late result does not move the hook.
    const late = passkey!.login();
    passkey!.reset();
    await late;
    await expect.poll(() => text(el, 'logins')).toBe('idle|idle|');
    await passkey!.prepare({ accountId: 'InternalAccount:p' });
    await passkey!.login();
    await expect.poll(() => text(el, 'logins')).toBe('done|idle|');
    // (React batches a step that lasts no render, e.g. `verifying` reset at once.)
    expect(steps.passkey.slice(0, 3)).toEqual(['idle', 'preparing', 'ready']);
    expect(steps.passkey.slice(3)).toContain('idle');
    expect(steps.passkey.at(-1)).toBe('done');
    held = holdNextCall(calls, 'prepareOAuth');
    const oauthPreparing = oauth!.prepare({ accountId: 'InternalAccount:o' });
    await expect.poll(() => text(el, 'logins')).toBe('done|preparing|');
    held.release();
    await oauthPreparing;
    await expect.poll(() => text(el, 'logins')).toBe('done|ready|test-nonce');
    await oauth!.complete('id-token');
    await expect.poll(() => text(el, 'logins')).toBe('done|done|test-nonce');
    // (`verifying` may be batched with `done`: the prepared login's complete() is not held here.)
    expect(steps.oauth.slice(0, 3)).toEqual(['idle', 'preparing', 'ready']);
    expect(steps.oauth.slice(3).filter((s) => s !== 'verifying')).toEqual(['done']);
    await expect.poll(() => text(el, 'status')).toBe('active::this-tab:InternalAccount:o');
  });
});

// Keep the snapshot type in use (the import documents what the readers read).
export type { SessionSnapshot };
