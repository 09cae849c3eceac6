/**
 * Journey 37 in real Chromium on the demo, both modes (playwright.config.ts, playwright.modes.config.ts):
 * a logout made offline is finished when the browser is back online, without a reload (issue 22,
 * point 7; src/session/INVARIANTS.md I8). Its portable version, and the other journeys of this
 * family (31, 33, 34, 38, 39), run in every engine and both modes from e2e/portable/
 * (33-session-leftovers.spec.ts, 34-closed-tab-leftovers.spec.ts). What the service lists is read
 * from the sandbox directly.
 */
import { autoApprove, byTest, currentSessionId, expect, newLoggedInCustomer, serviceSessions, test, walletAccountId } from './fixtures.js';

// Kept beside the portable 37 (e2e/portable/33-session-leftovers.spec.ts, every engine and both
// modes, where the page's fetch is cut off and `online` dispatched in the wallet's document): here
// Chromium's real offline emulation makes the browser fail the requests and fire `offline`/`online`
// itself, into the signer frame too in frame mode, which no portable driver can (WebKitWebDriver has
// no network emulation).
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
