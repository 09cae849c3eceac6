/**
 * Journeys 40–42 of e2e/14-session-ends.spec.ts (issue 31; src/session/INVARIANTS.md I1, I8) in
 * every engine, with no request interception: the faults are given in the page (page-faults.ts).
 * What the service lists is read from the sandbox directly; requests are read from the demo's log.
 *
 * 40: the demo's sign-in is gone (the app's own sign-out, `POST /demo/logout`, clears its httpOnly
 * cookie), so its proxy answers the logout's DELETE with `401 LOGIN_REQUIRED`: logged out here, the
 * session kept as a pending end (still listed), the app says to sign in again (its `end-refused`
 * banner); signed in to the app again, the end is finished.
 * 41: a logout with the service unreachable, then a load with the local clock 2 h fast, still
 * unreachable: the pending end is kept, and finished back online. The load must run with Date
 * shifted and fetch failing from its first script, which needs an init script: Playwright
 * (Chromium) and WebDriver BiDi (Firefox, `script.addPreloadScript`) have one; WebKitGTK's
 * WebKitWebDriver speaks only W3C WebDriver classic, which runs scripts only in a document already
 * loaded, so there the demo stack's test switch adds it (demo/server/init-scripts.ts).
 * In frame mode the faults are given in the signer frame (its network, clock and storage; init
 * scripts run in every frame of the tab), where the wallet's session lives.
 * 42: a logout while IndexedDB refuses writes (put and add throw QuotaExceededError) in both tabs
 * of the browser: the session is ended on the service and both tabs leave the wallet.
 */
import { serviceSessions } from '../fixtures.js';
import { currentSessionId, expect, twoTabsLoggedIn, loggedLegs, newLoggedInCustomer, signInAs, test, textOf, visible, walletAccountId, walletScope } from './fixtures.js';
import { shiftableClock, storageFull, unreachableWhileFlagged } from './page-faults.js';

const HOUR = 60 * 60 * 1000;

test('40 · logout once the app’s sign-in is gone (proxy 401 LOGIN_REQUIRED): logged out here, the session kept to end, the app says so; ended after signing in to the app again', async ({ openDevice }) => {
  test.slow(); // two sign-ins to the app and a wallet login, on a shared, busy machine
  const tab = await (await openDevice()).newTab();
  const { email } = await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  const session = await currentSessionId(tab);
  // The app's own sign-in ends (its cookie cleared by its sign-out route); the wallet does not know.
  const signedOut = await tab.evaluate(async () => (await fetch('/demo/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status);
  expect(signedOut).toBe(204);
  await tab.click('logout');
  await visible(tab, 'screen-login');
  await expect.poll(() => textOf(tab, 'banner-notice')).toContain('sign in to the demo again');
  expect((await loggedLegs(tab, 'DELETE', '/auth/sessions/')).map((l) => l.status)).toContain('401');
  // I1/I8: a refusal by the app's backend is not the service saying the session is gone: still listed.
  expect(await serviceSessions(accountId)).toEqual([session]);
  // Signed in to the app again: the wallet loads and finishes the pending end.
  await signInAs(tab, email);
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('41 · logout with the service unreachable, then a load with the local clock 2 h fast, still unreachable: the pending end is kept, and finished back online', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await tab.addInitScript(shiftableClock, undefined);
  await tab.addInitScript(unreachableWhileFlagged, '/api/auth/');
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  const session = await currentSessionId(tab);
  await (await walletScope(tab)).evaluate(() => localStorage.setItem('e2e.unreachable', '1'));
  await tab.click('logout');
  await visible(tab, 'screen-login');
  expect(await serviceSessions(accountId)).toEqual([session]);
  // The page loads again two hours fast (an hour past the session's expiry and its hour of grace on
  // the local clock), the service still unreachable: no answer has told it the server's time.
  await (await walletScope(tab)).evaluate((ms) => localStorage.setItem('e2e.clockOffsetMs', String(ms)), 2 * HOUR);
  await tab.reload();
  await visible(tab, 'screen-login');
  const wallet = await walletScope(tab);
  // The load tries to end it (and cannot).
  await expect.poll(() => wallet.evaluate(() => (globalThis as { e2eTried?: string[] }).e2eTried ?? [])).toContain('DELETE');
  // Back online: the network returns and the page hears it.
  await wallet.evaluate(() => {
    localStorage.removeItem('e2e.unreachable');
    dispatchEvent(new Event('online'));
  });
  // Before the fix the load dropped the pending end on the local clock's word: the session stayed listed.
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('42 · logout while IndexedDB refuses writes, two tabs: the session is ended on the service and both tabs leave the wallet', async ({ openDevice }) => {
  test.slow(); // two tabs on a shared, busy machine
  const { tabA, tabB, accountId, session } = await twoTabsLoggedIn(openDevice);
  expect(await currentSessionId(tabB)).toBe(session);
  // The disk is full for the whole browser: both tabs' writes are refused from now on.
  for (const tab of [tabA, tabB]) await (await walletScope(tab)).evaluate(storageFull);
  await tabA.click('logout');
  await visible(tabA, 'screen-login');
  // Ended on the service although nothing could be written; B is told by message and stops signing.
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await visible(tabB, 'screen-login');
});
