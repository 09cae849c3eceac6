/**
 * The frame journeys' steps over the portable driver (e2e/drivers/), so that one spec runs in
 * Chromium, Firefox ESR and WebKitGTK: the `openDevice` fixture (the project's engine; Chromium with
 * third-party storage partitioning on), a customer of the test app, the wallet in frame mode, and the
 * signer frame's screens, acted on with real input (trusted) events. Waiting is `expect.poll` over
 * values read in the pages.
 */
import { expect } from '@playwright/test';
import { partitionedLaunchOptions } from '../../../scripts/chromium.mjs';
import type { Device, Tab } from '../../drivers/driver.js';
import { deviceOpener, engineTest } from '../../portable/fixtures.js';
import { newEmail, OTP } from '../helpers.js';
import { makeFrameWallet, signUpInPage, startLoginInPage, walletState } from '../in-page.js';
import type { FrameStack } from '../stack.js';
import { typeCode } from './signer-steps.js';

export { expect, OTP };
export { approveArmed, approveIn, approveOn, openApprovalWindow, pressOn, shown, SIGNER_IFRAME, signerIn, textIn, typeCode, untilArmed, visibleIn } from './signer-steps.js';

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

