/**
 * Journey 16, in every engine and both modes: a contact change (email) through the signed retry
 * (approved where the mode asks); the email-code credential moves with it, and the next login code
 * goes to the new address.
 */
import { uniqueContact } from '../fixtures.js';
import { approveUntil, expect, loggedLegs, loginWithEmailCode, newLoggedInCustomer, test, textOf } from './fixtures.js';
import { credentialNicknames, logout } from './journey-steps.js';

test('16 · contact change (email) through the signed retry', async ({ openDevice }) => {
  test.slow(); // a login, an approved contact change, a second login: Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  const { email: next } = uniqueContact();

  await tab.click('nav-actions');
  await tab.evaluate(() => {
    const kind = document.querySelector('[data-testid="contact-kind"]') as HTMLSelectElement;
    kind.value = 'email';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await tab.fill('contact-value', next);
  await tab.click('contact-submit');
  const changed = `Email changed to ${next}; the matching login code now goes there.`;
  await approveUntil(tab, async () => (await textOf(tab, 'contact-status')) === changed);
  await expect.poll(() => textOf(tab, 'contact-current')).toContain(next);
  await expect
    .poll(() => loggedLegs(tab, 'PATCH', '/customers/'))
    .toEqual([
      { leg: '1', status: '202', signed: 'false' },
      { leg: '2', status: '200', signed: 'true' },
    ]);

  // The email-code credential moved with it: the next login code goes to the new address.
  await tab.click('nav-credentials');
  await expect.poll(() => credentialNicknames(tab, 'EMAIL_OTP')).toEqual([next]);
  await logout(tab);
  await expect.poll(() => textOf(tab, 'login-email-send')).toContain(next);
  await loginWithEmailCode(tab);
});
