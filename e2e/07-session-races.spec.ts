/**
 * Journeys 19–21: the session races of issue 13, in real Chromium on the demo. The refresh's signed
 * answer is held back with page.route while the user logs out (in the same tab; in another tab of
 * the same browser): the logout waits for it and the session the refresh made is ended too, so the
 * service lists no session of this browser and a reload stays logged out. Then five tabs reach the
 * refresh point together: exactly one refresh request. What the service lists is read from the
 * sandbox directly (with the platform credentials of the run), never through the page. In frame mode
 * (playwright.modes.config.ts) the same: the refresh is the signer frame's, its locks are the frame's.
 */
import type { Page, Request } from '@playwright/test';
import { REFRESH_PATH, advanceSandboxClock, autoApprove, byTest, currentSessionId, expect, holdRefreshAnswer, newLoggedInCustomer, serviceSessions, test, walletAccountId, walletFrame } from './fixtures.js';
import { countLegs } from './legs.js';
import { locksIdle, requestsInFlight } from './settled.js';

/**
 * The race: a refresh in `refreshIn` whose signed answer is held back, a logout in `logoutIn` (the same
 * tab or another), then the answer let through. Both tabs end on the login screen, also after a
 * reload, and the service lists no session of the account: not the old one, not the refresh's.
 */
async function logoutDuringRefresh(refreshIn: Page, logoutIn: Page, accountId: string): Promise<void> {
  const held = await holdRefreshAnswer(refreshIn);
  await byTest(refreshIn, 'session-refresh').click();
  await held.reached;
  // The service already made the refresh's session; its answer has not come back.
  expect(await serviceSessions(accountId)).toHaveLength(2);
  await byTest(logoutIn, 'logout').click();
  // The logout waits for the refresh on the wire (it takes the account's refresh lock): let the answer through.
  held.release();
  for (const tab of new Set([logoutIn, refreshIn])) await expect(byTest(tab, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  // Before the redesign another tab came back logged in with the refresh's session after a reload.
  for (const tab of new Set([logoutIn, refreshIn])) {
    await tab.reload();
    await expect(byTest(tab, 'screen-login')).toBeVisible();
  }
  expect(await serviceSessions(accountId)).toEqual([]);
}

test('19 · logout while the refresh’s answer is on its way (one tab): the service lists no session', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  expect(await serviceSessions(accountId)).toEqual([await currentSessionId(page)]);
  await logoutDuringRefresh(page, page, accountId);
});

test('20 · refresh in tab A on its way, logout in tab B: both logged out, also after a reload', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const before = await currentSessionId(tabA);
  const tabB = await context.newPage();
  await tabB.goto('/#/home');
  await expect(byTest(tabB, 'screen-home')).toBeVisible();
  expect(await currentSessionId(tabB)).toBe(before);
  await logoutDuringRefresh(tabA, tabB, accountId);
});

test('21 · five tabs near expiry (Chromium, Web Locks): exactly one refresh request, every tab adopts it', async ({ page: first, context }) => {
  // Five pages of the demo on a shared 2-core machine: give it the time of three journeys.
  test.slow();
  await autoApprove(context);
  await newLoggedInCustomer(first);
  const accountId = await walletAccountId(first);
  const before = await currentSessionId(first);
  const tabs = [first];
  for (let i = 1; i < 5; i++) {
    const tab = await context.newPage();
    await tab.goto('/#/home');
    await expect(byTest(tab, 'screen-home')).toBeVisible();
    tabs.push(tab);
  }
  const inFlight = tabs.map(requestsInFlight);
  const refreshes: Request[] = [];
  for (const tab of tabs) {
    tab.on('request', (r) => {
      if (r.method() === 'POST' && REFRESH_PATH.test(new URL(r.url()).pathname)) refreshes.push(r);
    });
  }
  // The session lists each tab's wallet got (the demo's log in-origin, the signer frame's network in frame mode).
  const listed = (tab: Page) => countLegs(tab, 'GET', /\/auth\/sessions(\?|$)/, { status: 200 });
  const listedBefore = await Promise.all(tabs.map(listed));
  // 11 minutes on: every tab learns the new time from its own answer at once and sees the refresh point.
  await advanceSandboxClock(first, 11 * 60);
  // The journey waits for the refresh below, not for Playwright's check for navigations after each
  // click (five tabs, each with its signer frame in frame mode, missed its 15 s once the click was done).
  await Promise.all(tabs.map((tab) => byTest(tab, 'sessions-list').click({ noWaitAfter: true })));
  for (const tab of tabs) await expect(byTest(tab, 'session-id')).not.toHaveAttribute('title', before, { timeout: 15_000 });
  const after = await currentSessionId(first);
  for (const tab of tabs) expect(await currentSessionId(tab)).toBe(after);
  // The window for a second refresh is closed once every tab has read the list that showed it the
  // refresh point (its answer logged), no tab has a request under way (a refresh, the code a refresh
  // loads first) and none holds or waits for the refresh lock (a refresh's request is sent holding it).
  // The locks are the wallet's origin's: the app's in-origin, the signer frame's in frame mode.
  for (const [i, tab] of tabs.entries()) await expect.poll(() => listed(tab)).toBeGreaterThan(listedBefore[i]!);
  const locks = await walletFrame(first);
  await expect.poll(async () => inFlight.every((n) => n() === 0) && (await locks.evaluate(locksIdle, ':refresh:'))).toBe(true);
  expect(refreshes.filter((r) => r.headers()['service-wallet-signature'] !== undefined)).toHaveLength(1);
  expect(refreshes).toHaveLength(2); // the first call and its signed retry
  // The refresh ended the session it replaced: one slot for this browser.
  await expect.poll(() => serviceSessions(accountId)).toEqual([after]);
});
