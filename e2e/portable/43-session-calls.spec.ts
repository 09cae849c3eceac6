/**
 * Journeys 43–45 of e2e/15-session-calls.spec.ts (issue 31; src/session/INVARIANTS.md I1, I3) in
 * every engine, with no request interception: the faults are given in the page (page-faults.ts),
 * and what a journey waits for is a state it reads there, never a pause. What the service lists is
 * read from the sandbox directly; requests are read from the demo's log.
 *
 * 43: a tab whose IndexedDB cannot be opened (its keys in memory, a wallet of its own) logs in beside
 * a tab on IndexedDB; a logout in the IndexedDB tab logs the memory tab out too, and the service
 * lists no session of the account. IndexedDB must fail from the tab's first script, which needs an
 * init script (WebKitGTK's WebKitWebDriver has none: the demo stack's test switch adds it to tab B's
 * documents, and to the device's, demo/server/init-scripts.ts: tab A loads nothing after it).
 * 44: tab A's signed leg is held (a slow network) while another tab refreshes, and again during the
 * retry: the call starts over each time and succeeds with the newest session.
 * In frame mode the faults are given in the signer frame (its network, its key generation), and
 * each start over of 44's call is approved there.
 * 45: a login whose verify was clicked, still making its key, loses against a logout made in another
 * tab: no verify is sent, nothing is made on the service.
 */
import { serviceSessions } from '../fixtures.js';
import { approveUntil, attributeOf, autoApprove, currentSessionId, expect, homeTab, isVisible, loggedLegs, loginWithEmailCode, newLoggedInCustomer, submitEmailCode, test, textOf, visible, walletAccountId, walletScope } from './fixtures.js';
import { gateKeyGeneration, heldLegs, holdSignedLegs, indexedDbUnavailable, releaseHeldLeg } from './page-faults.js';

// Two tabs each, on a machine shared by several runs: three times the default timeout.
test.slow();

test('43 · a tab whose IndexedDB cannot be opened (keys in memory) is logged out by a logout in another tab: nothing left on the service', async ({ openDevice, mode }) => {
  test.skip(mode === 'frame', 'src/signer/THREAT-MODEL.md P3: a signer frame that cannot open IndexedDB refuses to serve (SIGNER_STORAGE_UNAVAILABLE) instead of keeping keys in memory, so no tab of frame mode holds its keys in memory');
  const device = await openDevice();
  const tabA = await device.newTab();
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await device.newTab();
  // This tab alone cannot open IndexedDB (a blocked or corrupt database): its key store falls back to memory.
  await tabB.addInitScript(indexedDbUnavailable, undefined);
  await tabB.goto('/#/login');
  await visible(tabB, 'screen-login');
  await visible(tabB, 'banner-storage-fallback');
  await loginWithEmailCode(tabB);
  const inMemory = await currentSessionId(tabB);
  const stored = await currentSessionId(tabA);
  expect(inMemory).not.toBe(stored);
  await expect.poll(async () => (await serviceSessions(accountId)).sort()).toEqual([inMemory, stored].sort());
  await tabA.click('logout');
  await visible(tabA, 'screen-login');
  // The memory tab heard the logout (BroadcastChannel) and ended its own session, here and on the service.
  await visible(tabB, 'screen-login');
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});

test('44 · another tab refreshes while tab A’s signed leg is on a slow network, then again during the retry: the call starts over each time and succeeds', async ({ openDevice }) => {
  const device = await openDevice();
  const tabA = await device.newTab();
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await homeTab(device);
  await tabA.click('nav-actions');
  await visible(tabA, 'private-state');
  const was = await textOf(tabA, 'private-state');
  // Tab A's next two signed PATCH legs wait, each until tab B refreshed and the session that signed it ended.
  const network = await walletScope(tabA);
  await network.evaluate(holdSignedLegs, { method: 'PATCH', part: '/api/internal-accounts/', times: 2 });
  await tabA.click('private-toggle');
  for (let held = 1; held <= 2; held++) {
    // In frame mode each start over is a new payload, approved in the frame before its leg is held.
    await approveUntil(tabA, async () => (await network.evaluate(heldLegs)) === held);
    const before = await currentSessionId(tabB);
    await tabB.click('session-refresh');
    await expect.poll(() => attributeOf(tabB, 'session-id', 'title')).not.toBe(before);
    await expect.poll(() => serviceSessions(accountId)).not.toContain(before);
    await network.evaluate(releaseHeldLeg);
  }
  await approveUntil(tabA, async () => (await textOf(tabA, 'private-state')) !== was);
  // Two refusals explained by this browser's refreshes, then the call signed by the newest session.
  const signed = (await loggedLegs(tabA, 'PATCH', '/internal-accounts/')).filter((l) => l.signed === 'true');
  expect(signed.map((l) => l.status)).toEqual(['401', '401', '200']);
  await tabA.click('nav-home');
  const newest = await currentSessionId(tabB);
  await expect.poll(() => attributeOf(tabA, 'session-id', 'title')).toBe(newest);
  expect(await serviceSessions(accountId)).toEqual([newest]);
});

test('45 · a login whose verify was clicked loses against a logout made in another tab while it still makes its key: no verify sent, nothing on the service', async ({ openDevice }) => {
  const device = await openDevice();
  const tabA = await device.newTab();
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const tabB = await device.newTab();
  await autoApprove(tabB);
  await tabB.goto('/#/login');
  await visible(tabB, 'screen-login');
  // Tab B's next key generation (the login's session key) waits until the test lets it go: a slow machine.
  const keys = await walletScope(tabB);
  await keys.evaluate(gateKeyGeneration);
  await submitEmailCode(tabB, '000000');
  await expect.poll(() => keys.evaluate(() => (globalThis as { e2eKeyAsked?: boolean }).e2eKeyAsked === true)).toBe(true);
  await tabA.click('logout');
  await visible(tabA, 'screen-login');
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
  await keys.evaluate(() => (globalThis as { e2eKeyGate?: () => void }).e2eKeyGate?.());
  await expect.poll(() => textOf(tabB, 'login-status')).toContain('NOT_LOGGED_IN');
  expect(await loggedLegs(tabB, 'POST', '/verify$')).toEqual([]);
  expect(await isVisible(tabB, 'screen-login')).toBe(true);
  expect(await serviceSessions(accountId)).toEqual([]);
});
