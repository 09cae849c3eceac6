/**
 * Journey 27 of e2e/10-session-invariants.spec.ts (issue 22; src/session/INVARIANTS.md I5) in every
 * engine and both modes: the code a login's commit needs (src/session/changes.ts, loaded on first
 * use: the dev server's module in-origin, the signer bundle's chunk `changes-<hash>.js` in frame
 * mode) cannot be downloaded: the login fails before its verify, the service makes no session; once
 * the code loads, the same page logs in. No engine's page can stop its own module loads and
 * WebKitWebDriver intercepts no request, so the download is refused by the demo stack's declared
 * test-only switch (demo/server/test-switches.ts), which reaches every engine and both modes.
 *
 * "It works once the code loads" holds only in Chromium: Firefox ESR and WebKitGTK keep a failed
 * module download in the page's module map (see {@link FAILED_IMPORT_KEPT}); there the first half
 * runs and the rest is test.fixme, an open bug of the wallet in those engines.
 */
import { serviceSessions } from '../fixtures.js';
import { OTP, autoApprove, currentSessionId, expect, isVisible, loggedLegs, loginWithEmailCode, signUp, submitEmailCode, test, textOf, walletAccountId } from './fixtures.js';

/**
 * Why the page cannot log in once the code loads again in Firefox ESR and WebKitGTK: they keep a
 * failed dynamic import in the module map, and import() of the same URL fails again without a
 * request (seen in Firefox 153 ESR with a bare page: the second import sent nothing; this journey
 * fails there and in WebKitGTK at the second login). The wallet's retry (src/load-on-first-use.ts
 * forgets the failed promise) assumes the engine fetches again, as Chromium does: in those engines
 * the page needs a reload. Open bug, reported to the lead (issue 32 port of journey 27).
 */
const FAILED_IMPORT_KEPT = 'Firefox ESR and WebKitGTK keep a failed module download in the module map: the wallet cannot load its commit code again in that page until a reload (open bug, see FAILED_IMPORT_KEPT)';

// Frame mode: the chunk moved away is a 404, which Firefox reports as a page error (in-origin the
// destroyed connection is reported by no engine).
test.use({ expectedPageErrors: [/^Loading module from .*\/chunks\/changes-[\w-]+\.js.* was blocked because of a disallowed MIME type/] });

/** The stack's switch: the login's commit code unloadable (or loadable again); its state and the downloads refused. */
async function commitCode(body?: { unloadable: boolean }): Promise<{ unloadable: boolean; refused?: number }> {
  const base = process.env.DEMO_URL;
  if (base === undefined) throw new Error('DEMO_URL is not set');
  const res = await fetch(`${base}/demo/test/commit-code`, body ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {});
  expect(res.status, 'the stack’s test switch (testSwitches in e2e/global-setup.ts)').toBe(200);
  return (await res.json()) as { unloadable: boolean; refused?: number };
}

test('27 · the login’s commit code cannot be downloaded: the login fails before verify, no session is made; it works once the code loads', async ({ openDevice, mode, engine }) => {
  test.slow(); // two logins, one failing: WebKitGTK ran out of the 45 s at load 39
  const tab = await (await openDevice()).newTab();
  await autoApprove(tab);
  await signUp(tab);
  await commitCode({ unloadable: true });
  try {
    await submitEmailCode(tab, OTP);
    // In-origin the dev server counts the module's downloads it refused (frame mode: the chunk is gone, a 404).
    if (mode === 'in-origin') await expect.poll(async () => (await commitCode()).refused).toBeGreaterThan(0);
    await expect.poll(() => textOf(tab, 'login-status')).not.toBe('');
    expect(await isVisible(tab, 'screen-home')).toBe(false);
    expect(await loggedLegs(tab, 'POST', '/verify$')).toEqual([]);
  } finally {
    await commitCode({ unloadable: false });
  }
  test.fixme(engine !== 'chromium', FAILED_IMPORT_KEPT);
  await loginWithEmailCode(tab);
  const accountId = await walletAccountId(tab);
  // The failed login made no session: the service lists the second login's alone.
  expect(await serviceSessions(accountId)).toEqual([await currentSessionId(tab)]);
});
