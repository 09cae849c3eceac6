/**
 * The Next.js example (examples/next-app, `next start` over its build) in every engine and both
 * modes: email-first login (useOtpLogin().start({ email }), no sign-up), a signed action approved,
 * then a second tab of the same browser: it shows the session, and a logout there shows `other-tab`
 * in the first. In-origin the signature is confirmed in the app's own UI (usePendingSignature); in
 * frame mode (the example's signer page on another port, e2e/next-app-server.ts) the code is typed
 * and the signature approved in the signer frame (or its approval window), and the app shows no
 * confirmation of its own. No uncaught error in any page (console messages are checked in Chromium
 * by e2e/11-next-app.spec.ts: WebDriver classic cannot read them).
 */
import type { Device, Tab } from '../drivers/driver.js';
import { playwrightDevice } from '../drivers/playwright.js';
import { puppeteerDevice } from '../drivers/puppeteer.js';
import { webDriverDevice } from '../drivers/webdriver.js';
import { typeCode } from '../frame/portable/signer-steps.js';
import { startNextApp, type NextApp } from '../next-app-server.js';
import { approvePrompt, expectPrompt, expect, isVisible, OTP, test, textOf, visible } from './fixtures.js';
import { framed } from './modes.js';

let app: NextApp;

test.beforeAll(async ({ mode }) => {
  test.setTimeout(240_000);
  app = await startNextApp(mode);
});

test.afterAll(async () => {
  await app?.stop();
});

const status = (tab: Tab): Promise<string> => textOf(tab, 'wallet-status');

test('12 · the Next.js example: email-first login, a confirmed signed action, a second tab, logout elsewhere → other-tab', async ({ launched, mode }) => {
  test.setTimeout(mode === 'frame' ? 240_000 : 120_000); // a login provisions the customer too; bounded for a busy machine (50 s seen in Chromium)
  const device: Device =
    launched.engine === 'chromium'
      ? await playwrightDevice(launched.browser, app.url, async () => undefined)
      : launched.engine === 'firefox'
        ? await puppeteerDevice(launched.browser, app.url)
        : await webDriverDevice(app.url);
  const tabs: Tab[] = [];
  const newTab = async (): Promise<Tab> => {
    const tab = await device.newTab();
    tabs.push(tab);
    return mode === 'frame' ? framed(tab) : tab;
  };
  try {
    const a = await newTab();
    await a.goto('/');
    await expect.poll(() => status(a), { timeout: 20_000 }).toBe('Wallet: signed-out');
    await a.fill('email', `portable-${Date.now()}@example.com`);
    await a.click('send-code');
    if (mode === 'frame') {
      // The code is typed in the signer frame (THREAT-MODEL.md P3); the app says where.
      await visible(a, 'code-in-frame');
      expect(await isVisible(a, 'code')).toBe(false);
      await typeCode(a, OTP);
    } else {
      await a.fill('code', OTP);
      await a.click('login');
    }
    await expect.poll(() => status(a), { timeout: 20_000 }).toBe('Wallet: active');

    await a.click('private');
    if (mode === 'frame') {
      // Approved in the signer frame (THREAT-MODEL.md P1): the app has no confirmation of its own.
      expect(await textOf(a, 'approvals-in-frame')).toMatch(/approved in the wallet window/);
      await expectPrompt(a, 'update-internal-account');
      expect(await isVisible(a, 'confirm')).toBe(false);
      await approvePrompt(a);
    } else {
      await visible(a, 'confirm');
      await expect.poll(() => textOf(a, 'confirm')).toContain('update-internal-account');
      await a.click('approve');
    }
    await expect.poll(() => textOf(a, 'result')).toBe('Private mode: on');

    const b = await newTab();
    await b.goto('/');
    await expect.poll(() => status(b), { timeout: 20_000 }).toBe('Wallet: active');
    await b.click('logout');
    await expect.poll(() => status(b)).toBe('Wallet: signed-out (logout)');
    await expect.poll(() => status(a)).toBe('Wallet: signed-out (other-tab)');
    expect(tabs.flatMap((t) => t.errors())).toEqual([]);
  } finally {
    await device.close();
  }
});
