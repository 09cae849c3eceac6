/**
 * The frame-mode journey (THREAT-MODEL.md P1, P2, P3): the app at http://localhost:A holds a wallet
 * whose keys live in the signer frame at http://localhost:B. An email-code login whose code is
 * typed in the frame (a wrong one first), one signed action approved by a trusted click on the
 * frame's approval screen (which says what is signed), a declined one, and a logout. The parent
 * page's console, messages, DOM and network are then searched for the codes typed in the frame.
 */
import { expect, test } from '@playwright/test';
import { approveInFrame, frameWallet, newCustomer, recordParent, signer, startLogin, startUpdate, typeCode, updateOutcome, OTP } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

test('login with the code typed in the frame, an action approved there, one declined, logout; no code reaches the parent', async ({ page, context }) => {
  const recorder = await recordParent(context, page, frameStack().appUrl);
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  expect(await page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('signed-out');

  // A wrong code, told in the frame, then the right one.
  const WRONG = '937251';
  await startLogin(page, accountId);
  await typeCode(page, WRONG);
  await expect(signer(page).getByTestId('signer-otp-error')).toContainText('not right');
  await typeCode(page, OTP);
  const login = await page.evaluate(() => window.t.verifying as Promise<{ ok: boolean; session?: { id: string; accountId: string } }>);
  expect(login.ok).toBe(true);
  expect(login.session?.accountId).toBe(accountId);
  await expect.poll(() => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('active');

  // The approval screen says what is signed; a trusted click approves it.
  await startUpdate(page, accountId, true);
  const approval = signer(page).getByTestId('signer-approval');
  await expect(approval).toContainText('Change your wallet settings');
  await expect(approval).toContainText(accountId);
  await expect(approval).toContainText('Private mode');
  await expect(approval).toContainText('→ On');
  await approveInFrame(signer(page));
  const approved = await updateOutcome(page);
  expect(approved.ok).toBe(true);
  expect(approved.account?.privateEnabled).toBe(true);
  await expect(page.locator('iframe[title="Wallet signer"]')).toBeHidden();

  // Declined in the frame: SIGNER_DECLINED, nothing changed.
  await startUpdate(page, accountId, false);
  await signer(page).getByTestId('signer-decline').click();
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });

  await page.evaluate(() => (window.t.wallet as { logout(): Promise<void> }).logout());
  await expect.poll(() => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('signed-out');
  expect(await page.evaluate(() => (window.t.wallet as { sessions(): unknown[] }).sessions())).toEqual([]);

  const seen = await recorder.seen();
  expect(seen).toContain(accountId); // the recorder did see the protocol's traffic
  expect(seen).not.toContain(WRONG);
  expect(seen).not.toContain(OTP);
});
