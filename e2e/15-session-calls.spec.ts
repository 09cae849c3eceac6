/**
 * Journeys 43–45 (issue 31; src/session/INVARIANTS.md I1, I3), in real Chromium on the demo. 43: a
 * tab whose IndexedDB cannot be opened (its keys in memory, a wallet of its own) logs in beside a tab
 * on IndexedDB; a logout in the IndexedDB tab logs the memory tab out too, and the service lists no
 * session of the account. 44: another tab refreshes while tab A's signed leg is on a slow network,
 * and again while its retry is: the call starts over each time and succeeds with the newest session
 * (before: WALLET_SIGNATURE_INVALID at the second refusal). 45: a login whose verify was clicked
 * loses against a logout in another tab made while the login was still making its key: no verify is
 * sent, nothing is made on the service. Requests are held with page.route until the event the
 * journey needs happened (never a fixed sleep).
 */
import type { Page, Route } from '@playwright/test';
import { autoApprove, byTest, currentSessionId, expect, loginWithOtp, newLoggedInCustomer, serviceSessions, submitOtp, test, walletAccountId, walletFrame } from './fixtures.js';
import { gateKeyGeneration, indexedDbUnavailable } from './portable/page-faults.js';
import { approveUntil } from './prompts.js';

// Two or three tabs each, on a machine shared by several runs: three times the default timeout.
test.slow();

/** A second tab of the same browser on the home screen. */
async function secondTab(page: Page): Promise<Page> {
  const tab = await page.context().newPage();
  await tab.goto('/#/home');
  await expect(byTest(tab, 'screen-home')).toBeVisible();
  return tab;
}

test('43 · a tab whose IndexedDB cannot be opened (keys in memory) is logged out by a logout in another tab: nothing left on the service', async ({ page: tabA, context, mode }) => {
  test.skip(mode === 'frame', 'src/signer/THREAT-MODEL.md P3: a signer frame that cannot open IndexedDB refuses to serve (SIGNER_STORAGE_UNAVAILABLE) instead of keeping keys in memory, so no tab of frame mode holds its keys in memory');
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await context.newPage();
  // This tab alone cannot open IndexedDB (a blocked or corrupt database): its key store falls back to memory.
  await tabB.addInitScript(indexedDbUnavailable);
  await tabB.goto('/#/login');
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  await expect(byTest(tabB, 'banner-storage-fallback')).toBeVisible();
  await loginWithOtp(tabB, 'email');
  const inMemory = await currentSessionId(tabB);
  const stored = await currentSessionId(tabA);
  expect(inMemory).not.toBe(stored);
  await expect.poll(() => serviceSessions(accountId).then((s) => s.sort())).toEqual([inMemory, stored].sort());
  await byTest(tabA, 'logout').click();
  await expect(byTest(tabA, 'screen-login')).toBeVisible();
  // The memory tab heard the logout (BroadcastChannel) and ended its own session, here and on the service.
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('44 · another tab refreshes while tab A’s signed leg is on a slow network, then again during the retry: the call starts over each time and succeeds', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await secondTab(tabA);
  const statuses: number[] = [];
  tabA.on('response', (r) => {
    if (r.request().method() === 'PATCH' && r.request().headers()['service-wallet-signature'] !== undefined) statuses.push(r.status());
  });
  // Tab A's first two signed PATCH legs wait until tab B refreshed (and the session that signed them ended).
  let held = 0;
  await tabA.route(/\/api\/internal-accounts\//, async (route: Route) => {
    if (route.request().method() !== 'PATCH' || route.request().headers()['service-wallet-signature'] === undefined || held >= 2) return route.continue();
    held++;
    const before = await currentSessionId(tabB);
    await byTest(tabB, 'session-refresh').click();
    await expect(byTest(tabB, 'session-id')).not.toHaveAttribute('title', before);
    await expect.poll(() => serviceSessions(accountId)).not.toContain(before);
    await route.continue();
  });
  await byTest(tabA, 'nav-actions').click();
  const state = byTest(tabA, 'private-state');
  const was = (await state.textContent()) ?? '';
  await byTest(tabA, 'private-toggle').click();
  // In frame mode each start over is a new payload: approved in the frame each time it asks.
  await approveUntil(tabA, state, was);
  expect(statuses).toEqual([401, 401, 200]);
  expect(held).toBe(2);
  await byTest(tabA, 'nav-home').click();
  const newest = await currentSessionId(tabB);
  await expect(byTest(tabA, 'session-id')).toHaveAttribute('title', newest);
  expect(await serviceSessions(accountId)).toEqual([newest]);
});

test('45 · a login whose verify was clicked loses against a logout made in another tab while it still makes its key: no verify sent, nothing on the service', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await context.newPage();
  await tabB.goto('/#/login');
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  // Tab B's next key generation (the login's session key) waits until the test lets it go: a slow
  // machine. The key is made where the wallet is: the page in-origin, its signer frame in frame mode.
  const wallet = await walletFrame(tabB);
  await wallet.evaluate(gateKeyGeneration);
  const verifies: string[] = [];
  tabB.on('request', (r) => {
    if (r.method() === 'POST' && /\/verify$/.test(new URL(r.url()).pathname)) verifies.push(r.url());
  });
  await submitOtp(tabB, 'email', '000000');
  await expect.poll(() => wallet.evaluate(() => (globalThis as { e2eKeyAsked?: boolean }).e2eKeyAsked === true)).toBe(true);
  await byTest(tabA, 'logout').click();
  await expect(byTest(tabA, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await wallet.evaluate(() => (globalThis as { e2eKeyGate?: () => void }).e2eKeyGate?.());
  await expect(byTest(tabB, 'login-status')).toContainText('NOT_LOGGED_IN');
  expect(verifies).toEqual([]);
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([]);
});
