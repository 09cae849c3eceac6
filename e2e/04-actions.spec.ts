/**
 * Journeys 13–16: the signed actions beyond login. Both modes: in frame mode each is approved by a
 * click in the signer frame, and the export's phrase is shown there, never in the app's page.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Page } from '@playwright/test';
import { pressInFrame } from './frame/helpers.js';
import {
  approve,
  approveDelegatedKey,
  autoApprove,
  byTest,
  credentialRows,
  expect,
  expectLegs,
  loginWithOtp,
  logout,
  newLoggedInCustomer,
  signerFrame,
  test,
  uniqueContact,
} from './fixtures.js';

test('13 · transfer: fund, quote, execute; the balance changes', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await expect(byTest(page, 'balance')).toHaveText('0.00 USDC');

  await byTest(page, 'nav-actions').click();
  await byTest(page, 'fund-amount').fill('25');
  await byTest(page, 'fund-submit').click();
  await expect(byTest(page, 'fund-status')).toHaveText('Added 25 to the wallet.');
  await expect(byTest(page, 'fund-balance')).toHaveText('Balance: 25.00 USDC');

  await expect(byTest(page, 'transfer-payee').locator('option')).not.toHaveCount(0);
  await byTest(page, 'transfer-amount').fill('5');
  const execute = page.waitForRequest((r) => r.method() === 'POST' && /\/api\/quotes\/[^/]+\/execute$/.test(new URL(r.url()).pathname));
  await byTest(page, 'transfer-submit').click();
  await approve(page);
  await expect(byTest(page, 'transfer-result')).toContainText('Sent 5 USDC');
  await expect(byTest(page, 'transfer-result')).toContainText('Balance now 20.00 USDC');
  // One stamped call over the quote's payload: no 202 leg, no Request-Id.
  const headers = (await execute).headers();
  expect(headers['service-wallet-signature']).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(headers['request-id']).toBeUndefined();
  expect(headers['idempotency-key']).toBeTruthy();
  await expectLegs(page, 'POST', /\/quotes$/, { leg: 1, signed: false }, 1);
  await expectLegs(page, 'POST', /\/quotes\/.+\/execute$/, { leg: 1, status: 200, signed: true }, 1);
  await expectLegs(page, 'POST', /\/quotes\/.+\/execute$/, { status: 202 }, 0);

  await byTest(page, 'nav-home').click();
  await expect(byTest(page, 'balance')).toHaveText('20.00 USDC');
});

test('14 · card and delegated key: three legs in the request log', async ({ page, context, mode }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await byTest(page, 'nav-actions').click();
  await byTest(page, 'card-create').click();
  await expect(byTest(page, 'card-result')).toContainText('Card ••••');
  await expect(byTest(page, 'delegated-create')).toBeEnabled();

  await byTest(page, 'delegated-nickname').fill('Coffee card key');
  await byTest(page, 'delegated-create').click();
  await approveDelegatedKey(page);
  const legs = /\/auth\/delegated-keys$/;
  await expect(byTest(page, 'delegated-result')).toContainText('is ACTIVE');
  await expect(byTest(page, 'delegated-row').and(page.locator('[data-status="ACTIVE"]'))).toHaveCount(1);
  await expect(byTest(page, 'delegated-row')).toContainText('Coffee card key');

  await expectLegs(page, 'POST', legs, {}, 3);
  await expectLegs(page, 'POST', legs, { leg: 1, status: 202, signed: false }, 1);
  await expectLegs(page, 'POST', legs, { leg: 2, status: 202, signed: true }, 1);
  await expectLegs(page, 'POST', legs, { leg: 3, status: 201, signed: true }, 1);
  // And the two payloads signed on the way, shown before signing (in-origin: the app's onBeforeSign
  // writes them to the log; in frame mode they were the frame's two approvals above).
  if (mode === 'in-origin') await expect(byTest(page, 'log-row').and(page.locator('[data-kind="sign"][data-approved="true"]')).filter({ hasText: /delegated/i })).toHaveCount(2);
});

/** A valid 12- or 24-word BIP-39 phrase. */
function expectPhrase(words: readonly string[]): void {
  expect([12, 24]).toContain(words.length);
  for (const word of words) expect(wordlist).toContain(word);
  expect(validateMnemonic(words.join(' '), wordlist)).toBe(true);
}

const EXPORT_PATH = /\/api\/internal-accounts\/[^/]+\/export$/;

/** Frame mode: approved and shown in the signer frame (THREAT-MODEL P2); the app's page is told only that it was shown. */
async function exportInFrame(page: Page): Promise<void> {
  const frame = signerFrame(page);
  const exportAnswer = page.waitForResponse((r) => EXPORT_PATH.test(new URL(r.url()).pathname) && r.status() === 200);
  await byTest(page, 'export-reveal').click();
  await expect(frame.getByRole('dialog', { name: 'Reveal your recovery phrase' })).toBeVisible();
  await approve(page);
  await expect(frame.getByRole('dialog', { name: 'Your recovery phrase' })).toBeVisible();
  // Reveal is a guarded button (armed once visible long enough, a resting pointer): pressed as a person does.
  await pressInFrame(frame, 'signer-phrase-reveal');
  const list = frame.getByTestId('signer-phrase-words').locator('li');
  await expect(list).not.toHaveCount(0);
  const words = (await list.allTextContents()).map((w) => w.trim());
  expectPhrase(words);
  const answer = await exportAnswer;
  expect(await answer.text()).not.toContain(words.join(' '));
  expect((answer.request().postDataJSON() as { clientPublicKey: string }).clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);

  await frame.getByRole('button', { name: 'Done' }).click();
  await expect(byTest(page, 'export-status')).toContainText('shown in the wallet window');
  await expect(byTest(page, 'mnemonic')).toBeHidden();
  expect(await page.content()).not.toContain(words.slice(0, 3).join(' '));
  await expect(byTest(page, 'export-reveal')).toBeVisible();
}

test('15 · export shows a valid BIP-39 mnemonic, hidden again after a timeout', async ({ page, context, mode }) => {
  if (mode === 'frame') {
    // The timeout is the app page's own (its clock is the test's); the frame's phrase is closed by the user.
    await newLoggedInCustomer(page);
    await byTest(page, 'nav-actions').click();
    await exportInFrame(page);
    return;
  }
  // The page's clock is under the test's control (it runs normally until moved forward).
  await page.clock.install();
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await byTest(page, 'nav-actions').click();

  const exportAnswer = page.waitForResponse((r) => EXPORT_PATH.test(new URL(r.url()).pathname) && r.status() === 200);
  await byTest(page, 'export-reveal').click();
  const mnemonic = byTest(page, 'mnemonic');
  await expect(mnemonic).toBeVisible();
  const words = (await mnemonic.locator('li').allTextContents()).map((w) => w.trim());
  expectPhrase(words);
  await expect(byTest(page, 'mnemonic-countdown')).toHaveText(/^Hides in (30|29) s\.$/);

  // The phrase reached the page encrypted to its one-time key, never in clear.
  const answer = await exportAnswer;
  expect(await answer.text()).not.toContain(words.join(' '));
  const request = answer.request().postDataJSON() as { clientPublicKey: string };
  expect(request.clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);

  await page.clock.fastForward(31_000);
  await expect(mnemonic).toBeHidden();
  await expect(mnemonic.locator('li')).toHaveCount(0);
  await expect(byTest(page, 'export-reveal')).toBeVisible();
});

test('16 · contact change (email) through the signed retry', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  const { email: next } = uniqueContact();

  await byTest(page, 'nav-actions').click();
  await byTest(page, 'contact-kind').selectOption('email');
  await byTest(page, 'contact-value').fill(next);
  await byTest(page, 'contact-submit').click();
  await approve(page);
  await expect(byTest(page, 'contact-status')).toHaveText(`Email changed to ${next}; the matching login code now goes there.`);
  await expect(byTest(page, 'contact-current')).toContainText(next);
  await expectLegs(page, 'PATCH', /\/customers\//, { leg: 1, status: 202, signed: false }, 1);
  await expectLegs(page, 'PATCH', /\/customers\//, { leg: 2, status: 200, signed: true }, 1);

  // The email-code credential moved with it: the next login code goes to the new address.
  await byTest(page, 'nav-credentials').click();
  await expect(credentialRows(page, 'EMAIL_OTP').getByTestId('cred-nickname')).toHaveText(next);
  await logout(page);
  await expect(byTest(page, 'login-email-send')).toContainText(next);
  await loginWithOtp(page, 'email');
});
