/**
 * The frame journeys' steps over the portable driver (e2e/drivers/), so that one spec runs in
 * Chromium, Firefox ESR and WebKitGTK: the `openDevice` fixture (the project's engine; Chromium with
 * third-party storage partitioning on), a customer of the test app, the wallet in frame mode, and the
 * signer frame's screens, acted on with real input (trusted) events. Waiting is `expect.poll` over
 * values read in the pages.
 */
import { expect } from '@playwright/test';
import { partitionedLaunchOptions } from '../../../scripts/chromium.mjs';
import type { Device, Popup, Scope, Tab } from '../../drivers/driver.js';
import { deviceOpener, engineTest } from '../../portable/fixtures.js';
import { newEmail, OTP } from '../helpers.js';
import { makeFrameWallet, signUpInPage, startLoginInPage, walletState } from '../in-page.js';
import type { FrameStack } from '../stack.js';

export { expect, OTP };

export const test = engineTest.extend<{ openDevice: () => Promise<Device> }>({
  chromiumLaunch: [partitionedLaunchOptions(), { scope: 'worker' }],
  // Every page is opened by its absolute URL (the stack's ports are known once it started).
  // Firefox reports the browser's own refusals as page errors: the signer page refused to a foreign
  // parent (frame-ancestors), and the library's hello to the error page left in its place; the
  // signer's script and style refused to a sandboxed (opaque origin) frame.
  openDevice: deviceOpener(
    () => 'http://localhost/',
    async () => {},
    [
      /blocked the loading of a resource \(frame-ancestors\)/,
      /postMessage.*does not match the recipient window’s origin \(‘null’\)/,
      /Cross-Origin Request Blocked: .*signer\.js\. \(Reason: CORS header ‘Access-Control-Allow-Origin’ missing\)/,
      /signer\.css” was blocked due to its Cross-Origin-Resource-Policy header/,
    ],
  ),
});

export const SIGNER_IFRAME = 'iframe[title="Wallet signer"]';

/** The signer frame the library embedded in the app's page. */
export function signerIn(tab: Tab): Scope {
  return tab.frame(SIGNER_IFRAME);
}

/** Whether the element with this test id is visible in the page or frame (false while there is no such frame). */
export function visibleIn(scope: Scope, testId: string): Promise<boolean> {
  return scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.checkVisibility() ?? false, testId).catch(() => false);
}

/** The element's text content in the page or frame ('' when it is not there). */
export function textIn(scope: Scope, testId: string): Promise<string> {
  return scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.replace(/\s+/g, ' ').trim() ?? '', testId).catch(() => '');
}

/** Waits until the element with this test id is visible in the page or frame. */
export async function shown(scope: Scope, testId: string): Promise<void> {
  await expect.poll(() => visibleIn(scope, testId), { message: `${testId} visible`, timeout: 15_000 }).toBe(true);
}

/** Opens the app (same site as the signer unless `base`) and waits for its script. */
export async function openApp(tab: Tab, stack: FrameStack, base?: string): Promise<void> {
  await tab.goto(stack.appPage(base));
  await expect.poll(() => tab.evaluate(() => document.body?.dataset.ready === 'true')).toBe(true);
}

/** Opens the app and signs up a customer; resolves to its wallet account. */
export async function newCustomer(tab: Tab, stack: FrameStack): Promise<string> {
  await openApp(tab, stack);
  return tab.evaluate(signUpInPage, newEmail());
}

/** The wallet's status in the page (`window.t.wallet`). */
export async function walletStatus(tab: Tab): Promise<string> {
  return (await tab.evaluate(walletState)).status;
}

/** Types `code` in the frame's code entry and submits it (trusted input). */
export async function typeCode(tab: Tab, code: string): Promise<void> {
  await shown(signerIn(tab), 'signer-otp-input');
  await signerIn(tab).fill('signer-otp-input', code);
  await signerIn(tab).click('signer-otp-submit');
}

/** The outcome the page keeps in `window.t[key]` (a promise of `{ ok, ... }`). */
export function outcome<T = { ok: boolean; code?: string }>(tab: Tab, key: 'verifying' | 'update'): Promise<T> {
  return tab.evaluate((k) => window.t[k] as Promise<T>, key);
}

/** A new customer with a wallet in frame mode, logged in by a code typed in the frame; resolves to its account. */
export async function loggedInCustomer(tab: Tab, stack: FrameStack): Promise<string> {
  const accountId = await newCustomer(tab, stack);
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  return accountId;
}

/** Whether the guarded button `testId` ("Approve", "Reveal", "Copy") can be pressed now (armed: approve-guard.ts) and the pointer resting on it counts. */
function guardState(testId: string): { armed: boolean; rested: boolean } {
  const button = document.querySelector(`[data-testid="${testId}"]`) as HTMLButtonElement | null;
  return { armed: button !== null && !button.disabled, rested: button?.dataset.pointer === 'rested' };
}

/**
 * Approves as a person does, where this engine asks: in the frame, or — where the frame shows "Open
 * the approval window" (no IntersectionObserver v2: Firefox, WebKit; or a kind the host marks
 * high-value) — in the window of the signer origin that a click in the frame opens. Waits until
 * "Approve" can be pressed (armed), moves the pointer onto it, waits until the resting pointer
 * counts, clicks (trusted input). Each wait is on the button's own state. Resolves to where it
 * approved.
 */
export async function approveIn(tab: Tab): Promise<'frame' | 'popup'> {
  const frame = signerIn(tab);
  await expect.poll(async () => (await visibleIn(frame, 'signer-approve')) || (await visibleIn(frame, 'signer-open-popup')), { message: 'a prompt in the frame', timeout: 15_000 }).toBe(true);
  if (!(await visibleIn(frame, 'signer-open-popup'))) {
    await approveOn(frame);
    return 'frame';
  }
  await approveOn(await openApprovalWindow(tab));
  return 'popup';
}

/** The user's click on "Open the approval window" in the frame; resolves to the window once it shows the prompt. */
export async function openApprovalWindow(tab: Tab): Promise<Popup> {
  const popup = await tab.popup(() => signerIn(tab).click('signer-open-popup'));
  await shown(popup, 'signer-approval');
  return popup;
}

/**
 * Scrolls the button into view, as a person does when a prompt is taller than the frame (a payment's
 * words with its retry key): it arms only while wholly visible.
 */
async function scrolledTo(scope: Scope, testId: string): Promise<void> {
  await scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.scrollIntoView({ block: 'nearest' }), testId);
}

/** Presses "Approve" in `scope` (the frame or the approval window) as a person does. */
export async function approveOn(scope: Scope): Promise<void> {
  await pressOn(scope, 'signer-approve');
}

/** Presses the guarded button `testId` in `scope` as a person does: waits until armed, hovers, waits until the rest counts, clicks. */
export async function pressOn(scope: Scope, testId: string): Promise<void> {
  await shown(scope, testId);
  await scrolledTo(scope, testId);
  await expect.poll(async () => (await scope.evaluate(guardState, testId).catch(() => undefined))?.armed, { message: `${testId} armed`, timeout: 15_000 }).toBe(true);
  await scope.hover(testId);
  await expect.poll(async () => (await scope.evaluate(guardState, testId).catch(() => undefined))?.rested, { message: `pointer rested on ${testId}`, timeout: 15_000 }).toBe(true);
  await scope.click(testId);
}

/** Waits until "Approve" in `scope` (the frame or the approval window) is shown and can be pressed. */
export async function untilArmed(scope: Scope): Promise<void> {
  await shown(scope, 'signer-approve');
  await scrolledTo(scope, 'signer-approve');
  await expect.poll(async () => (await scope.evaluate(guardState, 'signer-approve').catch(() => undefined))?.armed, { message: 'Approve armed', timeout: 15_000 }).toBe(true);
}
