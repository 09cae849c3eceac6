/**
 * Journeys 8 and 9, in every engine and both modes: the session's life — refresh (by hand and on its
 * own) and expiry. Both move the sandbox's clock with the home screen's tool (the demo backend's
 * route; shared by the whole run, the suite runs one test at a time). In frame mode the refreshes are
 * the frame's own (signed without a click, THREAT-MODEL P1) and their legs are read in the frame.
 */
import type { Tab } from '../drivers/driver.js';
import { inFrameMode, frameLegs } from './modes.js';
import { attributeOf, currentSessionId, expect, loggedLegs, loginWithEmailCode, newLoggedInCustomer, signPrivateToggle, test, textOf, visible } from './fixtures.js';

const REFRESH = '/auth/sessions/.+/refresh$';

// A login and more on a machine shared by several runs: three times the default timeout (WebKit's
// journey 8 ran out of 45 s at load 20; Firefox's 30 took 43 s).
test.slow();

/** Moves the sandbox clock with the home screen's tool (its next wallet call carries the new time). */
async function advanceWithClockTool(tab: Tab, seconds: number): Promise<void> {
  await tab.fill('clock-seconds', String(seconds));
  await tab.click('clock-advance');
}

/** The sessions the wallet's refresh legs named (the path's session segment, decoded), oldest first. */
async function refreshedSessions(tab: Tab): Promise<string[]> {
  const paths = inFrameMode(tab)
    ? (await frameLegs(tab, 'POST', REFRESH)).map((l) => l.path)
    : await tab.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('[data-testid="log-row"][data-kind="leg"][data-method="POST"]')]
          .map((row) => row.querySelector('.log-req')?.textContent?.replace(/^POST /, '') ?? '')
          .filter((p) => /\/auth\/sessions\/.+\/refresh$/.test(p))
          .reverse(),
      );
  return paths.map((p) => decodeURIComponent(/\/sessions\/([^/]+)\/refresh$/.exec(p)![1]!));
}

/** How many of the refresh legs match `want` (leg, status, signed as the log writes them). */
async function refreshLegs(tab: Tab, want: { leg: string; status: string; signed?: string }): Promise<number> {
  return (await loggedLegs(tab, 'POST', REFRESH)).filter((l) => l.leg === want.leg && l.status === want.status && (want.signed === undefined || l.signed === want.signed)).length;
}

test('8 · manual refresh, then auto-refresh after the sandbox clock is advanced', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  const first = await currentSessionId(tab);

  await tab.click('session-refresh');
  await expect.poll(() => textOf(tab, 'home-status')).toContain('New session');
  await expect.poll(() => attributeOf(tab, 'session-id', 'title')).not.toBe(first);
  const second = await currentSessionId(tab);
  await expect.poll(() => refreshLegs(tab, { leg: '1', status: '202' })).toBe(1);
  await expect.poll(() => refreshLegs(tab, { leg: '2', status: '201', signed: 'true' })).toBe(1);

  // 11 minutes on: under a third of the session's 15 minutes is left, so the wallet refreshes it
  // by itself as soon as an answer tells it the service's new time.
  await advanceWithClockTool(tab, 11 * 60);
  await expect.poll(() => attributeOf(tab, 'session-id', 'title'), { timeout: 30_000 }).not.toBe(second);
  const third = await currentSessionId(tab);
  expect(third).not.toBe(first);
  await expect.poll(() => textOf(tab, 'session-countdown')).toMatch(/^1[0-5]:\d\d$/);
  await expect.poll(() => refreshLegs(tab, { leg: '2', status: '201' })).toBe(2);
  // Two refreshes, each of its first call and its signed retry: of the first session, then the second.
  expect(await refreshedSessions(tab)).toEqual([first, first, second, second]);
  await signPrivateToggle(tab);
});

test('9 · session expiry (clock past 15 minutes) → the demo asks to log in again', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  await advanceWithClockTool(tab, 16 * 60);
  await visible(tab, 'screen-login');
  await expect.poll(() => textOf(tab, 'login-status')).toMatch(/expired/i);
  expect(await textOf(tab, 'login-status')).toContain('Log in again');
  await visible(tab, 'nav-login');

  await loginWithEmailCode(tab);
  await signPrivateToggle(tab);
});
