/**
 * Passkeys in frame mode (THREAT-MODEL.md P3) in Chromium and Firefox ESR, on the virtual
 * authenticators of e2e/drivers/ (Chromium's over CDP, this tab's and its windows' holding the same
 * credentials: cdp-passkeys.ts; Firefox's over Marionette, the browser process's). WebKitGTK has no
 * WebAuthn: skipped there.
 *
 * The app at http://localhost:A makes `createWallet({ signer: signerFrame({ url }) })`; the signer
 * frame at http://localhost:B runs the ceremony on a trusted click in the frame (client data:
 * origin B, `crossOrigin: true`, `topOrigin` A; the sandbox accepts A as a top origin), signs with its
 * own key, and the parent gets the credential or the session's public facts.
 * With an iframe that does not delegate WebAuthn (no `allow`), the ceremony runs in a window of the
 * signer origin (src/signer/frame/passkeys.ts): Chromium's permissions policy says so, and the
 * Continue click opens it at once; Firefox does not tell (no `document.featurePolicy`), refuses the
 * ceremony in the frame (a NotAllowedError or SecurityError: the frame offers its window after no
 * other), and the frame offers the window, opened by a new click. A blocked window is
 * SIGNER_POPUP_BLOCKED (Chromium's `window.open` answers null in a frame sandboxed without
 * allow-popups, Firefox's throws); a script click in the frame starts no ceremony.
 */
import type { Popup, Tab } from '../../drivers/driver.js';
import { NO_WEBAUTHN_IN_WEBKITGTK, virtualPasskey } from '../../portable/passkey-steps.js';
import { makeFrameWallet, sandboxIframes, startLoginInPage } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { approveIn, expect, newCustomer, OTP, outcome, shown, SIGNER_IFRAME, signerIn, test, textIn, typeCode, visibleIn } from './steps.js';

const frameStack = useFrameStack();

type Outcome = { ok: boolean; code?: string; value?: Record<string, unknown> };

/** In the page: starts `method` of the frame wallet; its outcome waits in `window.t.outcome`. */
async function startInPage([method, accountId]: readonly ['registerPasskey' | 'passkeyLogin', string]): Promise<void> {
  const wallet = window.t.wallet as {
    registerPasskey(a: { accountId: string; nickname: string }): Promise<unknown>;
    preparePasskeyLogin(a: { accountId: string }): Promise<{ login(): Promise<unknown> }>;
  };
  const run = method === 'registerPasskey' ? wallet.registerPasskey({ accountId, nickname: 'Laptop' }) : (await wallet.preparePasskeyLogin({ accountId })).login();
  window.t.outcome = run.then(
    (value) => ({ ok: true, value }),
    (error: { code?: string }) => ({ ok: false, code: error.code }),
  );
}

const passkeyOutcome = (tab: Tab) => tab.evaluate(() => window.t.outcome as Promise<Outcome>);
const status = (tab: Tab) => tab.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status);

async function logout(tab: Tab): Promise<void> {
  await tab.evaluate(() => (window.t.wallet as { logout(): Promise<void> }).logout());
  await expect.poll(() => status(tab)).toBe('signed-out');
}

/** The sessions the service lists for the account (through the proxy). */
function listedSessions(tab: Tab, accountId: string): Promise<Array<{ id: string; type?: string; authMethodId?: string }>> {
  return tab.evaluate((id) => (window.t.wallet as { listSessions(a: string): Promise<Array<{ id: string; type?: string; authMethodId?: string }>> }).listSessions(id), accountId);
}

/** The `allow` attribute of the signer's iframe ('' when it has none). */
const iframeAllow = (tab: Tab) => tab.evaluate((selector) => document.querySelector(selector)?.getAttribute('allow') ?? '', SIGNER_IFRAME);

/** In the page, before the wallet makes its iframe: iframes carry no `allow` (an app that does not delegate WebAuthn). */
function withoutAllow(): void {
  Object.defineProperty(HTMLIFrameElement.prototype, 'allow', { configurable: true, get: () => '', set: () => undefined });
}

/** A customer with a frame wallet (prepared in the page by `before`), logged in by a code typed in the frame. */
async function customerWithWallet(tab: Tab, before: () => Promise<void>): Promise<string> {
  const accountId = await newCustomer(tab, frameStack());
  await before();
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  return accountId;
}

/** Waits for the frame's passkey screen saying `words` and clicks its Continue (the user's click). */
async function continueInFrame(tab: Tab, words: RegExp): Promise<void> {
  await expect.poll(() => textIn(signerIn(tab), 'signer-passkey')).toMatch(words);
  await signerIn(tab).click('signer-passkey-continue');
}

test("a passkey registered and used to log in, in the signer frame; the session is the service's", async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // a registration approved (in Firefox, in the approval window) and a login
  const tab = await (await openDevice()).newTab();
  const passkey = await virtualPasskey(tab);
  const accountId = await customerWithWallet(tab, async () => {});
  expect(await iframeAllow(tab)).toMatch(/publickey-credentials-get; publickey-credentials-create/);

  // Registration: the ceremony on a click in the frame, then its signature approved.
  await tab.evaluate(startInPage, ['registerPasskey', accountId] as const);
  const frame = signerIn(tab);
  await continueInFrame(tab, /Add a passkey/);
  await expect.poll(async () => (await visibleIn(frame, 'signer-approval')) || (await visibleIn(frame, 'signer-passkey-window')), { message: 'the approval, or the window offered' }).toBe(true);
  expect(await visibleIn(frame, 'signer-passkey-window'), 'the browser refused the ceremony in the frame').toBe(false);
  await approveIn(tab);
  const registered = await passkeyOutcome(tab);
  expect(registered, JSON.stringify(registered)).toMatchObject({ ok: true, value: { type: 'PASSKEY', nickname: 'Laptop', accountId } });
  const held = await passkey.credentials();
  expect(held.map((c) => ({ id: c.credentialId, rpId: c.rpId }))).toEqual([{ id: registered.value?.credentialId, rpId: 'localhost' }]);

  // Login with it: a fresh key made in the frame, the assertion made there.
  await logout(tab);
  await tab.evaluate(startInPage, ['passkeyLogin', accountId] as const);
  await continueInFrame(tab, /Sign in with your passkey/);
  const login = await passkeyOutcome(tab);
  expect(login, JSON.stringify(login)).toMatchObject({ ok: true, value: { accountId, credentialId: registered.value?.id } });
  await expect.poll(() => status(tab)).toBe('active');
  expect((await listedSessions(tab, accountId)).find((s) => s.id === login.value?.id)).toMatchObject({ type: 'PASSKEY', authMethodId: registered.value?.id });
  // The signature counter moved: the assertion came from this authenticator.
  expect((await passkey.credentials())[0]?.signCount).toBeGreaterThan(held[0]?.signCount ?? 0);
});

/**
 * The user's click on Continue in the frame, which ends in a window of the signer origin: opened at
 * once where the browser says the frame may not use WebAuthn (Chromium), else after its refusal in
 * the frame, from the window the frame offers (a new click: Firefox).
 */
async function ceremonyWindow(tab: Tab, engine: string): Promise<Popup> {
  const frame = signerIn(tab);
  if (engine === 'chromium') return tab.popup(() => frame.click('signer-passkey-continue'));
  await frame.click('signer-passkey-continue');
  await shown(frame, 'signer-passkey-window');
  return tab.popup(() => frame.click('signer-passkey-window-continue'));
}

test('where the frame may not use WebAuthn, the ceremony runs in a window of the signer origin', async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // two windows, a registration approved, a login
  const tab = await (await openDevice()).newTab();
  const passkey = await virtualPasskey(tab);
  const accountId = await customerWithWallet(tab, () => tab.evaluate(withoutAllow));
  expect(await iframeAllow(tab)).not.toMatch(/publickey/);

  // Registration: the ceremony runs in the window, on the user's click there.
  await tab.evaluate(startInPage, ['registerPasskey', accountId] as const);
  await expect.poll(() => textIn(signerIn(tab), 'signer-passkey')).toMatch(/Add a passkey/);
  const reg = await ceremonyWindow(tab, engine);
  await expect.poll(() => reg.evaluate(() => location.origin).catch(() => ''), { message: 'the window shows the signer page' }).toBe(frameStack().signerOrigin);
  await expect.poll(() => textIn(reg, 'signer-popup')).toContain('Create a passkey');
  await reg.click('signer-popup-continue');
  // The frame closes the window once it has the browser's answer.
  await expect.poll(() => reg.closed(), { message: 'the window closed' }).toBe(true);
  await approveIn(tab);
  const registered = await passkeyOutcome(tab);
  expect(registered, JSON.stringify(registered)).toMatchObject({ ok: true, value: { type: 'PASSKEY', accountId } });
  expect((await passkey.credentials()).map((c) => ({ id: c.credentialId, rpId: c.rpId }))).toEqual([{ id: registered.value?.credentialId, rpId: 'localhost' }]);

  // Login: another window, the session made with the frame's key.
  await logout(tab);
  await tab.evaluate(startInPage, ['passkeyLogin', accountId] as const);
  await expect.poll(() => textIn(signerIn(tab), 'signer-passkey')).toMatch(/Sign in with your passkey/);
  const use = await ceremonyWindow(tab, engine);
  await expect.poll(() => textIn(use, 'signer-popup')).toContain('Sign in with your passkey');
  await use.click('signer-popup-continue');
  const login = await passkeyOutcome(tab);
  expect(login, JSON.stringify(login)).toMatchObject({ ok: true, value: { accountId, credentialId: registered.value?.id } });
  expect((await listedSessions(tab, accountId)).find((s) => s.id === login.value?.id)).toMatchObject({ type: 'PASSKEY', authMethodId: registered.value?.id });

  // The window closed by the user: the ceremony is cancelled (nothing made).
  await logout(tab);
  await tab.evaluate(startInPage, ['passkeyLogin', accountId] as const);
  await expect.poll(() => textIn(signerIn(tab), 'signer-passkey')).toMatch(/Sign in with your passkey/);
  const closed = await ceremonyWindow(tab, engine);
  await shown(closed, 'signer-popup');
  await closed.close();
  expect(await passkeyOutcome(tab)).toEqual({ ok: false, code: 'WEBAUTHN_CANCELLED' });
});

test('a blocked window is SIGNER_POPUP_BLOCKED; a script click in the frame starts no ceremony', async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  const tab = await (await openDevice()).newTab();
  await virtualPasskey(tab);
  // The app's iframe is sandboxed without allow-popups and does not delegate WebAuthn: the browser refuses the window.
  const accountId = await customerWithWallet(tab, async () => {
    await tab.evaluate(withoutAllow);
    await tab.evaluate(sandboxIframes, 'allow-scripts allow-same-origin');
  });
  const signedBefore = frameStack().signed().length;

  await tab.evaluate(startInPage, ['registerPasskey', accountId] as const);
  const frame = signerIn(tab);
  await shown(frame, 'signer-passkey-continue');
  // A click made by script in the frame (element.click(), dispatchEvent) is not the user's.
  const started = await frame.evaluate(() => {
    const button = document.querySelector<HTMLButtonElement>('[data-testid="signer-passkey-continue"]');
    button?.click();
    button?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    // A click that counted would have put the screen in its waiting state (synchronously).
    return button === null || button.disabled || !button.isConnected;
  });
  expect(started).toBe(false);
  // The user's click (and, where the browser refused the ceremony in the frame, the one on the window it offers): the window is blocked.
  await frame.click('signer-passkey-continue');
  if (engine !== 'chromium') {
    await shown(frame, 'signer-passkey-window');
    await frame.click('signer-passkey-window-continue');
  }
  expect(await passkeyOutcome(tab)).toEqual({ ok: false, code: 'SIGNER_POPUP_BLOCKED' });
  // Nothing signed: no credential added.
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
});
