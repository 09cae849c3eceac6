/**
 * Journey: the Next.js App Router example (examples/next-app) built with `next build` and served by
 * `next start`, against a sandbox of its own (a new enclave key each start, read by the page at
 * runtime from /api/wallet-bootstrap: one build serves every sandbox): email-first login with
 * useOtpLogin().start({ email }) (the proxy provisions the customer and sets the app's session
 * cookie, /api/me), a signed action confirmed in the app's own UI (usePendingSignature: sign,
 * then cancel → SIGNING_REFUSED), a reload that restores the session, logout. Zero hydration
 * warnings and zero console errors or warnings on the way (the signer frame's included).
 *
 * Both modes (E2E_DEMO_MODE, set by the config's global setup: playwright.config.ts in-origin,
 * playwright.modes.config.ts frame, Chromium with storage partitioning on): in frame mode the
 * example runs with its signer page on another port (e2e/next-app-server.ts), the code is typed and
 * each signature approved or declined (SIGNER_DECLINED) in the signer frame, the app shows no
 * confirmation of its own, and the wallet's locks are read in the frame (its origin).
 *
 * The example is built by `npm run example:next` (in `npm test` before the e2e run); when its build
 * is missing, this spec builds it (dist/ first) before starting it.
 */
import type { ConsoleMessage, Frame, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { approveInFrame } from './frame/helpers.js';
import { OTP, signerFrame, typeCodeInFrame } from './fixtures.js';
import { startNextApp, type NextApp } from './next-app-server.js';
import { locksIdle, requestsInFlight } from './settled.js';

let app: NextApp;
let url: string;
let sandbox: NextApp['sandbox'];

// Not the demo: the example's own stack, in the mode of the run's (E2E_DEMO_MODE from e2e/global-setup.ts).
const frameMode = process.env.E2E_DEMO_MODE === 'frame';

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = await startNextApp(frameMode ? 'frame' : 'in-origin');
  ({ url, sandbox } = app);
});

/** Where the wallet's locks are: the page in-origin, the signer frame (its origin) in frame mode. */
async function walletFrame(page: Page): Promise<Frame> {
  if (!frameMode) return page.mainFrame();
  const signer = app.signerUrl as string;
  await expect.poll(() => page.frames().some((f) => f.url().startsWith(signer))).toBe(true);
  return page.frames().find((f) => f.url().startsWith(signer)) as Frame;
}

/** From the example's login form with the email filled: sends the code and gives it where the mode asks. */
async function logIn(page: Page): Promise<void> {
  await page.getByTestId('send-code').click();
  if (frameMode) {
    // Typed in the signer frame (THREAT-MODEL.md P3); the app says where, and has no code field.
    await expect(page.getByTestId('code-in-frame')).toBeVisible();
    await expect(page.getByTestId('code')).toHaveCount(0);
    await typeCodeInFrame(page, OTP);
    return;
  }
  await page.getByTestId('code').fill(OTP);
  await page.getByRole('button', { name: 'Log in' }).click();
}

test.afterAll(async () => {
  await app?.stop();
});

test('next-app · email-first login (the email alone), a signed action confirmed (in the app’s UI in-origin, in the signer frame in frame mode), reload, logout: no hydration warning, no console error', async ({ page }) => {
  test.setTimeout(120_000); // a login now provisions the customer too; bounded for a busy machine (43 s seen on 2 shared cores)
  const noisy: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning' || /hydrat/i.test(m.text())) noisy.push(`${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => noisy.push(`pageerror: ${e.message}`));
  const inFlight = requestsInFlight(page);

  await page.goto(url);
  const status = page.getByTestId('wallet-status');
  await expect(status).toHaveText('Wallet: signed-out');
  // The bootstrap names no user and is read at runtime: this sandbox's key, not a built-in one.
  const boot = await page.evaluate(async () => (await fetch('/api/wallet-bootstrap')).json());
  // In frame mode it names the signer page only: the keys and the proxy's URL are the signer host's.
  expect(boot).toEqual(frameMode ? { signerUrl: app.signerUrl } : { baseUrl: '/api/wallet', trustedKeys: [sandbox.enclavePublicKey] });
  const me = () => page.evaluate(async () => (await fetch('/api/me')).json());
  expect(await me()).toEqual({ signedIn: false });

  await page.getByLabel('Email').fill(`next-${Date.now()}@example.com`);
  await logIn(page);
  await expect(status).toHaveText('Wallet: active');
  // The wallet's login was the app's login: the session cookie names the customer.
  expect(await me()).toMatchObject({ signedIn: true, customerId: expect.stringMatching(/./) });

  await page.getByTestId('private').click();
  if (frameMode) {
    // Approved in the signer frame (THREAT-MODEL.md P1): the app shows no confirmation of its own.
    await expect(signerFrame(page).getByTestId('signer-approval').getByRole('heading', { level: 1 })).toHaveText('Change your wallet settings');
    await expect(page.getByTestId('approvals-in-frame')).toContainText('approved in the wallet window');
    await approveInFrame(signerFrame(page));
  } else {
    await expect(page.getByTestId('confirm')).toContainText('update-internal-account');
    await page.getByTestId('approve').click();
  }
  await expect(page.getByTestId('result')).toHaveText('Private mode: on');
  await expect(page.getByTestId('confirm')).toHaveCount(0);

  await page.getByTestId('private').click();
  if (frameMode) await signerFrame(page).getByTestId('signer-decline').click();
  else await page.getByTestId('reject').click();
  await expect(page.getByTestId('result')).toHaveText(`Not changed: ${frameMode ? 'SIGNER_DECLINED' : 'SIGNING_REFUSED'}`);

  // A reload: the server renders `initializing` (it cannot know this browser's session), the
  // browser hydrates that, then restores its session from IndexedDB.
  await page.reload();
  await expect(status).toHaveText('Wallet: active');

  await page.getByTestId('logout').click();
  await expect(status).toHaveText('Wallet: signed-out (logout)');
  // The wallet's logout ends the app session too: the proxy clears the cookie when the session's
  // signed DELETE is done (the status shows signed-out before that request ends: waited for).
  await expect.poll(me).toEqual({ signedIn: false });
  // What the logout set off has finished (no lock held or awaited, no request under way) before
  // the console is judged: a late error would have been logged by then.
  await expect.poll(async () => inFlight() === 0 && (await (await walletFrame(page)).evaluate(locksIdle, ''))).toBe(true);
  expect(noisy).toEqual([]);
});

/** Console errors and warnings (and anything about hydration) and page errors of `page`. */
function watch(page: Page, into: string[]): void {
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning' || /hydrat/i.test(m.text())) into.push(`${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => into.push(`pageerror: ${e.message}`));
}

test('next-app · two tabs: a login shows in the other, near expiry exactly one refresh, a logout elsewhere shows other-tab', async ({ context }) => {
  test.setTimeout(120_000);
  const noisy: string[] = [];
  const a = await context.newPage();
  watch(a, noisy);
  const inFlightA = requestsInFlight(a);
  await a.goto(url);
  await expect(a.getByTestId('wallet-status')).toHaveText('Wallet: signed-out');
  const b = await context.newPage();
  watch(b, noisy);
  const inFlightB = requestsInFlight(b);
  await b.goto(url);
  await expect(b.getByTestId('wallet-status')).toHaveText('Wallet: signed-out');

  await a.getByLabel('Email').fill(`tabs-${Date.now()}@example.com`);
  await logIn(a);
  await expect(a.getByTestId('wallet-status')).toHaveText('Wallet: active');
  await expect(b.getByTestId('wallet-status')).toHaveText('Wallet: active');
  const before = await a.getByTestId('session-expiry').textContent();
  await expect(b.getByTestId('session-expiry')).toHaveText(before ?? '');

  // Near expiry: both tabs learn the service's time from a read, both want to refresh; one does.
  const refreshes: string[] = [];
  for (const [name, page] of [['a', a], ['b', b]] as const) {
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/api\/wallet\/auth\/sessions\/[^/]+\/refresh$/.test(new URL(r.url()).pathname) && r.headers()['service-wallet-signature'] === undefined) refreshes.push(name);
    });
  }
  sandbox.advanceClock(10 * 60 + 5);
  await a.getByTestId('reload-sessions').click();
  await b.getByTestId('reload-sessions').click();
  await expect(a.getByTestId('session-expiry')).not.toHaveText(before ?? '', { timeout: 15_000 });
  const after = await a.getByTestId('session-expiry').textContent();
  await expect(b.getByTestId('session-expiry')).toHaveText(after ?? '');
  await expect(a.getByTestId('wallet-status')).toHaveText('Wallet: active');
  await expect(b.getByTestId('wallet-status')).toHaveText('Wallet: active');
  expect(refreshes).toHaveLength(1);

  await b.getByTestId('logout').click();
  await expect(b.getByTestId('wallet-status')).toHaveText('Wallet: signed-out (logout)');
  await expect(a.getByTestId('wallet-status')).toHaveText('Wallet: signed-out (other-tab)');
  // Both tabs' part of the logout has finished (no lock of the origin held or awaited, no request
  // under way in either) before the console is judged.
  await expect.poll(async () => inFlightA() === 0 && inFlightB() === 0 && (await (await walletFrame(a)).evaluate(locksIdle, ''))).toBe(true);
  expect(noisy).toEqual([]);
});
