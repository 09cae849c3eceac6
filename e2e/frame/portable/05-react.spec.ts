/**
 * e2e/frame/10-react.spec.ts in every engine (Chromium with partitioning on, Firefox ESR, WebKitGTK)
 * through the portable driver: a React app over the FrameWallet, the email-first login with the code
 * typed in the frame, signed in shown, one action approved in the frame, logout; the server saw
 * exactly the one signature the user approved. (The search of the parent for the codes is the
 * Chromium spec's: its recorder is installed before the page's script, which opens the channel at
 * load; the portable driver installs scripts only after load.)
 */
import { newEmail } from '../helpers.js';
import { useFrameStack } from '../stack.js';
import { approveIn, expect, OTP, shown, signerIn, test, textIn, typeCode, visibleIn } from './steps.js';

const frameStack = useFrameStack({ emailLogin: true });

test('React over the frame: email-first login typed in the frame, signed in, an action approved there, logout', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await tab.goto(frameStack().reactAppPage());
  await expect.poll(() => textIn(tab, 'signed-in')).toBe('false:signed-out');

  await tab.fill('email', newEmail());
  await tab.click('send-code');
  await expect.poll(() => textIn(tab, 'otp-step')).toBe('awaiting-code:frame');
  const WRONG = '937251';
  await typeCode(tab, WRONG);
  await expect.poll(() => textIn(signerIn(tab), 'signer-otp-error')).toContain('not right');
  await typeCode(tab, OTP);
  await expect.poll(() => textIn(tab, 'signed-in')).toBe('true:active');
  const accountId = await textIn(tab, 'account');
  expect(accountId).toMatch(/^InternalAccount:/);

  await shown(tab, 'private');
  await tab.click('private');
  await expect.poll(() => textIn(tab, 'private-status')).toBe('pending::');
  await shown(signerIn(tab), 'signer-approval');
  expect(await textIn(signerIn(tab), 'signer-approval')).toContain('Private mode');
  await approveIn(tab);
  await expect.poll(() => textIn(tab, 'private-status')).toBe('success:on:');
  expect(frameStack().signed().filter((s) => s.startsWith('PATCH'))).toEqual([`PATCH /login-api/internal-accounts/${encodeURIComponent(accountId)}`]);

  await tab.click('logout');
  await expect.poll(() => textIn(tab, 'signed-in')).toBe('false:signed-out');
  await expect.poll(() => visibleIn(tab, 'email')).toBe(true);
});
