/** Journeys 13–16: the signed actions beyond login. */
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import {
  autoApprove,
  byTest,
  credentialRows,
  expect,
  loginWithOtp,
  logLegs,
  logout,
  newLoggedInCustomer,
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
  await expect(byTest(page, 'transfer-result')).toContainText('Sent 5 USDC');
  await expect(byTest(page, 'transfer-result')).toContainText('Balance now 20.00 USDC');
  // One stamped call over the quote's payload: no 202 leg, no Request-Id.
  const headers = (await execute).headers();
  expect(headers['service-wallet-signature']).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(headers['request-id']).toBeUndefined();
  expect(headers['idempotency-key']).toBeTruthy();
  await expect(logLegs(page, 'POST', /\/quotes$/).and(page.locator('[data-leg="1"][data-signed="false"]'))).toHaveCount(1);
  await expect(logLegs(page, 'POST', /\/quotes\/.+\/execute$/).and(page.locator('[data-leg="1"][data-status="200"][data-signed="true"]'))).toHaveCount(1);
  await expect(logLegs(page, 'POST', /\/quotes\/.+\/execute$/).and(page.locator('[data-status="202"]'))).toHaveCount(0);

  await byTest(page, 'nav-home').click();
  await expect(byTest(page, 'balance')).toHaveText('20.00 USDC');
});

test('14 · card and delegated key: three legs in the request log', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await byTest(page, 'nav-actions').click();
  await byTest(page, 'card-create').click();
  await expect(byTest(page, 'card-result')).toContainText('Card ••••');
  await expect(byTest(page, 'delegated-create')).toBeEnabled();

  await byTest(page, 'delegated-nickname').fill('Coffee card key');
  await byTest(page, 'delegated-create').click();
  await expect(byTest(page, 'delegated-result')).toContainText('is ACTIVE');
  await expect(byTest(page, 'delegated-row').and(page.locator('[data-status="ACTIVE"]'))).toHaveCount(1);
  await expect(byTest(page, 'delegated-row')).toContainText('Coffee card key');

  const legs = logLegs(page, 'POST', /\/auth\/delegated-keys$/);
  await expect(legs).toHaveCount(3);
  await expect(legs.and(page.locator('[data-leg="1"][data-status="202"][data-signed="false"]'))).toHaveCount(1);
  await expect(legs.and(page.locator('[data-leg="2"][data-status="202"][data-signed="true"]'))).toHaveCount(1);
  await expect(legs.and(page.locator('[data-leg="3"][data-status="201"][data-signed="true"]'))).toHaveCount(1);
  // And the two payloads signed on the way, shown before signing.
  await expect(byTest(page, 'log-row').and(page.locator('[data-kind="sign"][data-approved="true"]')).filter({ hasText: /delegated/i })).toHaveCount(2);
});

test('15 · export shows a valid BIP-39 mnemonic, hidden again after a timeout', async ({ page, context }) => {
  // The page's clock is under the test's control (it runs normally until moved forward).
  await page.clock.install();
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await byTest(page, 'nav-actions').click();

  const exportAnswer = page.waitForResponse((r) => /\/api\/internal-accounts\/[^/]+\/export$/.test(new URL(r.url()).pathname) && r.status() === 200);
  await byTest(page, 'export-reveal').click();
  const mnemonic = byTest(page, 'mnemonic');
  await expect(mnemonic).toBeVisible();
  const words = (await mnemonic.locator('li').allTextContents()).map((w) => w.trim());
  expect([12, 24]).toContain(words.length);
  for (const word of words) expect(wordlist).toContain(word);
  expect(validateMnemonic(words.join(' '), wordlist)).toBe(true);
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
  await expect(byTest(page, 'contact-status')).toHaveText(`Email changed to ${next}; the matching login code now goes there.`);
  await expect(byTest(page, 'contact-current')).toContainText(next);
  const legs = logLegs(page, 'PATCH', /\/customers\//);
  await expect(legs.and(page.locator('[data-leg="1"][data-status="202"][data-signed="false"]'))).toHaveCount(1);
  await expect(legs.and(page.locator('[data-leg="2"][data-status="200"][data-signed="true"]'))).toHaveCount(1);

  // The email-code credential moved with it: the next login code goes to the new address.
  await byTest(page, 'nav-credentials').click();
  await expect(credentialRows(page, 'EMAIL_OTP').getByTestId('cred-nickname')).toHaveText(next);
  await logout(page);
  await expect(byTest(page, 'login-email-send')).toContainText(next);
  await loginWithOtp(page, 'email');
});
