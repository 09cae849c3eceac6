/**
 * Journey 1, in every engine and both modes: email-code login, then a signed action (prompted,
 * approved, both legs logged). In frame mode the code is typed in the signer frame and its verify is
 * signed without a prompt (THREAT-MODEL P1: a login's own verify, decided by the frame).
 */
import { approvePrompt, expect, expectPrompt, loggedLegs, OTP, signUp, submitEmailCode, test, textOf, visible } from './fixtures.js';

test('1 · email OTP login, then a signed action (prompted, approved, both legs logged)', async ({ openDevice, mode }) => {
  const tab = await (await openDevice()).newTab();
  await signUp(tab);
  await submitEmailCode(tab, OTP);
  if (mode === 'in-origin') {
    // The OTP verify retry is signed with the fresh key: the demo shows the decoded token first.
    await visible(tab, 'sign-payload');
    await tab.click('sign-approve');
  }
  await visible(tab, 'screen-home');
  await expect.poll(() => textOf(tab, 'session-credential')).toBe('Email code');

  await tab.click('nav-actions');
  await expect.poll(() => textOf(tab, 'private-state')).toBe('privateEnabled is OFF.');
  await tab.click('private-toggle');
  await expectPrompt(tab, 'update-internal-account');
  if (mode === 'in-origin') await expect.poll(() => textOf(tab, 'sign-payload')).toContain('privateEnabled');
  await approvePrompt(tab);
  await expect.poll(() => textOf(tab, 'private-state')).toBe('privateEnabled is ON.');

  await expect
    .poll(() => loggedLegs(tab, 'PATCH', '/internal-accounts/'))
    .toEqual([
      { leg: '1', status: '202', signed: 'false' },
      { leg: '2', status: '200', signed: 'true' },
    ]);
});
