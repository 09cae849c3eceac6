/**
 * Journey 23: a first visit and a login leave a clean console, and the credentials are listed once.
 * From a fresh browser (no demo customer, no session): the start screen, the demo's sign-up (its own
 * login), then the wallet login by email code to the wallet home. No console message at warning or
 * error level and no page error on the way (a first visit used to log the 401 of `GET /demo/me`);
 * from the sign-up on, exactly one `GET /auth/credentials` (the login screen used to fetch the
 * passkey challenge on opening, which lists the credentials too, before the code login listed them
 * again). The credentials screen then lists them once (its passkey preparation reuses that list).
 */
import type { ConsoleMessage } from '@playwright/test';
import type { Page } from '@playwright/test';
import { autoApprove, byTest, expect, loginWithOtp, signUp, test, walletFrame } from './fixtures.js';
import { locksIdle, requestsInFlight } from './settled.js';

/**
 * Settled: no request of the page (the signer frame's included) under way, and no wallet work in a
 * section of the wallet's origin (the app's in-origin, the signer frame's in frame mode): what the
 * screen started on render has been answered. (It replaces a wait for the network to go idle, which
 * never came in frame mode: a wait for 500 ms of nothing, not for the state the journey needs.)
 */
async function settled(page: Page, inFlight: () => number): Promise<void> {
  const wallet = await walletFrame(page);
  await expect.poll(async () => inFlight() === 0 && (await wallet.evaluate(locksIdle, ':account:')) && (await wallet.evaluate(locksIdle, ':logins:'))).toBe(true);
}

test('23 · a first visit and a login: a clean console, one GET /auth/credentials', async ({ page, context }) => {
  await autoApprove(context);
  const noisy: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') noisy.push(`${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => noisy.push(`pageerror: ${e.message}`));
  const inFlight = requestsInFlight(page);
  const listings: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.method() === 'GET' && url.pathname === '/api/auth/credentials') listings.push(url.search);
  });

  await signUp(page); // opens '/' (the first visit), signs up on the start screen, lands on the login screen
  await loginWithOtp(page, 'email');
  await expect(byTest(page, 'screen-home')).toBeVisible();
  await settled(page, inFlight); // whatever the home screen loads after the login
  expect(listings).toHaveLength(1);

  // The credentials screen lists them once more, and prepares the passkey registration from that
  // list (excludeCredentials) without a second GET.
  await byTest(page, 'nav-credentials').click();
  await expect(byTest(page, 'cred-list')).not.toHaveAttribute('aria-busy', 'true');
  await settled(page, inFlight);
  expect(listings).toHaveLength(2);
  expect(noisy).toEqual([]);
});
