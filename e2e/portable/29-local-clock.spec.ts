/**
 * Journeys 29 and 29b (issue 22, src/session/INVARIANTS.md I6)
 * in every engine and both modes: the computer's clock is wrong, the session stays live. 29: an hour
 * slow from the first load (login), then corrected; 29b: an hour fast at a reload (storage read with
 * no server sample yet). What the service lists is read from the sandbox directly.
 *
 * The page's wall clock (Date) is page-faults.ts `shiftableClock`, an init script: it must run before
 * the document's own scripts (29: the login's times are taken on the slow clock from the first load;
 * 29b: the reload reads storage on the fast clock before any answer). Init scripts run in every frame
 * of the tab (Playwright's `addInitScript`; WebDriver BiDi's `script.addPreloadScript` for the tab's
 * top-level context covers its descendants), so in frame mode the signer frame's document, where the
 * wallet's session manager reads the clock, is shifted from its first script too, with its own
 * localStorage (partitioned) holding its offset. WebKitGTK's WebKitWebDriver has no init script:
 * there the demo stack's test switch adds it to each document it serves (demo/server/init-scripts.ts).
 */
import type { Scope, Tab } from '../drivers/driver.js';
import { SandboxClient } from '../../src/testing/index.js';
import { e2eSandbox, serviceSessions } from '../fixtures.js';
import { countIdbTransactions, idbTransactions } from '../settled.js';
import { currentSessionId, expect, newLoggedInCustomer, signPrivateToggle, test, textOf, visible, walletAccountId, walletScope } from './fixtures.js';
import { shiftableClock } from './page-faults.js';

const HOUR = 60 * 60 * 1000;

// A login, a reload or a wake, and a signed action, on a machine shared by several runs (29b ran out of 45 s in Chromium at load 11).
test.slow();

/**
 * How far the service's clock (the sandbox's, moved forward by the run's earlier journeys) is ahead of
 * the real one, in ms: "an hour fast" is an hour ahead of the service's time (an offset from the real
 * time alone left the page 6 minutes ahead of a sandbox 54 minutes on: a countdown of 8:47).
 */
async function serviceAhead(): Promise<number> {
  const before = Date.now();
  const now = Date.parse(await new SandboxClient(e2eSandbox()).now());
  return now - Math.round((before + Date.now()) / 2);
}

/** Init script: this document's clock starts `offset` ms off unless an offset is set in its storage already. */
function initialOffset(offset: number): void {
  try {
    if (localStorage.getItem('e2e.clockOffsetMs') === null) localStorage.setItem('e2e.clockOffsetMs', String(offset));
  } catch {
    // A document without storage (about:blank) has no clock of the wallet's.
  }
}

/** A tab whose documents (its frames' too) get `shiftableClock`, starting `offset` ms off. */
async function shiftableTab(tab: Tab, offset: number): Promise<void> {
  await tab.addInitScript(shiftableClock, undefined);
  await tab.addInitScript(initialOffset, offset);
}

/** In a document: how far its wall clock (Date) runs ahead of its monotonic one (ms; negative: behind). */
function localClockAhead(): number {
  return Date.now() - (performance.timeOrigin + performance.now());
}

/** Sets the clock's offset in the page and, in frame mode, in the signer frame (its own storage). */
async function setOffset(tab: Tab, ms: number): Promise<void> {
  const set = (offset: number) => localStorage.setItem('e2e.clockOffsetMs', String(offset));
  await tab.evaluate(set, ms);
  const wallet: Scope = await walletScope(tab);
  if (wallet !== tab) await wallet.evaluate(set, ms);
}

test('29 · the local clock one hour slow at login, then corrected: the session stays live and signs', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const service = await serviceAhead();
  await shiftableTab(tab, service - HOUR);
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  const session = await currentSessionId(tab);
  // The wallet's document (the signer frame's in frame mode) runs an hour slow.
  const wallet = await walletScope(tab);
  expect(Math.abs((await wallet.evaluate(localClockAhead)) - (service - HOUR))).toBeLessThan(60_000);
  await expect.poll(() => textOf(tab, 'session-countdown')).toMatch(/^1[0-5]:\d\d$/);
  // The user corrects the clock (an hour forward), then the page comes back into view.
  await setOffset(tab, service);
  await wallet.evaluate(countIdbTransactions);
  await wallet.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  // The wake reads storage again and judges the session (src/session/tab.ts load: back): wait until
  // its reads have begun and ended (each next read begins before the one before it has ended).
  await expect.poll(async () => {
    const idb = await wallet.evaluate(idbTransactions);
    return idb.begun > 0 && idb.ended === idb.begun;
  }).toBe(true);
  await expect.poll(() => textOf(tab, 'session-countdown')).toMatch(/^1[0-5]:\d\d$/);
  expect(await currentSessionId(tab)).toBe(session);
  await signPrivateToggle(tab);
  expect(await serviceSessions(accountId)).toEqual([session]);
});

// Frame mode too: the app's serverNow() is the signer frame's estimate, which the frame sends again
// when its first sample after the load moves it (src/signer/frame/serve.ts, `answerSeen`).
test('29b · the local clock one hour fast at a reload (storage read with no server sample yet): the session stays live and signs', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const service = await serviceAhead();
  await shiftableTab(tab, service);
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  // An hour ahead (the next reload reads storage with no server sample yet).
  await setOffset(tab, service + HOUR);
  await tab.goto('/#/home');
  await tab.reload();
  // Not dropped as expired on the local clock alone (I6): still signed in, its countdown the
  // service's. A refresh planned on the unsampled clock may replace it meanwhile (I6 allows it):
  // then the service lists the new session alone, the old one ended.
  await visible(tab, 'screen-home');
  expect(Math.abs((await (await walletScope(tab)).evaluate(localClockAhead)) - (service + HOUR))).toBeLessThan(60_000);
  await expect.poll(() => textOf(tab, 'session-countdown')).toMatch(/^1[0-5]:\d\d$/);
  await signPrivateToggle(tab);
  await tab.click('nav-home');
  const current = await currentSessionId(tab);
  expect(await serviceSessions(accountId)).toEqual([current]);
});
