/**
 * What the journeys that run in every engine share: the `openDevice` fixture (a fresh browser
 * profile in the project's engine, through the driver of e2e/drivers/) and the demo's steps written
 * against that driver. Waiting is Playwright's `expect.poll` over values read in the page.
 *
 * The engine is the project's `engine` option (playwright.config.ts): Chromium through Playwright,
 * Firefox ESR through puppeteer-core (one browser per worker, a fresh BiDi user context per device),
 * WebKitGTK through WebKitWebDriver (a fresh MiniBrowser per device).
 *
 * The mode is the project's `mode` option: in-origin (playwright.config.ts) or frame
 * (playwright.portable-frame.config.ts); the steps do what frame mode asks (e2e/portable/modes.ts).
 */
import { chromium, test as base, expect, type Browser as PlaywrightBrowser, type BrowserContext } from '@playwright/test';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';
import { launchOptions } from '../../scripts/chromium.mjs';
import { assertInstalled, FIREFOX_PATH, type Engine } from '../../scripts/engines/engines.js';
import type { Device, Tab } from '../drivers/driver.js';
import { playwrightDevice } from '../drivers/playwright.js';
import { Marionette, MARIONETTE_LAUNCH } from '../drivers/marionette.js';
import { puppeteerDevice } from '../drivers/puppeteer.js';
import { webDriverDevice } from '../drivers/webdriver.js';
import { typeCode } from '../frame/portable/signer-steps.js';
import { isolateFromDevServer, OTP, uniqueContact } from '../fixtures.js';
import { approveUntil, expectPrompt, frameLegs, framed, inFrameMode, type DemoMode } from './modes.js';

export { expect, OTP };
export { approvePrompt, approveUntil, expectPrompt, promptShows, walletScope } from './modes.js';

type Launched = { engine: 'chromium'; browser: PlaywrightBrowser } | { engine: 'firefox'; browser: PuppeteerBrowser; marionette: Marionette } | { engine: 'webkit' };
type LaunchOptions = Parameters<typeof chromium.launch>[0];

/** The project's engine, launched once per worker (`chromiumLaunch`: how Chromium starts; default scripts/chromium.mjs's). */
export const engineTest = base.extend<object, { engine: Engine; chromiumLaunch: LaunchOptions; launched: Launched }>({
  engine: ['chromium', { option: true, scope: 'worker' }],
  chromiumLaunch: [launchOptions(), { option: true, scope: 'worker' }],
  launched: [
    async ({ engine, chromiumLaunch }, use) => {
      assertInstalled(engine);
      if (engine === 'chromium') {
        const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
        await use({ engine, browser });
        await browser.close();
      } else if (engine === 'firefox') {
        // Marionette too, for its virtual authenticators (e2e/drivers/marionette.ts); the profile is puppeteer's.
        const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX_PATH, headless: true, ...MARIONETTE_LAUNCH });
        const args = browser.process()?.spawnargs ?? [];
        const profile = args[args.indexOf('--profile') + 1];
        if (!args.includes('--profile') || profile === undefined) throw new Error(`no --profile in Firefox's arguments: ${args.join(' ')}`);
        const marionette = await Marionette.of(profile);
        await use({ engine, browser, marionette });
        marionette.close();
        await browser.close();
      } else {
        await use({ engine }); // a MiniBrowser per device
      }
    },
    { scope: 'worker' },
  ],
});

/**
 * The `openDevice` fixture: fresh profiles of the launched engine, relative paths resolved against
 * `baseURL()`; closed after the test, and uncaught errors in their pages fail it (but those that
 * match one of `expected`: reports a test provokes on purpose).
 */
export function deviceOpener(baseURL: () => string, prepare: (context: BrowserContext) => Promise<void>, expected: readonly RegExp[] = [], wrap: (tab: Tab) => Tab = (tab) => tab) {
  return async ({ launched }: { launched: Launched }, use: (open: () => Promise<Device>) => Promise<void>): Promise<void> => {
    const devices: Device[] = [];
    const tabs: Tab[] = [];
    await use(async () => {
      const url = baseURL();
      const device =
        launched.engine === 'chromium'
          ? await playwrightDevice(launched.browser, url, prepare)
          : launched.engine === 'firefox'
            ? await puppeteerDevice(launched.browser, url, launched.marionette)
            : await webDriverDevice(url);
      devices.push(device);
      return {
        newTab: async () => {
          const tab = await device.newTab();
          tabs.push(tab);
          return wrap(tab);
        },
        close: () => device.close(),
      };
    });
    // Browser-side errors fail the test: a journey that "passes" with an exception in the page is not green.
    const errors = tabs.flatMap((t) => t.errors()).filter((e) => !expected.some((r) => r.test(e)));
    await Promise.all(devices.map((d) => d.close()));
    expect(errors, 'uncaught errors in the page').toEqual([]);
  };
}

function demoUrl(): string {
  const baseURL = process.env.DEMO_URL;
  if (!baseURL) throw new Error('DEMO_URL is not set: run the suite with `npx playwright test` (e2e/global-setup.ts starts the demo).');
  return baseURL;
}

/**
 * `mode`: the demo stack's mode (the project's option; the global setup starts the stack in it:
 * e2e/global-setup.ts in-origin, e2e/global-setup-frame.ts frame). In frame mode every tab is
 * {@link framed}: the steps below act where frame mode asks (e2e/portable/modes.ts).
 */
export const test = engineTest.extend<{ openDevice: () => Promise<Device>; expectedPageErrors: RegExp[] }, { mode: DemoMode }>({
  mode: ['in-origin', { option: true, scope: 'worker' }],
  // Reports of the engine that a journey provokes on purpose (`test.use`): they do not fail it.
  expectedPageErrors: [[], { option: true }],
  openDevice: async ({ launched, mode, expectedPageErrors }, use) => {
    const started = process.env.E2E_DEMO_MODE ?? 'in-origin';
    if (started !== mode) throw new Error(`The demo stack runs in ${started} mode, this project in ${mode} mode: run frame mode with -c playwright.portable-frame.config.ts.`);
    await deviceOpener(demoUrl, isolateFromDevServer, expectedPageErrors, mode === 'frame' ? framed : undefined)({ launched }, use);
  },
});

/** Whether the element with this test id is rendered and visible. */
export function isVisible(tab: Tab, testId: string): Promise<boolean> {
  return tab.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.checkVisibility() ?? false, testId);
}

/** Waits until the element with this test id is visible. */
export async function visible(tab: Tab, testId: string): Promise<void> {
  await expect.poll(() => isVisible(tab, testId), { message: `${testId} visible` }).toBe(true);
}

/** The element's text content ('' when it is not there). */
export function textOf(tab: Tab, testId: string): Promise<string> {
  return tab.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? '', testId);
}

/** An attribute of the element with this test id (null when either is missing). */
export function attributeOf(tab: Tab, testId: string, name: string): Promise<string | null> {
  return tab.evaluate(([id, attribute]) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute(attribute!) ?? null, [testId, name]);
}

/** Every signature is approved without the dialog (the demo's "Auto-approve signing", read at load). */
export async function autoApprove(tab: Tab): Promise<void> {
  await tab.goto('/');
  await tab.evaluate(() => localStorage.setItem('demo.autoApprove', '1'));
}

/** Creates a demo customer in this browser; lands on the wallet login. */
export async function signUp(tab: Tab): Promise<{ email: string; phone: string }> {
  const contact = uniqueContact();
  await tab.goto('/');
  await tab.fill('signup-email', contact.email);
  await tab.fill('signup-phone', contact.phone);
  await tab.click('signup-submit');
  await visible(tab, 'screen-login');
  return contact;
}

/** From the login screen: an email-code login with `code`; stops after submitting. */
export function submitEmailCode(tab: Tab, code: string): Promise<void> {
  return submitCode(tab, 'email', code);
}

/** From the login screen: a login by a code sent by `channel` (email or SMS) with `code`; stops after submitting. */
export async function submitCode(tab: Tab, channel: 'email' | 'sms', code: string): Promise<void> {
  await tab.click(`login-tab-${channel}`);
  if (inFrameMode(tab)) {
    // The code is typed in the signer frame (THREAT-MODEL P3), never in the app's page.
    if (!(await isVisible(tab, 'login-in-frame'))) await tab.click(`login-${channel}-send`);
    await visible(tab, 'login-in-frame');
    await typeCode(tab, code);
    return;
  }
  if (!(await isVisible(tab, 'otp-code'))) await tab.click(`login-${channel}-send`);
  await tab.fill('otp-code', code);
  await tab.click('otp-verify');
}

/** From the login screen: a full email-code login; lands on the wallet home. */
export function loginWithEmailCode(tab: Tab): Promise<void> {
  return loginWithCode(tab, 'email');
}

/** From the login screen: a full login by a code sent by `channel` (email or SMS); lands on the wallet home. */
export async function loginWithCode(tab: Tab, channel: 'email' | 'sms'): Promise<void> {
  await submitCode(tab, channel, OTP);
  await visible(tab, 'screen-home');
  await expect.poll(() => attributeOf(tab, 'session-id', 'title')).toMatch(/^Session:/);
}

/** A new customer, logged in by email code (signatures auto-approved): lands on the wallet home. */
export async function newLoggedInCustomer(tab: Tab): Promise<{ email: string; phone: string }> {
  await autoApprove(tab);
  const contact = await signUp(tab);
  await loginWithEmailCode(tab);
  return contact;
}

/** On another device of the same person: continue as the customer with this email (auto-approving). */
export async function signInAs(tab: Tab, email: string): Promise<void> {
  await autoApprove(tab);
  await tab.goto('/');
  await tab.fill('signin-email', email);
  await tab.click('signin-submit');
  await visible(tab, 'screen-login');
}

/** The current session's id as the home screen shows it (the full id is the title). */
export async function currentSessionId(tab: Tab): Promise<string> {
  await expect.poll(() => attributeOf(tab, 'session-id', 'title')).toMatch(/^Session:/);
  return (await attributeOf(tab, 'session-id', 'title')) ?? '';
}

/** Signs one action (private mode on/off) from the Actions screen (approved where frame mode asks) and waits for the saved state. */
export async function signPrivateToggle(tab: Tab): Promise<void> {
  await tab.click('nav-actions');
  await visible(tab, 'private-state');
  const before = await textOf(tab, 'private-state');
  await tab.click('private-toggle');
  await approveUntil(tab, async () => (await textOf(tab, 'private-state')) !== before);
  await expect.poll(() => textOf(tab, 'private-state')).toBe(before.includes('ON') ? 'privateEnabled is OFF.' : 'privateEnabled is ON.');
}

/** One wallet request leg as the demo's request log shows it. */
export interface LoggedLeg {
  leg: string | undefined;
  status: string | undefined;
  signed: string | undefined;
}

/** The wallet's legs for a method and a path (a regular expression's source), oldest first: the request log's, or in frame mode the signer frame's. */
export async function loggedLegs(tab: Tab, method: string, path: string): Promise<LoggedLeg[]> {
  if (inFrameMode(tab)) return (await frameLegs(tab, method, path)).map((l) => ({ leg: String(l.leg), status: String(l.status), signed: String(l.signed) }));
  return tab.evaluate(
    ([m, p]) =>
      [...document.querySelectorAll<HTMLElement>(`[data-testid="log-row"][data-kind="leg"][data-method="${m}"]`)]
        .filter((row) => new RegExp(p!).test(row.querySelector('.log-req')?.textContent ?? ''))
        .map((row) => ({ leg: row.dataset.leg, status: row.dataset.status, signed: row.dataset.signed }))
        .reverse(), // the log shows the newest first
    [method, path],
  );
}

/** Moves the sandbox's clock forward, through the demo backend's route, from the page's origin. */
export async function advanceSandboxClock(tab: Tab, seconds: number): Promise<void> {
  const status = await tab.evaluate(
    async (s) => (await fetch('/demo/sandbox/clock', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: s }) })).status,
    seconds,
  );
  expect(status).toBe(200);
}

/** A new tab of the device on the wallet home (the session it shares is shown). */
export async function homeTab(device: { newTab(): Promise<Tab> }): Promise<Tab> {
  const tab = await device.newTab();
  await tab.goto('/#/home');
  await visible(tab, 'screen-home');
  return tab;
}

/**
 * One device with two tabs: a new customer logged in in tab A, then tab B on the wallet's home with
 * the same session; `session` is its id.
 */
export async function twoTabsLoggedIn(openDevice: () => Promise<Device>): Promise<{ device: Device; tabA: Tab; tabB: Tab; accountId: string; session: string }> {
  const device = await openDevice();
  const tabA = await device.newTab();
  await newLoggedInCustomer(tabA);
  const accountId = await walletAccountId(tabA);
  const session = await currentSessionId(tabA);
  const tabB = await homeTab(device);
  return { device, tabA, tabB, accountId, session };
}

/** Turns the demo's auto-approve off in this tab (the prompt is then the user's). */
export async function promptsOn(tab: Tab): Promise<void> {
  if (inFrameMode(tab)) return; // frame mode asks every signature of a user's action (THREAT-MODEL P1)
  await tab.evaluate(() => localStorage.setItem('demo.autoApprove', '0'));
  if (await tab.evaluate(() => (document.querySelector('[data-testid="auto-approve"]') as HTMLInputElement | null)?.checked === true)) await tab.click('auto-approve');
}

/** Opens the private-mode action's prompt in `tab` (prompts on): resolves once the prompt shows. */
export async function openActionPrompt(tab: Tab): Promise<void> {
  await promptsOn(tab);
  await tab.click('nav-actions');
  await visible(tab, 'private-state');
  await tab.click('private-toggle');
  await expectPrompt(tab, 'update-internal-account');
}

/** The wallet account the home screen names. */
export async function walletAccountId(tab: Tab): Promise<string> {
  await expect.poll(() => tab.evaluate(() => document.querySelector('[title^="InternalAccount:"]')?.getAttribute('title') ?? '')).toMatch(/^InternalAccount:/);
  return tab.evaluate(() => document.querySelector('[title^="InternalAccount:"]')!.getAttribute('title')!);
}
