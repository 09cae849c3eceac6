/**
 * Journey 10, in every engine: two tabs of one browser near expiry refresh exactly once (Web Locks
 * and BroadcastChannel as the engine implements them), both keep signing; logout in one ends both.
 * Moves the sandbox's clock (shared by the whole run: the suite runs one test at a time).
 */
import type { Tab } from '../drivers/driver.js';
import { locksIdle } from '../settled.js';
import {
  advanceSandboxClock,
  attributeOf,
  autoApprove,
  currentSessionId,
  expect,
  loggedLegs,
  type LoggedLeg,
  newLoggedInCustomer,
  signPrivateToggle,
  test,
  textOf,
  visible,
  walletScope,
} from './fixtures.js';

const REFRESH = '/auth/sessions/.+/refresh$';

/** The answered reads of the session list (`GET /auth/sessions?accountId=`) the tab's request log shows. */
async function listed(tab: Tab): Promise<LoggedLeg[]> {
  return (await loggedLegs(tab, 'GET', '/auth/sessions(\\?|$)')).filter((l) => l.status === '200');
}

/** The refresh legs both tabs' request logs show, in one list. */
async function refreshLegs(tabs: Tab[]): Promise<LoggedLeg[]> {
  return (await Promise.all(tabs.map((t) => loggedLegs(t, 'POST', REFRESH)))).flat();
}

test('10 · two tabs near expiry: exactly one refresh, both keep signing; logout in one ends both', async ({ openDevice, mode, engine }) => {
  // Firefox ESR in frame mode, seen 2026-11-29 (on e3e942e too, where this journey took 45 s the day
  // before): reading both tabs' request logs (`listed`, in each tab's signer frame, one of them a
  // background tab's) answers only after ~180 s, puppeteer's protocol timeout, once or twice (3.4 to
  // 6.4 min in all, at load 0 too). Not yet understood (the stop's note); bounded so that the
  // journey's assertions still run.
  if (engine === 'firefox' && mode === 'frame') test.setTimeout(720_000);
  const device = await openDevice();
  const tabA = await device.newTab();
  await newLoggedInCustomer(tabA);
  const before = await currentSessionId(tabA);

  const tabB = await device.newTab();
  await autoApprove(tabB);
  await tabB.goto('/#/home');
  await visible(tabB, 'screen-home');
  expect(await currentSessionId(tabB)).toBe(before);

  // Both tabs hear of the new time at once (each lists the sessions): both see the refresh window.
  // One click after the other (a driver acts on one tab at a time), the second well before the
  // first tab's refresh (two signed legs) is done.
  const listedBefore = await Promise.all([tabA, tabB].map(async (tab) => (await listed(tab)).length));
  await advanceSandboxClock(tabA, 11 * 60);
  await tabA.click('sessions-list');
  await tabB.click('sessions-list');
  await expect.poll(() => attributeOf(tabA, 'session-id', 'title'), { timeout: 15_000 }).not.toBe(before);
  await expect.poll(() => attributeOf(tabB, 'session-id', 'title'), { timeout: 15_000 }).not.toBe(before);
  const after = await currentSessionId(tabA);
  expect(await currentSessionId(tabB)).toBe(after);
  // The window for a second refresh is closed once both tabs have read the list that showed them the
  // refresh point (its answer logged) and neither holds or waits for the refresh lock (a refresh's
  // request is sent holding it). One refresh is its two legs.
  for (const [i, tab] of [tabA, tabB].entries()) await expect.poll(async () => (await listed(tab)).length).toBeGreaterThan(listedBefore[i]!);
  const locks = await walletScope(tabA);
  await expect.poll(() => locks.evaluate(locksIdle, ':refresh:')).toBe(true);
  const oneRefresh = [
    { leg: '1', status: '202', signed: 'false' },
    { leg: '2', status: '201', signed: 'true' },
  ];
  expect(await refreshLegs([tabA, tabB])).toEqual(oneRefresh);

  await signPrivateToggle(tabA);
  await signPrivateToggle(tabB);
  for (const tab of [tabA, tabB]) {
    expect((await loggedLegs(tab, 'PATCH', '/internal-accounts/')).filter((l) => l.leg === '2')).toEqual([{ leg: '2', status: '200', signed: 'true' }]);
  }
  expect(await refreshLegs([tabA, tabB])).toEqual(oneRefresh);

  await tabA.click('nav-home');
  await tabA.click('logout');
  await visible(tabA, 'screen-login');
  await visible(tabB, 'screen-login');
  await expect.poll(() => textOf(tabB, 'login-status')).toContain('You logged out in another tab.');
});
