/**
 * The Next.js example (examples/next-app, `next start` over its build) in every engine: email-first
 * login (useOtpLogin().start({ email }), no sign-up), a signed action confirmed in the app's own UI
 * (usePendingSignature), then a second tab of the same browser: it shows the session, and a logout
 * there shows `other-tab` in the first. No uncaught error in any page (console messages are
 * checked in Chromium by e2e/11-next-app.spec.ts: WebDriver classic cannot read them).
 */
import type { Device, Tab } from '../drivers/driver.js';
import { playwrightDevice } from '../drivers/playwright.js';
import { puppeteerDevice } from '../drivers/puppeteer.js';
import { webDriverDevice } from '../drivers/webdriver.js';
import { startNextApp, type NextApp } from '../next-app-server.js';
import { expect, test, textOf, visible } from './fixtures.js';

let app: NextApp;

test.skip(({ mode }) => mode === 'frame', 'src/signer/THREAT-MODEL.md P1: the example confirms signatures in its own UI (usePendingSignature), which frame mode takes from the app');

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = await startNextApp();
});

test.afterAll(async () => {
  await app?.stop();
});

const status = (tab: Tab): Promise<string> => textOf(tab, 'wallet-status');

test('12 · the Next.js example: email-first login, a confirmed signed action, a second tab, logout elsewhere → other-tab', async ({ launched }) => {
  test.setTimeout(120_000); // a login provisions the customer too; bounded for a busy machine (50 s seen in Chromium)
  const device: Device =
    launched.engine === 'chromium'
      ? await playwrightDevice(launched.browser, app.url, async () => undefined)
      : launched.engine === 'firefox'
        ? await puppeteerDevice(launched.browser, app.url)
        : await webDriverDevice(app.url);
  const tabs: Tab[] = [];
  try {
    const a = await device.newTab();
    tabs.push(a);
    await a.goto('/');
    await expect.poll(() => status(a), { timeout: 20_000 }).toBe('Wallet: signed-out');
    await a.fill('email', `portable-${Date.now()}@example.com`);
    await a.click('send-code');
    await a.fill('code', '000000');
    await a.click('login');
    await expect.poll(() => status(a), { timeout: 20_000 }).toBe('Wallet: active');

    await a.click('private');
    await visible(a, 'confirm');
    await expect.poll(() => textOf(a, 'confirm')).toContain('update-internal-account');
    await a.click('approve');
    await expect.poll(() => textOf(a, 'result')).toBe('Private mode: on');

    const b = await device.newTab();
    tabs.push(b);
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
