/**
 * Journey 5, in every engine and both modes: a wrong code shows a clear error, then the right one
 * logs in. In frame mode the code is the frame's, and so is what it says of a wrong one
 * (THREAT-MODEL P2, P3); the app's page stays on its login screen.
 */
import { attributeOf, autoApprove, expect, isVisible, OTP, signPrivateToggle, signUp, submitEmailCode, test, textOf, visible } from './fixtures.js';
import { inFrameMode } from './modes.js';
import { signerIn, textIn, typeCode } from '../frame/portable/signer-steps.js';

test('5 · a wrong OTP shows a clear error, then the correct one works', async ({ openDevice }) => {
  test.slow(); // two code entries and a signed action: Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  await autoApprove(tab);
  await signUp(tab);
  await submitEmailCode(tab, '123456');
  if (inFrameMode(tab)) {
    await expect.poll(() => textIn(signerIn(tab), 'signer-otp-error')).toContain('not right');
    expect(await isVisible(tab, 'screen-login')).toBe(true);
    await typeCode(tab, OTP);
  } else {
    await visible(tab, 'login-status');
    expect(await attributeOf(tab, 'login-status', 'role')).toBe('alert');
    await expect.poll(() => textOf(tab, 'login-status')).toContain('That code is not right');
    expect(await textOf(tab, 'login-status')).toContain('[OTP_CODE_INVALID]');
    expect(await isVisible(tab, 'screen-login')).toBe(true);

    // Same form, same challenge: the right code now logs in.
    await tab.fill('otp-code', OTP);
    await tab.click('otp-verify');
  }
  await visible(tab, 'screen-home');
  await expect.poll(() => textOf(tab, 'session-credential')).toBe('Email code');
  await signPrivateToggle(tab);
});
