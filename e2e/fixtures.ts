/**
 * What every journey shares: the demo's URL (from the global setup), a fresh demo customer per
 * test, the login steps, the request-log readers and the sandbox clock.
 *
 * Built on the package's own test kit (`embedded-wallet-signer/testing`, src/testing/): the
 * fixtures `walletSandbox` (here: the run's sandbox, reached over HTTP with the run's platform
 * credentials), `otpCode`, `sandboxClock`, `faults` and `virtualPasskey` come from it, and so do
 * the helpers below that move the clock or add a virtual authenticator.
 *
 * Each test gets Playwright's default fresh browser context (its own cookies, IndexedDB and
 * localStorage), so no state leaks from one journey to the next.
 */
import { test as base, expect, type BrowserContext, type Frame, type FrameLocator, type Locator, type Page } from '@playwright/test';
import { SANDBOX_OTP, SandboxClient, withWalletSandbox, type SandboxTarget } from '../src/testing/index.js';
import { shiftableClock } from './portable/page-faults.js';
import { approveInFrame } from './frame/helpers.js';
import { expectLegs, recordFrameLegs } from './legs.js';

export { expectLegs };

/** The sandbox's embedded-wallet login code (wire reference §10). */
export const OTP = SANDBOX_OTP;

/** The run's sandbox (e2e/global-setup.ts starts it behind the demo) and its platform credentials. */
export function e2eSandbox(): SandboxTarget {
  const url = process.env.E2E_SANDBOX_URL;
  const clientId = process.env.E2E_CLIENT_ID;
  const clientSecret = process.env.E2E_CLIENT_SECRET;
  if (!url || !clientId || !clientSecret) throw new Error('E2E_SANDBOX_URL / E2E_CLIENT_ID / E2E_CLIENT_SECRET are not set: run the suite with `npx playwright test` (e2e/global-setup.ts).');
  return { url, clientId, clientSecret };
}

/**
 * The dev server's live-reload channel is answered by the test instead of Vite: the page runs as
 * loaded, and an edit saved anywhere in the tree during a run cannot reload it mid-journey. The app
 * itself opens no WebSocket.
 */
export async function isolateFromDevServer(context: BrowserContext): Promise<void> {
  await context.routeWebSocket(/.*/, () => {});
}

/**
 * The two modes every journey runs in (issue 32): `in-origin` (the wallet in the demo's page,
 * `playwright.config.ts`) and `frame` (keys, codes and approvals in the signer frame on another
 * origin, `playwright.modes.config.ts`, Chromium with third-party storage partitioning on). The
 * helpers below do what differs (where a code is typed, how a signature is approved, where a
 * passkey ceremony runs); a journey that cannot exist in frame mode skips it there, saying why.
 */
export type DemoMode = 'in-origin' | 'frame';

const contextModes = new WeakMap<BrowserContext, DemoMode>();

/** The mode the page's journey runs in (set by the `context` fixture; other contexts: in-origin). */
export function modeOf(page: Page): DemoMode {
  return contextModes.get(page.context()) ?? 'in-origin';
}

/**
 * Runs the journey's steps of a context in `mode` (the `context` fixture's; also another device's
 * context a journey makes itself): its mode, the frame's legs recorded, the dev server's reloads kept out.
 */
export async function inMode(context: BrowserContext, mode: DemoMode): Promise<void> {
  contextModes.set(context, mode);
  if (mode === 'frame') recordFrameLegs(context);
  await isolateFromDevServer(context);
}

export const test = withWalletSandbox(base, { target: e2eSandbox }).extend<{ mode: DemoMode }>({
  mode: ['in-origin', { option: true }],
  baseURL: async ({ mode }, use) => {
    // The stack the global setup started must be of this mode (E2E_DEMO_MODE, e2e/global-setup.ts).
    const started = process.env.E2E_DEMO_MODE ?? 'in-origin';
    if (started !== mode) throw new Error(`The demo stack runs in ${started} mode, this project in ${mode} mode: run frame mode with -c playwright.modes.config.ts.`);
    const url = process.env.DEMO_URL;
    if (!url) throw new Error('DEMO_URL is not set: run the suite with `npx playwright test` (e2e/global-setup.ts starts the demo).');
    await use(url);
  },
  context: async ({ context, mode }, use) => {
    await inMode(context, mode);
    await use(context);
  },
  page: async ({ page, mode }, use) => {
    // Frame mode loads a second page (the signer's) and waits for its approve guard: more time per step.
    page.setDefaultTimeout(mode === 'frame' ? 20_000 : 10_000);
    // A load is the dev server transforming the app's modules: 10 s failed page.goto on this
    // machine at load 20 (2 shared cores) in both modes.
    page.setDefaultNavigationTimeout(30_000);
    // Browser-side errors fail the test: a journey that "passes" with an exception in the page is not green.
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await use(page);
    expect(errors, 'uncaught errors in the page').toEqual([]);
  },
});

export { expect };

export const byTest = (page: Page, id: string): Locator => page.getByTestId(id);

let seq = 0;

/** A fresh email and E.164 phone number, unique within the run and across runs. */
export function uniqueContact(): { email: string; phone: string } {
  seq += 1;
  const tag = `${Date.now().toString(36)}${seq.toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const digits = `${Date.now() % 1e6}${seq % 10}`.padStart(7, '0').slice(-7);
  return { email: `e2e.${tag}@example.com`, phone: `+1628${digits}` };
}

/** Every wallet signature is approved without the dialog (the demo's "Auto-approve signing"). */
export async function autoApprove(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => localStorage.setItem('demo.autoApprove', '1'));
}

/** Creates a demo customer in this browser; lands on the wallet login. */
export async function signUp(page: Page): Promise<{ email: string; phone: string }> {
  const contact = uniqueContact();
  await page.goto('/');
  await byTest(page, 'signup-email').fill(contact.email);
  await byTest(page, 'signup-phone').fill(contact.phone);
  await byTest(page, 'signup-submit').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  return contact;
}

/** The signer frame of the demo in frame mode (absent in in-origin mode). */
export function signerFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe[title="Wallet signer"]');
}

/**
 * The frame whose origin holds the wallet's keys, IndexedDB, localStorage and Web Locks: the page
 * itself in in-origin mode, the signer frame (its own origin, its partition) in frame mode. Reads a
 * journey makes of the wallet's storage or locks run there, so they assert the same in both modes.
 */
export async function walletFrame(page: Page): Promise<Frame> {
  if (modeOf(page) !== 'frame') return page.mainFrame();
  const iframe = page.locator('iframe[title="Wallet signer"]');
  await expect(iframe).toBeAttached();
  const frame = await (await iframe.elementHandle())?.contentFrame();
  if (!frame) throw new Error('the signer frame has no content frame');
  await frame.waitForLoadState('load');
  return frame;
}

/** Frame mode: types `code` in the signer frame's code entry and submits it (trusted input). */
export async function typeCodeInFrame(page: Page, code: string): Promise<void> {
  const frame = signerFrame(page);
  await frame.getByTestId('signer-otp-input').fill(code);
  await frame.getByTestId('signer-otp-submit').click();
}

/**
 * Approves the signature the journey just asked for. In-origin: nothing to do (the demo's
 * `onBeforeSign` auto-approves, {@link autoApprove}). Frame: a user's click on the frame's Approve
 * once it is armed and the pointer has rested on it (src/signer/frame/approve-guard.ts).
 */
export async function approve(page: Page): Promise<void> {
  if (modeOf(page) !== 'frame') return;
  // After a full-page round trip (OAuth) the app and its frame load again before the prompt shows.
  await expect(signerFrame(page).getByTestId('signer-approve')).toBeVisible({ timeout: 45_000 });
  await approveInFrame(signerFrame(page));
}

/** From the login screen: an OTP login (email or SMS) with `code`; stops after submitting. */
export async function submitOtp(page: Page, tab: 'email' | 'sms', code: string): Promise<void> {
  await byTest(page, `login-tab-${tab}`).click();
  if (modeOf(page) === 'frame') {
    // The code is typed in the signer frame (THREAT-MODEL P3), never in the app's page.
    if (!(await byTest(page, 'login-in-frame').isVisible())) await byTest(page, `login-${tab}-send`).click();
    await expect(byTest(page, 'login-in-frame')).toBeVisible();
    await typeCodeInFrame(page, code);
    return;
  }
  if (!(await byTest(page, 'otp-code').isVisible())) await byTest(page, `login-${tab}-send`).click();
  await byTest(page, 'otp-code').fill(code);
  await byTest(page, 'otp-verify').click();
}

/** From the login screen: a full OTP login; lands on the wallet home. */
export async function loginWithOtp(page: Page, tab: 'email' | 'sms' = 'email'): Promise<void> {
  await submitOtp(page, tab, OTP);
  await expect(byTest(page, 'screen-home')).toBeVisible();
  await expect(byTest(page, 'session-id')).toHaveAttribute('title', /^Session:/);
}

/** A new customer, logged in by email code: the start of most journeys. */
export async function newLoggedInCustomer(page: Page): Promise<{ email: string; phone: string }> {
  const contact = await signUp(page);
  await loginWithOtp(page, 'email');
  return contact;
}

/** The current session's id as the home screen shows it (full id in the title). */
export async function currentSessionId(page: Page): Promise<string> {
  await expect(byTest(page, 'session-id')).toHaveAttribute('title', /^Session:/);
  return (await byTest(page, 'session-id').getAttribute('title')) ?? '';
}

/** Request-log rows of the wallet's legs for a method and a path (matched as a regular expression). */
export function logLegs(page: Page, method: string, path: RegExp): Locator {
  return byTest(page, 'log-row')
    .and(page.locator(`[data-kind="leg"][data-method="${method}"]`))
    .filter({ has: page.locator(`.log-req`, { hasText: path }) });
}

/** The active sessions the service lists for the account (straight from the sandbox). */
export async function serviceSessions(accountId: string): Promise<string[]> {
  const { url, clientId, clientSecret } = e2eSandbox();
  const auth = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
  const res = await fetch(`${url}/auth/sessions?accountId=${encodeURIComponent(accountId)}`, { headers: { Authorization: `Basic ${auth}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id);
}

/** The wallet account of the logged-in demo customer (the home screen names it). */
export async function walletAccountId(page: Page): Promise<string> {
  const id = await page.locator('[title^="InternalAccount:"]').first().getAttribute('title');
  expect(id).toMatch(/^InternalAccount:/);
  return id!;
}

/**
 * Moves the sandbox's clock forward (shared by every test of the run: journeys run one at a time).
 * `page` is unused since the clock moves through the test kit's sandbox client (it used to go
 * through the demo backend's `/demo/sandbox/clock`, which e2e/portable still exercises).
 */
export async function advanceSandboxClock(_page: Page, seconds: number): Promise<void> {
  await new SandboxClient(e2eSandbox()).advanceClock(seconds);
}

/** From any wallet screen: log out on the home screen; lands on the login screen. */
export async function logout(page: Page): Promise<void> {
  await byTest(page, 'nav-home').click();
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
}

/** Signs one action (private mode on/off) from the Actions screen and waits for the saved state. */
export async function signPrivateToggle(page: Page): Promise<void> {
  await byTest(page, 'nav-actions').click();
  const state = byTest(page, 'private-state');
  const before = (await state.textContent()) ?? '';
  await byTest(page, 'private-toggle').click();
  await approve(page);
  await expect(state).toHaveText(before.includes('ON') ? 'privateEnabled is OFF.' : 'privateEnabled is ON.');
}

/**
 * The pages of this context get a wall clock (Date) that runs `setLocalClockOffset`'s offset ahead
 * (or behind) of the real one; their monotonic clock (performance.now) does not move: the user
 * changing the computer's clock. Call before the pages load.
 */
export async function shiftableLocalClock(context: BrowserContext): Promise<void> {
  await context.addInitScript(shiftableClock);
}

/**
 * Sets the offset of the wall clock of `shiftableLocalClock`'s pages (read at every `Date` use): in
 * the page and, in frame mode, in the signer frame too (its own localStorage), whose clock the
 * wallet's session manager reads there.
 */
export async function setLocalClockOffset(page: Page, ms: number): Promise<void> {
  const set = (offset: number) => localStorage.setItem('e2e.clockOffsetMs', String(offset));
  await page.evaluate(set, ms);
  if (modeOf(page) === 'frame') await (await walletFrame(page)).evaluate(set, ms);
}
