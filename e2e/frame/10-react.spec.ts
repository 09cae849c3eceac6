/**
 * A React app in frame mode (issue 32; the React bindings of issue 35 over the FrameWallet): the
 * app at http://localhost:A renders `<WalletProvider wallet={frameWallet}>` and the same hooks as
 * in-origin; its signer frame at another origin calls the email-first proxy, so the wallet's email
 * code is the app's login. The user gives an email in the app, types the code in the frame (a
 * wrong one first), the app shows signed-in, one signed action is approved in the frame, and the
 * user logs out. The parent page's console, messages, DOM and network are searched for the codes.
 */
import { expect, test } from '@playwright/test';
import { approveInFrame, newEmail, recordParent, signer, typeCode, OTP } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack({ emailLogin: true });

test('React over the frame: email-first login typed in the frame, signed in, an action approved there, logout; no code reaches the parent', async ({ page, context }) => {
  const recorder = await recordParent(context, page, frameStack().appUrl);
  await page.goto(frameStack().reactAppPage());
  await expect(page.getByTestId('signed-in')).toHaveText('false:signed-out');

  const email = newEmail();
  await page.getByTestId('email').fill(email);
  await page.getByTestId('send-code').click();
  // The hook opened the frame's code entry itself; the app says where to type.
  await expect(page.getByTestId('otp-step')).toHaveText('awaiting-code:frame');
  await expect(page.getByTestId('type-in-frame')).toBeVisible();
  const WRONG = '937251';
  await typeCode(page, WRONG);
  await expect(signer(page).getByTestId('signer-otp-error')).toContainText('not right');
  await typeCode(page, OTP);
  await expect(page.getByTestId('signed-in')).toHaveText('true:active');
  const accountId = (await page.getByTestId('account').textContent()) ?? '';
  expect(accountId).toMatch(/^InternalAccount:/);
  await expect(page.locator('iframe[title="Wallet signer"]')).toBeHidden();

  // One signed action: pending until approved in the frame, then success.
  await page.getByTestId('private').click();
  await expect(page.getByTestId('private-status')).toHaveText('pending::');
  const approval = signer(page).getByTestId('signer-approval');
  await expect(approval).toContainText('Private mode');
  await expect(approval).toContainText(accountId);
  await approveInFrame(signer(page));
  await expect(page.getByTestId('private-status')).toHaveText('success:on:');
  expect(frameStack().signed()).toContain(`PATCH /login-api/internal-accounts/${encodeURIComponent(accountId)}`);

  await page.getByTestId('logout').click();
  await expect(page.getByTestId('signed-in')).toHaveText('false:signed-out');
  await expect(page.getByTestId('email')).toBeVisible();

  const seen = await recorder.seen();
  expect(seen).toContain(accountId); // the recorder did see the protocol's traffic
  expect(seen).not.toContain(WRONG);
  expect(seen).not.toContain(OTP);
});
