/**
 * The demo in frame mode (`npm start`'s default): the app on one port of localhost, the signer page
 * on another. Sign up, log in by email code typed in the signer frame, make the account private
 * (approved in the frame), log out. Then every other way in the demo offers works there too: a
 * passkey added and used to log in (the ceremony in the signer frame, a CDP virtual authenticator
 * for the device), an SMS code added and used to log in (approved and typed in the frame), OAuth
 * added and used to log in (the sandbox's sign-in page; the key is the frame's), and the export
 * (approved and shown in the frame; the app's page is told only that it was shown). Chromium with
 * third-party storage partitioning on.
 */
import { expect, test, type Page } from '@playwright/test';
import { startDemoStack, type DemoStack } from '../../demo/server/stack.js';
import { approveInFrame, OTP } from './helpers.js';

let stack: DemoStack;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  stack = await startDemoStack({ port: 0, sandboxPort: 0, quiet: true, watch: false, signer: { port: 0 } });
});
test.afterAll(async () => {
  await stack?.close();
});

const signer = (page: Page) => page.frameLocator('iframe[title="Wallet signer"]');
const rows = (page: Page, type: string) => page.locator(`[data-testid="cred-row"][data-type="${type}"]`);

async function typeInFrame(page: Page): Promise<void> {
  await signer(page).getByTestId('signer-otp-input').fill(OTP);
  await signer(page).getByTestId('signer-otp-submit').click();
}

/** Signs up in the demo and logs in by the email code typed in the frame. */
async function signedUp(page: Page): Promise<void> {
  await page.goto(stack.url);
  await page.getByTestId('signup-email').fill(`demo-ways-${Math.random().toString(36).slice(2, 10)}@example.com`);
  await page.getByTestId('signup-phone').fill('+14155550123');
  await page.getByTestId('signup-submit').click();
  await expect(page.getByTestId('screen-login')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('login-email-send').click();
  await expect(page.getByTestId('login-in-frame')).toBeVisible();
  await typeInFrame(page);
  await expect(page.getByTestId('screen-home')).toBeVisible();
}

test('the demo in frame mode: login by a code typed in the frame, an action approved there, logout', async ({ page }) => {
  test.setTimeout(120_000);
  expect(stack.signerUrl).not.toBeNull();
  await signedUp(page);
  const frame = signer(page);
  await expect(page.getByTestId('session-id')).toHaveAttribute('title', /^Session:/);

  await page.getByTestId('nav-actions').click();
  const state = page.getByTestId('private-state');
  const before = (await state.textContent()) ?? '';
  await page.getByTestId('private-toggle').click();
  await expect(frame.getByTestId('signer-approval')).toContainText('Private mode');
  await approveInFrame(frame);
  await expect(state).toHaveText(before.includes('ON') ? 'privateEnabled is OFF.' : 'privateEnabled is ON.');

  await logout(page);
});

async function logout(page: Page): Promise<void> {
  await page.getByTestId('nav-home').click();
  await page.getByTestId('logout').click();
  await expect(page.getByTestId('screen-login')).toBeVisible();
}

test('frame mode: a passkey added and used to log in, the export shown in the frame', async ({ page }) => {
  test.setTimeout(120_000);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await signedUp(page);

  await page.getByTestId('nav-credentials').click();
  await page.getByTestId('add-passkey').click();
  await expect(signer(page).getByTestId('signer-passkey')).toContainText('Add a passkey');
  await signer(page).getByTestId('signer-passkey-continue').click();
  await approveInFrame(signer(page));
  await expect(rows(page, 'PASSKEY')).toHaveCount(1);

  await logout(page);
  await page.getByTestId('login-tab-passkey').click();
  await expect(page.getByTestId('login-legacy')).toHaveCount(0);
  await expect(page.getByTestId('passkey-state')).toContainText('Ready');
  await page.getByTestId('login-passkey').click();
  await expect(signer(page).getByTestId('signer-passkey')).toContainText('Sign in with your passkey');
  await signer(page).getByTestId('signer-passkey-continue').click();
  await expect(page.getByTestId('screen-home')).toBeVisible();
  await expect(page.getByTestId('session-credential')).toHaveText('Passkey');

  await page.getByTestId('nav-actions').click();
  await page.getByTestId('export-reveal').click();
  await expect(signer(page).getByRole('dialog', { name: 'Reveal your recovery phrase' })).toBeVisible();
  await approveInFrame(signer(page));
  await expect(signer(page).getByRole('dialog', { name: 'Your recovery phrase' })).toBeVisible();
  await signer(page).getByTestId('signer-phrase-close').click();
  await expect(page.getByTestId('export-status')).toContainText('shown in the wallet window');
  await expect(page.getByTestId('mnemonic')).toBeHidden();
});

test('frame mode: an SMS code and OAuth added (approved in the frame) and each used to log in', async ({ page }) => {
  test.setTimeout(120_000);
  await signedUp(page);

  await page.getByTestId('nav-credentials').click();
  await page.getByTestId('add-sms').click();
  await approveInFrame(signer(page));
  await expect(page.getByTestId('add-sms-in-frame')).toBeVisible();
  await typeInFrame(page);
  await expect(page.getByTestId('cred-status')).toContainText('SMS login added and verified');
  await expect(rows(page, 'SMS_OTP')).toHaveCount(1);

  await page.getByTestId('add-oauth').click();
  await page.locator('#sandbox-sign-in').click();
  // Back in the app: the frame asks to approve adding the sign-in the token names (its issuer).
  await expect(signer(page).getByTestId('signer-approval')).toContainText('Add a sign-in method');
  await expect(signer(page).getByTestId('signer-approval')).toContainText('accounts.google.com');
  await approveInFrame(signer(page));
  await expect(rows(page, 'OAUTH')).toHaveCount(1);

  await logout(page);
  await page.getByTestId('login-tab-sms').click();
  await page.getByTestId('login-sms-send').click();
  await typeInFrame(page);
  await expect(page.getByTestId('screen-home')).toBeVisible();
  await expect(page.getByTestId('session-credential')).toHaveText('SMS code');

  await logout(page);
  await page.getByTestId('login-tab-oauth').click();
  await page.getByTestId('login-oauth').click();
  await expect(page).toHaveURL(/\/sandbox\/oauth\/authorize\?/);
  await page.locator('#sandbox-sign-in').click();
  await expect(page.getByTestId('screen-home')).toBeVisible();
  await expect(page.getByTestId('session-credential')).toHaveText('OAuth');
});
