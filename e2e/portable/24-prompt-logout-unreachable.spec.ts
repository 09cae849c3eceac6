/**
 * Journey 24 (issue 22; src/session/INVARIANTS.md I2, I8) in
 * every engine and both modes: tab A's action waits at its prompt, tab B logs out with the proxy
 * unreachable (from both tabs: A online would finish B's pending end at once); approving in A signs
 * nothing, B's logout is finished once it is back. The proxy is cut off in the documents that make
 * the wallet's requests (e2e/portable/cut-off.ts: the page, and in frame mode the signer frame),
 * which list what they were asked to send: a PATCH A tried would be listed there.
 */
import { serviceSessions } from '../fixtures.js';
import { proxyUnreachable, triedWhileCut } from './cut-off.js';
import { approvePrompt, expect, twoTabsLoggedIn, loggedLegs, openActionPrompt, promptShows, test, visible } from './fixtures.js';

/** In the page: the private-mode button's `aria-busy`, read on the element itself (kept once the screen has gone). */
function toggleBusy(): string | null {
  const w = globalThis as { e2eToggle?: Element | null };
  w.e2eToggle ??= document.querySelector('[data-testid="private-toggle"]');
  return w.e2eToggle?.getAttribute('aria-busy') ?? null;
}

test('24 · a prompt open in tab A, logout in tab B with the proxy unreachable: approving signs nothing; the logout is finished once B is back', async ({ openDevice }) => {
  test.slow(); // two tabs on a shared, busy machine
  const { tabA, tabB, accountId, session } = await twoTabsLoggedIn(openDevice);
  await openActionPrompt(tabA);
  // The action's button stays busy until its call settles (also once the screen has gone).
  expect(await tabA.evaluate(toggleBusy)).toBe('true');

  for (const tab of [tabA, tabB]) await proxyUnreachable(tab, true);
  await tabB.click('logout');
  await visible(tabB, 'screen-login');
  // The prompt in A was cancelled by B's logout (its signal fired: the prompt closed); had it stayed
  // open, approving now would still sign nothing.
  if (await promptShows(tabA)) await approvePrompt(tabA);
  await visible(tabA, 'screen-login');
  // The action's call has settled (its button is no longer busy): a PATCH it made would have been tried.
  await expect.poll(() => tabA.evaluate(toggleBusy)).toBeNull();
  expect((await triedWhileCut(tabA)).filter((t) => t.startsWith('PATCH'))).toEqual([]);
  expect((await loggedLegs(tabA, 'PATCH', '/internal-accounts/')).filter((l) => l.signed === 'true')).toEqual([]);
  // B could not end the session: it is a pending end, finished when a tab of the origin comes back.
  await expect.poll(async () => [...(await triedWhileCut(tabA)), ...(await triedWhileCut(tabB))].some((t) => t.startsWith('DELETE'))).toBe(true);
  expect(await serviceSessions(accountId)).toEqual([session]);
  for (const tab of [tabA, tabB]) await proxyUnreachable(tab, false);
  await tabB.reload();
  await visible(tabB, 'screen-login');
  await expect.poll(() => serviceSessions(accountId)).toEqual([]);
});
