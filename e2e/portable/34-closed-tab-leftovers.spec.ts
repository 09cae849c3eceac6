/**
 * Journeys 31, 34 and 39 in every engine and both modes: nothing left on the service when a tab
 * closes mid-way (issue 22, points 3 and 7; src/session/INVARIANTS.md I1, I4, I8). 31: a tab closed
 * mid-refresh (the service made the new session and the tab stored its key, the commit not made),
 * then a logout in another tab: the service lists no session of the account, the refresh's
 * included. 34: a logout asked for in a tab that closes before it is done is finished by another
 * tab with its prompts on, without a prompt. 39: as 31, but a new tab loads instead of a logout: the
 * refresh's session is ended, the user stays logged in. The refresh's answer is held on the service
 * (e2e/portable/held-answers.ts); the account's section lock is held in the other tab's wallet (the
 * page in-origin, the signer frame in frame mode). What the service lists is read from the sandbox.
 */
import type { Tab } from '../drivers/driver.js';
import { serviceSessions } from '../fixtures.js';
import { clearFaults, holdRefreshAnswer, holdSection, waitingForSection } from './held-answers.js';
import { currentSessionId, expect, homeTab, twoTabsLoggedIn, promptShows, promptsOn, test, visible } from './fixtures.js';

test.afterEach(clearFaults);

/**
 * Tab A refreshes; the service makes the new session, its answer held. Tab B then holds the
 * account's section: A gets the answer, stores the new key and waits to commit; A closes right
 * there (its key stored, its commit never made), and B lets the section go. Returns the sessions
 * the service listed while the answer was held.
 */
async function closeMidRefresh(tabA: Tab, tabB: Tab, accountId: string): Promise<string[]> {
  const held = await holdRefreshAnswer();
  await tabA.click('session-refresh');
  await held.reached();
  // The service made the refresh's session; its answer has not reached tab A.
  const listed = await serviceSessions(accountId);
  expect(listed).toHaveLength(2);
  const releaseSection = await holdSection(tabB, accountId);
  await held.release();
  await expect.poll(() => waitingForSection(tabB, accountId), { timeout: 30_000 }).toBeGreaterThan(0);
  await tabA.close();
  await releaseSection();
  return listed;
}

test('31 · a tab closed mid-refresh (new session made, its key stored, not committed), then logout in another tab: no session of the account is left on the service', async ({ openDevice }) => {
  test.slow(); // two tabs (or a refresh, a reload and a logout) on a shared 2-core machine: the login alone took 40 s at load 38
  const { tabA, tabB, accountId, session: before } = await twoTabsLoggedIn(openDevice);
  const listed = await closeMidRefresh(tabA, tabB, accountId);
  const made = listed.find((id) => id !== before);
  expect(made).toBeDefined();
  // Nothing committed: B still shows the session of before.
  expect(await currentSessionId(tabB)).toBe(before);
  await tabB.click('logout');
  await visible(tabB, 'screen-login');
  // I1/I8: the logout ends what the state held and the key a closed tab stored for a session it
  // never committed (the service answers here, so nothing stays a pending end).
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await tabB.reload();
  await visible(tabB, 'screen-login');
  expect(await serviceSessions(accountId)).toEqual([]);
});

test('34 · a logout asked for in tab A, which closes before it is done, is finished by tab B without a prompt: nothing left on the service', async ({ openDevice }) => {
  test.slow(); // two tabs (or a refresh, a reload and a logout) on a shared 2-core machine: the login alone took 40 s at load 38
  const { tabA, tabB, accountId } = await twoTabsLoggedIn(openDevice);
  // Tab B asks its user for every signature (frame mode always does): a prompt for the logout's ends would wait here forever.
  await promptsOn(tabB);
  // B holds the account's section: A's logout writes its request (the logout nonce), then waits to end the session.
  const releaseSection = await holdSection(tabB, accountId);
  await tabA.click('logout');
  await expect.poll(() => waitingForSection(tabB, accountId), { timeout: 30_000 }).toBeGreaterThan(0);
  await tabA.close();
  await releaseSection();
  // B finishes the logout A asked for (I1, I4: ends are approved by the logout, no prompt).
  await visible(tabB, 'screen-login');
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  expect(await promptShows(tabB)).toBe(false);
  await tabB.reload();
  await visible(tabB, 'screen-login');
});

test('39 · a tab closed mid-refresh (its key stored, not committed), then a new tab loads: the refresh’s session is ended, the user stays logged in', async ({ openDevice }) => {
  test.slow(); // two tabs (or a refresh, a reload and a logout) on a shared 2-core machine: the login alone took 40 s at load 38
  const { device, tabA, tabB, accountId, session: before } = await twoTabsLoggedIn(openDevice);
  await closeMidRefresh(tabA, tabB, accountId);
  // I8: the next tab of the origin that loads ends the session of the key A stored and never committed.
  const tabC = await homeTab(device);
  await expect.poll(() => serviceSessions(accountId)).toEqual([before]);
  for (const tab of [tabB, tabC]) expect(await currentSessionId(tab)).toBe(before);
});
