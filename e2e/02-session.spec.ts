/**
 * Journeys 8 and 9: the session's life — refresh (by hand and on its own) and expiry. Both move the
 * sandbox's clock (shared by the whole run; the suite runs one test at a time). Journeys 7 (reload),
 * 10 (two tabs) and 11 (logout, other devices) run in every engine: e2e/portable/. Both modes: in
 * frame mode the refreshes are the frame's own (signed without a click, THREAT-MODEL P1).
 */
import type { Page, Request } from '@playwright/test';
import {
  autoApprove,
  byTest,
  currentSessionId,
  expect,
  expectLegs,
  loginWithOtp,
  newLoggedInCustomer,
  signPrivateToggle,
  test,
} from './fixtures.js';

const REFRESH_PATH = /\/api\/auth\/sessions\/[^/]+\/refresh$/;

/** Records the refresh legs a page sends (one refresh = the first call + the signed retry). */
function recordRefreshes(page: Page, into: Request[]): void {
  page.on('request', (r) => {
    if (r.method() === 'POST' && REFRESH_PATH.test(new URL(r.url()).pathname)) into.push(r);
  });
}

/** Moves the sandbox clock with the home screen's tool (its next wallet call carries the new time). */
async function advanceWithClockTool(page: Page, seconds: number): Promise<void> {
  await byTest(page, 'clock-seconds').fill(String(seconds));
  await byTest(page, 'clock-advance').click();
}

test('8 · manual refresh, then auto-refresh after the sandbox clock is advanced', async ({ page, context }) => {
  await autoApprove(context);
  const refreshes: Request[] = [];
  recordRefreshes(page, refreshes);
  await newLoggedInCustomer(page);
  const first = await currentSessionId(page);

  await byTest(page, 'session-refresh').click();
  await expect(byTest(page, 'home-status')).toContainText('New session');
  await expect(byTest(page, 'session-id')).not.toHaveAttribute('title', first);
  const second = await currentSessionId(page);
  const refreshLegs = /\/auth\/sessions\/.+\/refresh$/;
  await expectLegs(page, 'POST', refreshLegs, { leg: 1, status: 202 }, 1);
  await expectLegs(page, 'POST', refreshLegs, { leg: 2, status: 201, signed: true }, 1);

  // 11 minutes on: under a third of the session's 15 minutes is left, so the wallet refreshes it
  // by itself as soon as an answer tells it the service's new time.
  await advanceWithClockTool(page, 11 * 60);
  await expect(byTest(page, 'session-id')).not.toHaveAttribute('title', second, { timeout: 15_000 });
  const third = await currentSessionId(page);
  expect(third).not.toBe(first);
  await expect(byTest(page, 'session-countdown')).toHaveText(/^1[0-5]:\d\d$/);
  await expectLegs(page, 'POST', refreshLegs, { leg: 2, status: 201 }, 2);
  expect(refreshes.map((r) => new URL(r.url()).pathname.split('/')[4])).toEqual([
    encodeURIComponent(first),
    encodeURIComponent(first),
    encodeURIComponent(second),
    encodeURIComponent(second),
  ]);
  await signPrivateToggle(page);
});

test('9 · session expiry (clock past 15 minutes) → the demo asks to log in again', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await advanceWithClockTool(page, 16 * 60);
  await expect(byTest(page, 'screen-login')).toBeVisible();
  await expect(byTest(page, 'login-status')).toContainText(/expired/i);
  await expect(byTest(page, 'login-status')).toContainText('Log in again');
  await expect(byTest(page, 'nav-login')).toBeVisible();

  await loginWithOtp(page, 'email');
  await signPrivateToggle(page);
});
