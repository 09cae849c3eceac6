/** Journey 11, in every engine: logout, and "sign out other devices" (a second browser profile). */
import { approveUntil, expect, isVisible, loginWithEmailCode, newLoggedInCustomer, signInAs, signPrivateToggle, test, textOf, visible } from './fixtures.js';

test('11 · logout, and "sign out other devices"', async ({ openDevice }) => {
  test.slow(); // two browsers of their own (in WebKit, two MiniBrowsers), three logins
  const deviceA = await (await openDevice()).newTab();
  const { email } = await newLoggedInCustomer(deviceA);

  // Another device of the same person: a browser profile of its own, the same customer and wallet.
  const deviceB = await (await openDevice()).newTab();
  await signInAs(deviceB, email);
  await loginWithEmailCode(deviceB);

  await deviceA.click('sessions-list');
  await expect.poll(() => textOf(deviceA, 'sessions-count')).toBe('2 active sessions on the service.');
  await deviceA.click('sign-out-others');
  await approveUntil(deviceA, async () => (await textOf(deviceA, 'home-status')).startsWith('Ended'));
  await expect.poll(() => textOf(deviceA, 'home-status')).toBe('Ended 1 session on other devices.');
  await expect.poll(() => textOf(deviceA, 'sessions-count')).toBe('1 active session on the service.');

  // Device B's next signed action is refused: it is sent back to the login screen, told why.
  await deviceB.click('nav-actions');
  await deviceB.click('private-toggle');
  // In frame mode the user approves it first: the frame learns of the end from the signed leg's answer.
  await approveUntil(deviceB, () => isVisible(deviceB, 'screen-login'));
  await expect.poll(() => textOf(deviceB, 'login-status')).toContain('This session was ended');
  expect(await textOf(deviceB, 'login-status')).toContain('Log in again.');
  await signPrivateToggle(deviceA);

  // Logout on A ends A's session on the service too: B, logged in again, is the only one left.
  await deviceA.click('nav-home');
  await deviceA.click('logout');
  await visible(deviceA, 'screen-login');
  await expect.poll(() => textOf(deviceA, 'login-status')).toBe('You are logged out.');
  await loginWithEmailCode(deviceB);
  await deviceB.click('sessions-list');
  await expect.poll(() => textOf(deviceB, 'sessions-count')).toBe('1 active session on the service.');
});
