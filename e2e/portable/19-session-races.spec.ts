/**
 * Journeys 19–21 in every engine and both modes: the session races of issue 13. The refresh's
 * signed answer is held back on the service (e2e/portable/held-answers.ts) while the user logs out
 * (in the same tab; in another tab of the same browser): the logout waits for it and the session the
 * refresh made is ended too, so the service lists no session of this browser and a reload stays
 * logged out. Then five tabs reach the refresh point together (Web Locks, in each engine): exactly
 * one refresh request reaches the service. What the service lists and receives is read from the
 * sandbox directly. In frame mode the refresh is the signer frame's, its locks are the frame's.
 */
import type { Tab } from '../drivers/driver.js';
import { serviceSessions } from '../fixtures.js';
import { locksIdle } from '../settled.js';
import { clearFaults, countRefreshes, holdRefreshAnswer } from './held-answers.js';
import { advanceSandboxClock, attributeOf, currentSessionId, expect, homeTab, twoTabsLoggedIn, newLoggedInCustomer, test, textOf, visible, walletAccountId, walletScope } from './fixtures.js';

test.afterEach(clearFaults);

/**
 * The race: a refresh in `refreshIn` whose signed answer is held back, a logout in `logoutIn` (the same
 * tab or another), then the answer let through. Both tabs end on the login screen, also after a
 * reload, and the service lists no session of the account: not the old one, not the refresh's.
 */
async function logoutDuringRefresh(refreshIn: Tab, logoutIn: Tab, accountId: string): Promise<void> {
  const held = await holdRefreshAnswer();
  await refreshIn.click('session-refresh');
  await held.reached();
  // The service already made the refresh's session; its answer has not come back.
  expect(await serviceSessions(accountId)).toHaveLength(2);
  await logoutIn.click('logout');
  // The logout waits for the refresh on the wire (it takes the account's refresh lock): let the answer through.
  await held.release();
  for (const tab of new Set([logoutIn, refreshIn])) await visible(tab, 'screen-login');
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  // Before the redesign another tab came back logged in with the refresh's session after a reload.
  for (const tab of new Set([logoutIn, refreshIn])) {
    await tab.reload();
    await visible(tab, 'screen-login');
  }
  expect(await serviceSessions(accountId)).toEqual([]);
}

test('19 · logout while the refresh’s answer is on its way (one tab): the service lists no session', async ({ openDevice }) => {
  test.slow(); // two tabs (or a refresh, a reload and a logout) on a shared 2-core machine: the login alone took 40 s at load 38
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  expect(await serviceSessions(accountId)).toEqual([await currentSessionId(tab)]);
  await logoutDuringRefresh(tab, tab, accountId);
});

test('20 · refresh in tab A on its way, logout in tab B: both logged out, also after a reload', async ({ openDevice }) => {
  test.slow(); // two tabs (or a refresh, a reload and a logout) on a shared 2-core machine: the login alone took 40 s at load 38
  const { tabA, tabB, accountId, session: before } = await twoTabsLoggedIn(openDevice);
  expect(await currentSessionId(tabB)).toBe(before);
  await logoutDuringRefresh(tabA, tabB, accountId);
});

test('21 · five tabs near expiry (Web Locks): exactly one refresh request, every tab adopts it', async ({ openDevice }) => {
  // Five pages of the demo on a shared 2-core machine (in WebKit, five windows of one MiniBrowser):
  // the time of five journeys (Chromium's five tabs in-origin missed three journeys' 135 s at load 37, still logging in).
  test.setTimeout(5 * test.info().timeout);
  const device = await openDevice();
  const first = await device.newTab();
  await newLoggedInCustomer(first);
  const accountId = await walletAccountId(first);
  const before = await currentSessionId(first);
  const tabs = [first];
  for (let i = 1; i < 5; i++) tabs.push(await homeTab(device));
  for (const tab of tabs) expect(await textOf(tab, 'sessions-count')).toBe('');
  const refreshes = await countRefreshes();
  // 11 minutes on: every tab learns the new time from its own answer at once and sees the refresh point.
  await advanceSandboxClock(first, 11 * 60);
  // The five clicks at once, each in its page (the button's click(), as the demo's handler gets a
  // user's): a driver's click waits for the page to settle after it, one tab after another (and
  // Playwright's missed its 10 s with five busy tabs), which would spread the race out.
  await Promise.all(tabs.map((tab) => tab.evaluate(() => (document.querySelector('[data-testid="sessions-list"]') as HTMLElement).click())));
  for (const tab of tabs) await expect.poll(() => attributeOf(tab, 'session-id', 'title'), { timeout: 30_000 }).not.toBe(before);
  const after = await currentSessionId(first);
  for (const tab of tabs) expect(await currentSessionId(tab)).toBe(after);
  // The window for a second refresh is closed once every tab has shown the list whose answer told
  // it the time (the refresh point seen) and none holds or waits for the refresh lock (a refresh's
  // requests are sent holding it). The locks are the wallet origin's: one tab's query sees them all.
  for (const tab of tabs) await expect.poll(() => textOf(tab, 'sessions-count')).toMatch(/active session/);
  const locks = await walletScope(first);
  await expect.poll(() => locks.evaluate(locksIdle, ':refresh:')).toBe(true);
  // What the service received: the first call and its signed retry, once.
  expect(await refreshes()).toEqual({ unsigned: 1, signed: 1 });
  // The refresh ended the session it replaced: one slot for this browser.
  await expect.poll(() => serviceSessions(accountId)).toEqual([after]);
});
