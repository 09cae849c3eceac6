/**
 * Signing out the other devices in frame mode (issue 33, THREAT-MODEL.md P1), Chromium: a second
 * device (another browser context with the customer's app cookie) logs in to the same account; the
 * first asks to sign out the other devices. The frame lists the sessions itself and prompts once
 * per session it ends, in words made from that very request: "All other devices (1)", which one
 * ("1 of 1", the sign-in that made it, masked), its id. Approved: one signed DELETE at the server,
 * and the other device's session is gone from the service's list.
 */
import { expect, test } from '@playwright/test';
import { approveInFrame, frameWallet, loginInFrame, newCustomer, signer } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

test('the other devices signed out: one prompt per session, in words from the request; one signed DELETE', async ({ page, browser }) => {
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  const mine = await loginInFrame(page, accountId);

  // The other device: its own storage, the same customer's cookie.
  const other = await browser.newContext();
  await other.addCookies(await page.context().cookies());
  const otherPage = await other.newPage();
  await otherPage.goto(frameStack().appPage());
  await otherPage.locator('body[data-ready="true"]').waitFor();
  await frameWallet(otherPage);
  const theirs = await loginInFrame(otherPage, accountId);
  await other.close();
  const deletes = () => frameStack().signed().filter((s) => s.startsWith('DELETE /api/auth/sessions/')).length;
  const before = deletes();

  await page.evaluate(() => {
    window.t.outcome = (window.t.wallet as { signOutOtherDevices(): Promise<number> }).signOutOtherDevices().then(
      (value) => ({ ok: true, value }),
      (error: { code?: string }) => ({ ok: false, code: error.code }),
    );
  });
  const screen = signer(page).getByTestId('signer-approval');
  await expect(screen).toContainText('Sign out devices');
  await expect(screen).toContainText('All other devices (1)');
  await expect(screen).toContainText('1 of 1');
  await expect(screen).toContainText('Codes sent by email');
  await expect(screen).toContainText(theirs);
  await expect(screen).not.toContainText(mine);
  await approveInFrame(signer(page));
  expect(await page.evaluate(() => window.t.outcome)).toEqual({ ok: true, value: 1 });
  expect(deletes()).toBe(before + 1);
  const listed = await page.evaluate((id) => (window.t.wallet as { listSessions(id: string): Promise<{ id: string }[]> }).listSessions(id), accountId);
  expect(listed.map((s) => s.id)).toContain(mine);
  expect(listed.map((s) => s.id)).not.toContain(theirs);
});
