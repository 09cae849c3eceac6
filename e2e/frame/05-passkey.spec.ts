/**
 * Passkeys in frame mode (THREAT-MODEL.md P3), Chromium only: a CDP virtual authenticator
 * (WebAuthn.addVirtualAuthenticator) stands in for the user's device. These tests drive Playwright's
 * Chromium only; Firefox ESR runs the demo's passkey journeys (e2e/portable/04, 12, 22, both modes) on
 * Marionette's virtual authenticator (e2e/drivers/marionette.ts); WebKitGTK has no WebAuthn.
 *
 * The app at http://localhost:A makes `createWallet({ signer: signerFrame({ url }) })`; the signer
 * frame at http://localhost:B runs the ceremony on a trusted click in the frame (client data:
 * origin B, `crossOrigin: true`, `topOrigin` A; the sandbox accepts A as a top origin), signs
 * with its own key, and the parent gets the credential or the session's public facts.
 * Then, with an iframe that does not delegate WebAuthn (no `allow` attribute), the ceremony runs in
 * a window of the signer origin opened from the frame; and a blocked window is SIGNER_POPUP_BLOCKED.
 */
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { approveInFrame, frameWallet, loginInFrame, newCustomer, signer } from './helpers.js';
import { sandboxIframes } from './in-page.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

type Outcome = { ok: boolean; code?: string; value?: Record<string, unknown> };

/** A virtual platform authenticator (user verified, presence simulated) on the page's CDP session. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

/** Starts `method` of the page's frame wallet; its outcome waits in `window.t.outcome`. */
async function start(page: Page, method: 'registerPasskey' | 'passkeyLogin', accountId: string): Promise<void> {
  await page.evaluate(
    async ([method, accountId]) => {
      const wallet = window.t.wallet as {
        registerPasskey(a: { accountId: string; nickname: string }): Promise<unknown>;
        preparePasskeyLogin(a: { accountId: string }): Promise<{ login(): Promise<unknown> }>;
      };
      const run = method === 'registerPasskey' ? wallet.registerPasskey({ accountId, nickname: 'Laptop' }) : (await wallet.preparePasskeyLogin({ accountId })).login();
      window.t.outcome = run.then(
        (value) => ({ ok: true, value }),
        (error: { code?: string }) => ({ ok: false, code: error.code }),
      );
    },
    [method, accountId] as const,
  );
}

const outcome = (page: Page) => page.evaluate(() => window.t.outcome as Promise<Outcome>);

async function logout(page: Page): Promise<void> {
  await page.evaluate(() => (window.t.wallet as { logout(): Promise<void> }).logout());
  await expect.poll(() => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('signed-out');
}

/** The sessions the service lists for the account (through the proxy), as `type` and id. */
function listedSessions(page: Page, accountId: string): Promise<{ id: string; type?: string; authMethodId?: string }[]> {
  return page.evaluate((accountId) => (window.t.wallet as { listSessions(id: string): Promise<{ id: string; type?: string; authMethodId?: string }[]> }).listSessions(accountId), accountId);
}

test('a passkey registered and used to log in, in the signer frame; the session is the service\'s', async ({ page }) => {
  const { authenticatorId, cdp } = await virtualAuthenticator(page);
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await expect(page.locator('iframe[title="Wallet signer"]')).toHaveAttribute('allow', /publickey-credentials-get; publickey-credentials-create/);
  await loginInFrame(page, accountId);

  // Registration: the ceremony on a click in the frame, then its signature approved there.
  await start(page, 'registerPasskey', accountId);
  const prompt = signer(page).getByTestId('signer-passkey');
  await expect(prompt).toContainText('Add a passkey');
  await expect(prompt).toContainText('Laptop');
  await signer(page).getByTestId('signer-passkey-continue').click();
  await expect(signer(page).getByTestId('signer-approval')).toBeVisible();
  await approveInFrame(signer(page));
  const registered = await outcome(page);
  expect(registered, JSON.stringify(registered)).toMatchObject({ ok: true, value: { type: 'PASSKEY', nickname: 'Laptop', accountId } });
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.rpId).toBe('localhost');
  expect(Buffer.from(credentials[0]?.credentialId ?? '', 'base64').toString('base64url')).toBe(registered.value?.credentialId);

  // Login with it: a fresh key made in the frame, the assertion made there.
  await logout(page);
  await start(page, 'passkeyLogin', accountId);
  await expect(signer(page).getByTestId('signer-passkey')).toContainText('Sign in with your passkey');
  await signer(page).getByTestId('signer-passkey-continue').click();
  const login = await outcome(page);
  expect(login, JSON.stringify(login)).toMatchObject({ ok: true, value: { accountId, credentialId: registered.value?.id } });
  await expect.poll(() => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('active');
  const sessions = await listedSessions(page, accountId);
  expect(sessions.find((s) => s.id === login.value?.id)).toMatchObject({ type: 'PASSKEY', authMethodId: registered.value?.id });
  // The signature counter moved: the assertion came from this authenticator.
  const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(after.credentials[0]?.signCount).toBeGreaterThan(credentials[0]?.signCount ?? 0);
});

/** The app's iframes carry no `allow` (as an app that does not delegate WebAuthn): installed before the page's own script. */
async function withoutAllow(page: Page): Promise<void> {
  await page.addInitScript(() => {
    Object.defineProperty(HTMLIFrameElement.prototype, 'allow', { configurable: true, get: () => '', set: () => undefined });
  });
}

/** Waits for the ceremony window the frame opens on the click in it, with its own virtual authenticator (holding `credential`, if given). */
async function ceremonyWindow(page: Page, click: () => Promise<void>, credential?: Record<string, unknown>) {
  const opened = page.context().waitForEvent('page');
  await click();
  const popup = await opened;
  const device = await virtualAuthenticator(popup);
  if (credential !== undefined) await device.cdp.send('WebAuthn.addCredential', { authenticatorId: device.authenticatorId, credential: credential as never });
  return { popup, ...device };
}

test('where the frame may not use WebAuthn, the ceremony runs in a window of the signer origin', async ({ page }) => {
  await withoutAllow(page);
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await expect(page.locator('iframe[title="Wallet signer"]')).not.toHaveAttribute('allow', /publickey/);
  await loginInFrame(page, accountId);

  // Registration: the click in the frame opens the window; the ceremony runs there on the user's click.
  await start(page, 'registerPasskey', accountId);
  const reg = await ceremonyWindow(page, () => signer(page).getByTestId('signer-passkey-continue').click());
  expect(new URL(reg.popup.url()).origin).toBe(frameStack().signerOrigin);
  await expect(reg.popup.getByTestId('signer-popup')).toContainText('Create a passkey');
  const regClosed = reg.popup.waitForEvent('close');
  // The credential as the device made it (the window, and its device, close once the frame has the answer).
  const added = new Promise<Record<string, unknown>>((resolve) => reg.cdp.on('WebAuthn.credentialAdded', (event) => resolve(event.credential as unknown as Record<string, unknown>)));
  await reg.popup.getByTestId('signer-popup-continue').click();
  // The frame closes the window once it has the browser's answer.
  await regClosed;
  await approveInFrame(signer(page));
  const registered = await outcome(page);
  expect(registered, JSON.stringify(registered)).toMatchObject({ ok: true, value: { type: 'PASSKEY', accountId } });
  const credential = await added;
  expect(credential.rpId).toBe('localhost');
  expect(Buffer.from(credential.credentialId as string, 'base64').toString('base64url')).toBe(registered.value?.credentialId);

  // Login: another window (the same device's credential), the session made with the frame's key.
  await logout(page);
  await start(page, 'passkeyLogin', accountId);
  const use = await ceremonyWindow(page, () => signer(page).getByTestId('signer-passkey-continue').click(), credential);
  await expect(use.popup.getByTestId('signer-popup')).toContainText('Sign in with your passkey');
  await use.popup.getByTestId('signer-popup-continue').click();
  const login = await outcome(page);
  expect(login, JSON.stringify(login)).toMatchObject({ ok: true, value: { accountId, credentialId: registered.value?.id } });
  expect((await listedSessions(page, accountId)).find((s) => s.id === login.value?.id)).toMatchObject({ type: 'PASSKEY' });

  // The window closed by the user: the ceremony is cancelled (nothing made).
  await logout(page);
  await start(page, 'passkeyLogin', accountId);
  const closed = await ceremonyWindow(page, () => signer(page).getByTestId('signer-passkey-continue').click());
  await closed.popup.close();
  expect(await outcome(page)).toEqual({ ok: false, code: 'WEBAUTHN_CANCELLED' });
});

test('a blocked window is SIGNER_POPUP_BLOCKED; a script click in the frame starts no ceremony', async ({ page }) => {
  // The app's iframe is sandboxed without allow-popups (nor allow-forms: the code entry needs none) and does not delegate WebAuthn: the browser refuses the window.
  await withoutAllow(page);
  await page.addInitScript(sandboxIframes, 'allow-scripts allow-same-origin');
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await loginInFrame(page, accountId);
  let windows = 0;
  page.context().on('page', () => windows++);
  const signedBefore = frameStack().signed().length;

  await start(page, 'registerPasskey', accountId);
  const frame = page.frames().find((f) => f.url().startsWith(frameStack().signerOrigin));
  expect(frame).toBeDefined();
  await signer(page).getByTestId('signer-passkey-continue').waitFor();
  // A click made by script in the frame (element.click(), dispatchEvent) is not the user's.
  const started = await frame?.evaluate(() => {
    const button = document.querySelector<HTMLButtonElement>('[data-testid="signer-passkey-continue"]');
    button?.click();
    button?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    // A click that counted would have put the screen in its waiting state (synchronously).
    return button === null || button.disabled || !button.isConnected;
  });
  expect(started).toBe(false);
  // The user's click: the window it would open is blocked.
  await signer(page).getByTestId('signer-passkey-continue').click();
  expect(await outcome(page)).toEqual({ ok: false, code: 'SIGNER_POPUP_BLOCKED' });
  expect(windows).toBe(0);
  // Nothing signed: no credential added.
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
});
