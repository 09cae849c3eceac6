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
import type { Page } from '@playwright/test';
import { autoApprove, byTest, currentSessionId, expect, holdRefreshAnswer, modeOf, newLoggedInCustomer, serviceSessions, test, walletAccountId, walletFrame } from './fixtures.js';

/** A second tab of the same browser on the home screen. */
async function secondTab(page: Page): Promise<Page> {
  const tab = await page.context().newPage();
  await tab.goto('/#/home');
  await expect(byTest(tab, 'screen-home')).toBeVisible();
  return tab;
}

/** The account's critical section (src/session/critical-section.ts, the wallet's default namespace). */
const sectionName = (accountId: string): string => `embedded-wallet-signer:account:${accountId}`;

/**
 * Takes the account's section lock in `tab` (the Web Lock the tabs share) and keeps it until
 * released. The lock is the wallet's origin's: taken in the page in-origin, in its signer frame in
 * frame mode (every tab's frame shares the frame's origin and partition).
 */
async function holdSection(tab: Page, accountId: string): Promise<() => Promise<void>> {
  const wallet = await walletFrame(tab);
  await wallet.evaluate(
    (name) =>
      new Promise<void>((taken) => {
        void navigator.locks.request(name, { mode: 'exclusive' }, () => {
          taken();
          return new Promise<void>((r) => ((globalThis as { e2eReleaseSection?: () => void }).e2eReleaseSection = r));
        });
      }),
    sectionName(accountId),
  );
  return () => wallet.evaluate(() => (globalThis as { e2eReleaseSection?: () => void }).e2eReleaseSection?.());
}

/** Requests for the account's section lock waiting behind the one held (seen from `tab`'s wallet origin: locks are per origin). */
async function waitingForSection(tab: Page, accountId: string): Promise<number> {
  return (await walletFrame(tab)).evaluate(async (name) => ((await navigator.locks.query()).pending ?? []).filter((l) => l.name === name).length, sectionName(accountId));
}

test('31 · a tab closed mid-refresh (new session made, its key stored, not committed), then logout in another tab: no session of the account is left on the service', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const before = await currentSessionId(tabA);
  const tabB = await secondTab(tabA);

  const held = await holdRefreshAnswer(tabA);
  await byTest(tabA, 'session-refresh').click();
  await held.reached;
  // The service made the refresh's session; its answer has not reached tab A.
  const listed = await serviceSessions(accountId);
  expect(listed).toHaveLength(2);
  const made = listed.find((id) => id !== before)!;
  // Tab B holds the account's section: A gets the answer, stores the new key, then waits to commit.
  const releaseSection = await holdSection(tabB, accountId);
  held.release();
  await expect.poll(() => waitingForSection(tabB, accountId)).toBeGreaterThan(0);
  // A closes right there: its key is stored, its commit never made.
  await tabA.close();
  await releaseSection();
  // Nothing committed: B still shows the session of before.
  expect(await currentSessionId(tabB)).toBe(before);
  await byTest(tabB, 'logout').click();
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  // I1/I8: the logout ends what the state held and the key a closed tab stored for a session it
  // never committed (the service answers here, so nothing stays a pending end).
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  expect(listed).toContain(made);
  await tabB.reload();
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  expect(await serviceSessions(accountId)).toEqual([]);
});

test('34 · a logout asked for in tab A, which closes before it is done, is finished by tab B without a prompt: nothing left on the service', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await secondTab(tabA);
  // Tab B asks its user for every signature: a prompt for the logout's ends would wait here forever.
  await byTest(tabB, 'auto-approve').uncheck();
  // B holds the account's section: A's logout writes its request (the logout nonce), then waits to end the session.
  const releaseSection = await holdSection(tabB, accountId);
  await byTest(tabA, 'logout').click();
  await expect.poll(() => waitingForSection(tabB, accountId)).toBeGreaterThan(0);
  await tabA.close();
  await releaseSection();
  // B finishes the logout A asked for (I1, I4: ends are approved by the logout, no prompt).
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await expect(byTest(tabB, 'sign-approve')).not.toBeVisible();
  await tabB.reload();
  await expect(byTest(tabB, 'screen-login')).toBeVisible();
});

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

test('39 · a tab closed mid-refresh (its key stored, not committed), then a new tab loads: the refresh’s session is ended, the user stays logged in', async ({ page: tabA, context }) => {
  await autoApprove(context);
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const before = await currentSessionId(tabA);
  const tabB = await secondTab(tabA);
  const held = await holdRefreshAnswer(tabA);
  await byTest(tabA, 'session-refresh').click();
  await held.reached;
  expect(await serviceSessions(accountId)).toHaveLength(2);
  const releaseSection = await holdSection(tabB, accountId);
  held.release();
  await expect.poll(() => waitingForSection(tabB, accountId)).toBeGreaterThan(0);
  await tabA.close();
  await releaseSection();
  // I8: the next tab of the origin that loads ends the session of the key A stored and never committed.
  const tabC = await secondTab(tabB);
  await expect.poll(() => serviceSessions(accountId)).toEqual([before]);
  for (const tab of [tabB, tabC]) expect(await currentSessionId(tab)).toBe(before);
});
