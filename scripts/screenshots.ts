/**
 * Screenshots of every demo screen in Chromium: `npx tsx scripts/screenshots.ts`.
 *
 * Starts the demo stack (sandbox + proxy + app) on free ports, walks a user's journey — sign-up,
 * a wrong and a right email code, the signing prompt, home, credentials (SMS code and a passkey on a
 * CDP virtual authenticator), actions with the request log, an error, a phone-sized view — and
 * saves PNGs to demo/screenshots/. Fails (exit 1) when a step does not show what it should.
 */
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Locator, type Page } from 'playwright';
import { startDemoStack } from '../demo/server/stack.js';
import { launchOptions } from './chromium.mjs';

const OUT = fileURLToPath(new URL('../demo/screenshots/', import.meta.url));
const saved: string[] = [];

/**
 * Saves a PNG. `fullPage`: the window is made as tall as the page for the shot (Playwright's own
 * full-page mode would paint the sticky header and log panel in the middle).
 */
async function shot(target: Page | Locator, name: string, fullPage = false): Promise<void> {
  const path = `${OUT}${name}.png`;
  if (!('goto' in target)) await target.screenshot({ path });
  else if (!fullPage) await target.screenshot({ path });
  else {
    const size = target.viewportSize() ?? { width: 1280, height: 900 };
    const height = await target.evaluate(() => document.documentElement.scrollHeight);
    await target.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
    await target.screenshot({ path });
    await target.setViewportSize(size);
  }
  saved.push(`demo/screenshots/${name}.png`);
}

const byTest = (page: Page, id: string) => page.getByTestId(id);
const credential = (page: Page, type: string) => page.locator(`[data-testid="cred-row"][data-type="${type}"]`);

/** Clicks Sign in the signing dialog if it opens (manual approval mode). */
async function approve(page: Page): Promise<void> {
  await byTest(page, 'sign-approve').click();
}

async function main(): Promise<void> {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const stack = await startDemoStack({ port: 0, sandboxPort: 0, quiet: true, watch: false });
  const browser = await chromium.launch({ ...launchOptions(), headless: true });
  const problems: string[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      // The browser also reports every 4xx it receives; the wrong code and the short balance are on purpose.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
    });

    // Start
    await page.goto(stack.url);
    await byTest(page, 'signup-submit').waitFor();
    await shot(page, '01-start');
    await byTest(page, 'signup-email').fill('ada.lovelace@example.com');
    await byTest(page, 'signup-submit').click();

    // Login: a wrong code, then the right one with the signing prompt
    await byTest(page, 'login-email-send').click();
    await byTest(page, 'otp-code').fill('123456');
    await byTest(page, 'otp-verify').click();
    await byTest(page, 'login-status').filter({ hasText: 'not right' }).waitFor();
    await shot(page, '02-login-wrong-code');
    await byTest(page, 'otp-code').fill('000000');
    await byTest(page, 'otp-verify').click();
    await byTest(page, 'sign-payload').waitFor();
    await shot(page, '03-signing-prompt');
    await approve(page);
    await byTest(page, 'screen-home').waitFor();
    await byTest(page, 'session-countdown').filter({ hasText: /^\d+:\d\d$/ }).waitFor();
    await shot(page, '04-home');

    // From here on, sign without asking (the prompt was shown above)
    await byTest(page, 'auto-approve').check();

    // Home: sessions list
    await byTest(page, 'sessions-list').click();
    await byTest(page, 'session-row').first().waitFor();

    // Credentials: add SMS, add a passkey on a virtual authenticator
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await byTest(page, 'nav-credentials').click();
    await byTest(page, 'cred-row').first().waitFor();
    await byTest(page, 'add-sms').click();
    await byTest(page, 'add-sms-code').fill('000000');
    await byTest(page, 'add-sms-verify').click();
    await credential(page, 'SMS_OTP').waitFor();
    await byTest(page, 'add-passkey').click();
    await credential(page, 'PASSKEY').waitFor();

    // Log out, log in with the passkey (challenge prepared when the screen opened)
    await byTest(page, 'nav-home').click();
    await byTest(page, 'logout').click();
    await byTest(page, 'screen-login').waitFor();
    await byTest(page, 'login-tab-passkey').click();
    await byTest(page, 'passkey-state').filter({ hasText: 'Ready' }).waitFor();
    await byTest(page, 'login-passkey').click();
    await byTest(page, 'screen-home').waitFor();
    await byTest(page, 'session-credential').filter({ hasText: 'Passkey' }).waitFor();

    // Again with the deprecated sealed-key flow (the legacy entry); the next action signs with it
    await byTest(page, 'logout').click();
    await byTest(page, 'login-tab-passkey').click();
    await byTest(page, 'login-legacy').check();
    await byTest(page, 'passkey-state').filter({ hasText: 'Ready' }).waitFor();
    await byTest(page, 'login-passkey').click();
    await byTest(page, 'screen-home').waitFor();

    // Add OAuth: a full-page round trip to the sandbox's sign-in page
    await byTest(page, 'nav-credentials').click();
    await byTest(page, 'add-oauth').click();
    await page.locator('#sandbox-sign-in').waitFor();
    await shot(page, '05-oauth-sign-in-page');
    await page.locator('#sandbox-sign-in').click();
    await credential(page, 'OAUTH').waitFor();
    await shot(page, '06-credentials', true);

    // Log out, log in with OAuth, then delete the email credential (signed by the OAuth session)
    await byTest(page, 'nav-home').click();
    await byTest(page, 'logout').click();
    await byTest(page, 'login-tab-oauth').click();
    await byTest(page, 'login-oauth').click();
    await page.locator('#sandbox-sign-in').click();
    await byTest(page, 'screen-home').waitFor();
    await byTest(page, 'session-credential').filter({ hasText: 'OAuth' }).waitFor();
    await byTest(page, 'nav-credentials').click();
    await credential(page, 'EMAIL_OTP').getByTestId('cred-delete').click();
    await byTest(page, 'cred-delete-confirm').click();
    await byTest(page, 'cred-status').filter({ hasText: 'deleted' }).waitFor();
    await credential(page, 'EMAIL_OTP').waitFor({ state: 'detached' });

    // Actions: fund, transfer, private mode, card + delegated key, export
    await byTest(page, 'nav-actions').click();
    await byTest(page, 'fund-submit').click();
    await byTest(page, 'fund-status').filter({ hasText: 'Added' }).waitFor();
    await byTest(page, 'transfer-submit').click();
    await byTest(page, 'transfer-result').filter({ hasText: 'Sent' }).waitFor();
    await byTest(page, 'private-toggle').click();
    await byTest(page, 'private-state').filter({ hasText: 'ON' }).waitFor();
    await byTest(page, 'card-create').click();
    await byTest(page, 'card-result').filter({ hasText: 'Card' }).waitFor();
    await byTest(page, 'delegated-create').click();
    await byTest(page, 'delegated-result').filter({ hasText: 'Delegated key' }).waitFor();
    await byTest(page, 'export-reveal').click();
    await byTest(page, 'mnemonic').locator('li').first().waitFor();
    await shot(page, '07-actions', true);
    await shot(page.locator('#log-panel'), '08-request-log');

    // An error a user can cause: sending more than the balance
    await byTest(page, 'transfer-amount').fill('1000000');
    await byTest(page, 'transfer-submit').click();
    await byTest(page, 'transfer-status').filter({ hasText: 'Not enough funds' }).waitFor();
    await shot(byTest(page, 'section-transfer'), '09-error-insufficient-funds');

    // Phone-sized window (same browser profile: same session)
    const phone = await context.newPage();
    phone.on('pageerror', (e) => problems.push(`phone page error: ${e.message}`));
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${stack.url}/#/home`);
    await byTest(phone, 'balance').waitFor();
    await shot(phone, '10-phone-home', true);
    await phone.goto(`${stack.url}/#/login`);
    await byTest(phone, 'login-email-send').waitFor();
    await shot(phone, '11-phone-login');
    await phone.goto(`${stack.url}/#/actions`);
    await byTest(phone, 'transfer-submit').waitFor();
    await shot(phone, '12-phone-actions', true);

    // Expiry: the sandbox clock moved past the session's end → back to login with a message
    await page.bringToFront();
    await byTest(page, 'nav-home').click();
    await byTest(page, 'clock-seconds').fill(String(20 * 60));
    await byTest(page, 'clock-advance').click();
    await byTest(page, 'login-status').filter({ hasText: 'expired' }).waitFor();
    await shot(page, '13-session-expired');

    // A browser that cannot keep keys in IndexedDB: login still works, with a visible warning
    const noIdb = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await noIdb.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true }));
    const other = await noIdb.newPage();
    other.setDefaultTimeout(15_000);
    await other.goto(stack.url);
    await byTest(other, 'signup-submit').click();
    await byTest(other, 'auto-approve').check();
    await byTest(other, 'login-email-send').click();
    await byTest(other, 'otp-code').fill('000000');
    await byTest(other, 'otp-verify').click();
    await byTest(other, 'screen-home').waitFor();
    await byTest(other, 'banner-storage-fallback').waitFor();
    await shot(other, '14-storage-fallback');
  } finally {
    await browser.close();
    await stack.close();
  }
  console.log(saved.join('\n'));
  if (problems.length > 0) {
    console.log(`\nNoticed while walking the demo:\n- ${problems.join('\n- ')}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
