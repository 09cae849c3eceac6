/**
 * Journeys 31, 33, 34 and 37–39: nothing left on the service (issue 22, points 3 and 7;
 * src/session/INVARIANTS.md I1, I4, I8), in real Chromium on the demo (they close tabs and intercept
 * requests). 31: a tab closed mid-refresh (the service made the new session and the tab stored its
 * key, the commit not made), then a logout in another tab: the service lists no session of the
 * account, the refresh's included. 33: a logout made with the proxy unreachable, then a login again
 * with the same credential once it is back: the first session is ended, only the new one is listed.
 * 34: a logout asked for in a tab that closes before it is done is finished by another tab with its
 * prompts on, without a prompt. 37: a logout made offline is finished when the browser is back
 * online, without a reload. 38: an offline logout's pending end is finished by a reload three
 * minutes after the login (its key older than the two minutes after which load.ts looks at keys no
 * state names). 39: as 31, but a new tab loads instead of a logout: the refresh's session is ended,
 * the user stays logged in. (32, a second login with the same credential replacing the first
 * session, runs in every engine: e2e/portable/31-session-promises.spec.ts.) What the service lists
 * is read from the sandbox directly.
 */
import { autoApprove, byTest, currentSessionId, expect, loginWithOtp, modeOf, newLoggedInCustomer, serviceSessions, setLocalClockOffset, shiftableLocalClock, test, walletAccountId } from './fixtures.js';

test('33 · logout with the proxy unreachable, then a login again with the same credential: only the new session is left', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const first = await currentSessionId(page);
  await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  // The browser is cleared; the service could not be told: a pending end (I8).
  expect(await serviceSessions(accountId)).toEqual([first]);
  await page.unroute('**/api/**');
  // The same credential again, without a reload (no page load, no "online" event).
  await loginWithOtp(page, 'email');
  const second = await currentSessionId(page);
  expect(second).not.toBe(first);
  await expect.poll(() => serviceSessions(accountId)).toEqual([second]);
});

test('37 · logout while the browser is offline: the pending end is finished when it is back online, without a reload', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const session = await currentSessionId(page);
  await context.setOffline(true);
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  // I8: the browser is cleared, the service could not be told: a pending end, its key kept.
  expect(await serviceSessions(accountId)).toEqual([session]);
  // Back online (the page's "online" event): the end is tried again at once.
  await context.setOffline(false);
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('38 · logout with the proxy unreachable three minutes after login, then a reload: the pending end is finished (its key was not dropped as an orphan)', async ({ page, context }) => {
  await autoApprove(context);
  await shiftableLocalClock(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const session = await currentSessionId(page);
  await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([session]);
  await page.unroute('**/api/**');
  // Three minutes after the login (its key's age, on the page's wall clock), the page loads again.
  await setLocalClockOffset(page, 3 * 60 * 1000);
  await page.reload();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  // Before the fix the load deleted the pending end's key (older than two minutes, named by no
  // state), and the end was dropped unfinished: the session stayed listed.
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});
