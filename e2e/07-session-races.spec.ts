/**
 * Journeys 19–21: the session races of issue 13, in real Chromium on the demo. The refresh's signed
 * answer is held back with page.route while the user logs out (in the same tab; in another tab of
 * the same browser): the logout waits for it and the session the refresh made is ended too, so the
 * service lists no session of this browser and a reload stays logged out. Then five tabs reach the
 * refresh point together: exactly one refresh request. What the service lists is read from the
 * sandbox directly (with the platform credentials of the run), never through the page.
 */
import type { Page, Request, Route } from '@playwright/test';
import { advanceSandboxClock, autoApprove, byTest, currentSessionId, expect, newLoggedInCustomer, test } from './fixtures.js';

const REFRESH_PATH = /\/api\/auth\/sessions\/[^/]+\/refresh$/;

/** The active sessions the service lists for the account (straight from the sandbox). */
async function serviceSessions(accountId: string): Promise<string[]> {
  const base = process.env.E2E_SANDBOX_URL;
  if (!base) throw new Error('E2E_SANDBOX_URL is not set (e2e/global-setup.ts)');
  const auth = Buffer.from(`${process.env.E2E_CLIENT_ID}:${process.env.E2E_CLIENT_SECRET}`).toString('base64');
  const res = await fetch(`${base}/auth/sessions?accountId=${encodeURIComponent(accountId)}`, { headers: { Authorization: `Basic ${auth}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id);
}

/** The wallet account of the logged-in demo customer (the home screen names it). */
async function walletAccountId(page: Page): Promise<string> {
  const id = await page.locator('[title^="InternalAccount:"]').first().getAttribute('title');
  expect(id).toMatch(/^InternalAccount:/);
  return id!;
}

/**
 * Holds back the answer to the refresh's signed leg: the request reaches the service (which makes
 * the new session), the answer waits until `release()`. `reached` resolves once it is held.
 */
async function holdRefreshAnswer(page: Page): Promise<{ reached: Promise<void>; release: () => void }> {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const released = new Promise<void>((r) => (release = r));
  await page.route(REFRESH_PATH, async (route: Route) => {
    if (route.request().headers()['service-wallet-signature'] === undefined) return route.continue();
    const response = await route.fetch();
    reach();
    await released;
    await route.fulfill({ response });
  });
  return { reached, release };
}

test('19 · logout while the refresh’s answer is on its way (one tab): the service lists no session', async ({ page, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  const accountId = await walletAccountId(page);
  const before = await currentSessionId(page);
  expect(await serviceSessions(accountId)).toEqual([before]);

  const held = await holdRefreshAnswer(page);
  await byTest(page, 'session-refresh').click();
  await held.reached;
  // The service already made the refresh's session; its answer has not come back.
  expect(await serviceSessions(accountId)).toHaveLength(2);
  await byTest(page, 'logout').click();
  // The logout waits for the refresh (it holds the account's section): let the answer through.
  held.release();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await page.reload();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([]);
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

  const held = await holdRefreshAnswer(tabA);
  await byTest(tabA, 'session-refresh').click();
  await held.reached;
  expect(await serviceSessions(accountId)).toHaveLength(2);
  await byTest(tabB, 'logout').click();
  held.release();
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  await expect(byTest(tabA, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  // Before the redesign tab B came back logged in with the refresh's session after a reload.
  await tabB.reload();
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  await tabA.reload();
  await expect(byTest(tabA, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([]);
});

test('21 · five tabs near expiry (Chromium, Web Locks): exactly one refresh request, every tab adopts it', async ({ page: first, context }) => {
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
  const refreshes: Request[] = [];
  for (const tab of tabs) {
    tab.on('request', (r) => {
      if (r.method() === 'POST' && REFRESH_PATH.test(new URL(r.url()).pathname)) refreshes.push(r);
    });
  }
  // 11 minutes on: every tab learns the new time from its own answer at once and sees the refresh point.
  await advanceSandboxClock(first, 11 * 60);
  await Promise.all(tabs.map((tab) => byTest(tab, 'sessions-list').click()));
  for (const tab of tabs) await expect(byTest(tab, 'session-id')).not.toHaveAttribute('title', before, { timeout: 15_000 });
  const after = await currentSessionId(first);
  for (const tab of tabs) expect(await currentSessionId(tab)).toBe(after);
  // Give a second refresh every chance to show up before counting.
  await first.waitForTimeout(1500);
  expect(refreshes.filter((r) => r.headers()['service-wallet-signature'] !== undefined)).toHaveLength(1);
  expect(refreshes).toHaveLength(2); // the first call and its signed retry
  // The refresh ended the session it replaced: one slot for this browser.
  await expect.poll(() => serviceSessions(accountId)).toEqual([after]);
});
