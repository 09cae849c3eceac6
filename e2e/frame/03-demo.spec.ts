/**
 * The demo in frame mode (`npm start`'s default): the app on one port of localhost, the signer page
 * on another. Sign up, log in by email code typed in the signer frame, make the account private
 * (approved in the frame), log out. Chromium with third-party storage partitioning on.
 */
import { expect, test } from '@playwright/test';
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

test('the demo in frame mode: login by a code typed in the frame, an action approved there, logout', async ({ page }) => {
  test.setTimeout(120_000);
  expect(stack.signerUrl).not.toBeNull();
  await page.goto(stack.url);
  const id = Math.random().toString(36).slice(2, 10);
  await page.getByTestId('signup-email').fill(`demo-frame-${id}@example.com`);
  await page.getByTestId('signup-phone').fill('+14155550123');
  await page.getByTestId('signup-submit').click();
  await expect(page.getByTestId('screen-login')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('login-email-send').click();
  await expect(page.getByTestId('login-in-frame')).toBeVisible();
  const frame = page.frameLocator('iframe[title="Wallet signer"]');
  await frame.getByTestId('signer-otp-input').fill(OTP);
  await frame.getByTestId('signer-otp-submit').click();
  await expect(page.getByTestId('screen-home')).toBeVisible();
  await expect(page.getByTestId('session-id')).toHaveAttribute('title', /^Session:/);

  await page.getByTestId('nav-actions').click();
  const state = page.getByTestId('private-state');
  const before = (await state.textContent()) ?? '';
  await page.getByTestId('private-toggle').click();
  await expect(frame.getByTestId('signer-approval')).toContainText('Private mode');
  await approveInFrame(frame);
  await expect(state).toHaveText(before.includes('ON') ? 'privateEnabled is OFF.' : 'privateEnabled is ON.');

  await page.getByTestId('nav-home').click();
  await page.getByTestId('logout').click();
  await expect(page.getByTestId('screen-login')).toBeVisible();
});
