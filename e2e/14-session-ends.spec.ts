/**
 * Journeys 40–42: the ends of a logout (issue 31; src/session/INVARIANTS.md I1, I8), in real
 * Chromium on the demo. 40: the demo's sign-in cookie is gone, so its proxy answers the logout's
 * DELETE with `401 LOGIN_REQUIRED`: the browser is logged out, the session stays a pending end, the
 * app says to sign in again; once the user signs in to the demo again the session is ended. 41: a
 * logout made with the service unreachable, then the page loads with its local clock 2 h fast, the
 * service still unreachable (no answer has told the page the server's time): the pending end is
 * kept, and finished when the browser is back online. 42: a logout while IndexedDB refuses writes
 * (its put and add refuse, as on a full disk) in one of two tabs: the session is ended on the service
 * and both tabs leave the wallet. What the service lists is read from the sandbox directly.
 */
import type { Page } from '@playwright/test';
import { autoApprove, byTest, currentSessionId, expect, newLoggedInCustomer, serviceSessions, setLocalClockOffset, shiftableLocalClock, test, walletAccountId, walletFrame } from './fixtures.js';

const HOUR = 60 * 60 * 1000;

/** A second tab of the same browser on the home screen. */
async function secondTab(page: Page): Promise<Page> {
  const tab = await page.context().newPage();
  await tab.goto('/#/home');
  await expect(byTest(tab, 'screen-home')).toBeVisible();
  return tab;
}

test('40 · logout once the app’s sign-in expired (proxy 401 LOGIN_REQUIRED): logged out here, the session kept to end, the app says so; ended after signing in to the app again', async ({ page, context }) => {
  await autoApprove(context);
  const { email } = await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const session = await currentSessionId(page);
  const deletes: number[] = [];
  page.on('response', (r) => {
    if (r.request().method() === 'DELETE' && /\/api\/auth\/sessions\//.test(r.url())) deletes.push(r.status());
  });
  // The demo's own login (its httpOnly cookie) is gone: the proxy finds no signed-in user.
  await context.clearCookies();
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  await expect(byTest(page, 'banner-notice')).toContainText('sign in to the demo again');
  expect(deletes).toContain(401);
  // I1/I8: the refusal is not the service saying the session is gone: it is still listed, kept to end.
  expect(await serviceSessions(accountId)).toEqual([session]);
  // The user signs in to the demo again: the wallet loads, finishes the pending end.
  await page.goto('/');
  await byTest(page, 'signin-email').fill(email);
  await byTest(page, 'signin-submit').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('41 · logout with the service unreachable, then a load with the local clock 2 h fast, still unreachable: the pending end is kept, and finished back online', async ({ page, context }) => {
  await autoApprove(context);
  await shiftableLocalClock(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const session = await currentSessionId(page);
  const tried: string[] = [];
  await page.route('**/api/auth/**', (route) => (tried.push(route.request().method()), route.abort('internetdisconnected')));
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([session]);
  // The page loads again two hours fast (an hour past the session's expiry and its hour of grace,
  // on the local clock), the service still unreachable: no answer has told it the server's time.
  await setLocalClockOffset(page, 2 * HOUR);
  tried.length = 0;
  await page.reload();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  // The load tries to end it (and cannot).
  await expect.poll(() => tried.includes('DELETE')).toBe(true);
  await page.unroute('**/api/auth/**');
  // Back online (the page's "online" event): the end is tried again, after the load's try (same section).
  await context.setOffline(true);
  await context.setOffline(false);
  // Before the fix the load dropped the pending end on the local clock's word: the session stayed listed.
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('42 · logout while IndexedDB refuses writes, two tabs: the session is ended on the service and both tabs leave the wallet', async ({ page: tabA, context }) => {
  test.setTimeout(90_000); // two tabs on a shared, busy machine
  await autoApprove(context);
  // A full disk, as the pages see it: once the flag is set, IndexedDB refuses every write
  // (put and add throw QuotaExceededError), reads and deletes still work. (Chromium's CDP quota
  // override, Storage.overrideQuotaForOrigin, did not make writes fail in headless Chromium here.)
  await context.addInitScript(() => {
    const full = (): boolean => localStorage.getItem('e2e.storageFull') === '1';
    for (const name of ['put', 'add'] as const) {
      const real = IDBObjectStore.prototype[name];
      IDBObjectStore.prototype[name] = function (this: IDBObjectStore, ...args: Parameters<typeof real>) {
        if (full()) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        return real.apply(this, args);
      } as typeof real;
    }
  });
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const session = await currentSessionId(tabA);
  const tabB = await secondTab(tabA);
  expect(await currentSessionId(tabB)).toBe(session);
  // The disk is the wallet's origin's: the flag goes in its localStorage (the signer frame's in frame mode).
  await (await walletFrame(tabA)).evaluate(() => localStorage.setItem('e2e.storageFull', '1'));
  await byTest(tabA, 'logout').click();
  await expect(byTest(tabA, 'screen-login')).toBeVisible();
  // Ended on the service although nothing could be written; B is told by message and stops signing.
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
});
