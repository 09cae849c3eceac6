/**
 * Journey 2, in every engine and both modes: add the SMS-code credential (a signed retry by the
 * current session), log out, log in with it. In frame mode the addition is approved in the signer
 * frame (or its approval window) and the code that activates it is typed there (THREAT-MODEL P3).
 */
import { expect, loggedLegs, loginWithCode, newLoggedInCustomer, signPrivateToggle, test, textOf } from './fixtures.js';
import { addSmsCredential, credentialNicknames, logout } from './journey-steps.js';

test('2 · SMS OTP: add the credential, log out, log in with it', async ({ openDevice }) => {
  test.slow(); // a login, an addition approved and activated by a code, a second login: Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  const { phone } = await newLoggedInCustomer(tab);

  await addSmsCredential(tab);
  await expect.poll(() => credentialNicknames(tab, 'SMS_OTP')).toEqual([phone]);
  // Adding is a signed retry by the current session.
  await expect.poll(async () => (await loggedLegs(tab, 'POST', '/auth/credentials$')).filter((l) => l.leg === '2' && l.signed === 'true' && l.status === '201')).toHaveLength(1);

  await logout(tab);
  await tab.click('login-tab-sms');
  await expect.poll(() => textOf(tab, 'login-sms-send')).toContain(phone);
  await loginWithCode(tab, 'sms');
  await expect.poll(() => textOf(tab, 'session-credential')).toBe('SMS code');
  await signPrivateToggle(tab);
});
