/**
 * Passkeys in frame mode (THREAT-MODEL.md P3): the one check Chromium keeps here, on CDP. The others
 * (a passkey registered and used in the signer frame; a blocked window; a script click) run in
 * Chromium and Firefox ESR from e2e/frame/portable/13-passkey.spec.ts, which runs this one in
 * Firefox too. Chromium runs it here because CDP's virtual authenticators are a page's: the ceremony
 * window needs an authenticator of its own, holding the credential the first window's made
 * (WebAuthn.credentialAdded, then WebAuthn.addCredential with its private key), which the portable
 * driver does not offer (Firefox's authenticator is the browser process's: one serves every window).
 *
 * With an iframe that does not delegate WebAuthn (no `allow` attribute), Chromium's permissions
 * policy tells the frame, and the Continue click in it opens a window of the signer origin at once,
 * where the ceremony runs on the user's click.
 */
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { approveInFrame, frameWallet, loginInFrame, newCustomer, signer } from './helpers.js';
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
