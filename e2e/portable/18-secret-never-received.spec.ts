/**
 * Journey 18, in every engine and both modes: the platform secret never reaches the browser. During
 * a journey that touches each kind of call (the app's pages and scripts, the demo backend, the proxy,
 * the sandbox's sign-in page on another origin, an error answer of the proxy), what the browser
 * receives is searched for the secret, the `Authorization: Basic` token the proxy adds upstream and
 * the secret's base64 and URL encodings; the requests it sends must carry none of them, nor any
 * Basic authorization. In frame mode the signer frame, its approval windows and their calls are
 * searched too. The search must have covered documents (the sign-in page among them), scripts and
 * fetches.
 *
 * How each engine observes, and what it does not see (e2e/portable/received-bytes.ts):
 * - Chromium (Playwright) and Firefox ESR (puppeteer-core, WebDriver BiDi network events and data
 *   collectors): every answer's headers and body as received, every request's headers and body, of
 *   every page and frame of the device (Firefox: a window from when puppeteer reports it).
 * - WebKitGTK (WebDriver classic, no network events): each document's own record of its `fetch`
 *   calls (request and answer, headers a script can read, bodies), put first into every document
 *   the demo stack serves (the device's init script), and its Resource Timing entries, whose URLs
 *   (documents, scripts, styles) are fetched again by the test from the same server and searched;
 *   the sandbox's sign-in page is read as shown (URL, DOM, resources). Not seen there: redirect
 *   answers, headers hidden from scripts (`Set-Cookie`, cookies sent, a cross-origin answer's
 *   headers that CORS does not expose), non-`fetch` requests.
 */
import type { Scope, Tab } from '../drivers/driver.js';
import { shown, signerIn } from '../frame/portable/signer-steps.js';
import { approvePrompt, approveUntil, expect, isVisible, loggedLegs, newLoggedInCustomer, signPrivateToggle, test, textOf, visible } from './fixtures.js';
import { addSmsCredential, credentialNicknames, logout } from './journey-steps.js';
import { inFrameMode, walletScope } from './modes.js';
import { leaksIn, watchReceived, type ReceivedWatch } from './received-bytes.js';

/** The secret and what would carry it: the Basic token, its base64 and URL encodings. */
function needles(): string[] {
  const clientId = process.env.E2E_CLIENT_ID;
  const secret = process.env.E2E_CLIENT_SECRET;
  if (!clientId || !secret) throw new Error('E2E_CLIENT_ID / E2E_CLIENT_SECRET are not set (e2e/global-setup.ts)');
  return [secret, Buffer.from(`${clientId}:${secret}`).toString('base64'), Buffer.from(secret).toString('base64'), encodeURIComponent(secret)];
}

/** Adds the OAuth identity through the sandbox's sign-in page (another origin), read there as shown. */
async function addOAuth(tab: Tab, watch: ReceivedWatch): Promise<void> {
  await expect.poll(() => tab.evaluate(() => (document.querySelector('[data-testid="add-oauth"]') as HTMLButtonElement | null)?.disabled)).toBe(false);
  await tab.click('add-oauth');
  // The page is navigating meanwhile: a read that the navigation cut short is read again.
  await expect.poll(() => tab.evaluate(() => location.pathname).catch(() => ''), { timeout: 30_000 }).toMatch(/\/sandbox\/oauth\/authorize$/);
  await visible(tab, 'sandbox-sign-in');
  await watch.readShownPage();
  await tab.click('sandbox-sign-in');
  if (inFrameMode(tab)) await approvePrompt(tab);
  await expect.poll(() => credentialNicknames(tab, 'OAUTH'), { timeout: 30_000 }).toHaveLength(1);
}

/** Fund, transfer, card and delegated key, export: every signed action of the Actions screen. */
async function actions(tab: Tab): Promise<void> {
  await tab.click('nav-actions');
  await tab.click('fund-submit');
  await expect.poll(() => textOf(tab, 'fund-status')).toContain('Added');
  await expect.poll(() => tab.evaluate(() => document.querySelectorAll('[data-testid="transfer-payee"] option').length)).toBeGreaterThan(0);
  await tab.click('transfer-submit');
  await approveUntil(tab, async () => (await textOf(tab, 'transfer-result')).includes('Sent'));
  await tab.click('card-create');
  await expect.poll(() => textOf(tab, 'card-result')).toContain('Card ••••');
  await expect.poll(() => tab.evaluate(() => (document.querySelector('[data-testid="delegated-create"]') as HTMLButtonElement | null)?.disabled)).toBe(false);
  await tab.click('delegated-create');
  if (inFrameMode(tab)) {
    await approvePrompt(tab);
    await expect.poll(async () => (await loggedLegs(tab, 'POST', '/auth/delegated-keys$')).filter((l) => l.leg === '2' && l.status === '202')).toHaveLength(1);
    await approvePrompt(tab);
  }
  await expect.poll(() => textOf(tab, 'delegated-result')).toContain('ACTIVE');
  await tab.click('export-reveal');
  if (inFrameMode(tab)) {
    await approvePrompt(tab);
    // Shown in the signer frame; the app's page is told that it was shown (THREAT-MODEL P2).
    await shown(signerIn(tab), 'signer-phrase');
    await signerIn(tab).click('signer-phrase-close');
    await expect.poll(() => textOf(tab, 'export-status')).toContain('shown in the wallet window');
  } else await expect.poll(() => isVisible(tab, 'mnemonic')).toBe(true);
}

test('18 · the platform secret appears in no page, script or response the browser receives', async ({ openDevice }) => {
  // A login, two credentials (one through a full-page round trip), five signed actions, a refresh
  // and a logout, each approved in frame mode: far beyond a journey's default time in Firefox and
  // WebKit on a shared machine.
  test.setTimeout(400_000);
  const searched = needles();
  const tab = await (await openDevice()).newTab();
  // WebKit reads its records in a document of each origin: the app's, and in frame mode the signer's.
  const origins = async (): Promise<Scope[]> => (inFrameMode(tab) ? [tab, await walletScope(tab)] : [tab]);
  const watch = await watchReceived(tab, origins);

  await newLoggedInCustomer(tab);
  await signPrivateToggle(tab);
  await addSmsCredential(tab);
  await expect.poll(() => credentialNicknames(tab, 'SMS_OTP')).toHaveLength(1);
  await addOAuth(tab, watch);
  await actions(tab);
  // Home: refresh, sessions, logout.
  await tab.click('nav-home');
  await tab.click('session-refresh');
  await expect.poll(() => textOf(tab, 'home-status')).toContain('New session');
  await tab.click('sessions-list');
  await visible(tab, 'sessions-count');
  await logout(tab);
  // An error answer too (the proxy's own 404 for a route it does not allow).
  const refused = await tab.evaluate(async () => {
    const answer = await fetch('/api/customers');
    return { status: answer.status, code: ((await answer.json()) as { code?: unknown }).code };
  });
  expect(refused.status).toBe(404);
  expect(typeof refused.code).toBe('string');

  const observed = await watch.collect();
  expect(observed.unread).toEqual([]);
  expect(leaksIn(observed, searched)).toEqual([]);
  // The search covered every kind of answer: documents (the app and the sign-in page), scripts, API calls.
  const count = (kind: string) => observed.received.filter((r) => r.kind === kind).length;
  test.info().annotations.push({ type: 'searched', description: `${count('document')} documents, ${count('script')} scripts, ${count('fetch')} fetches, ${observed.received.length} answers, ${observed.sent.length} requests` });
  expect(count('document')).toBeGreaterThanOrEqual(3);
  expect(count('script')).toBeGreaterThan(20);
  expect(count('fetch')).toBeGreaterThan(30);
  const paths = observed.received.map((r) => new URL(r.url));
  // Bodies were read: every document and script answered 200 had one.
  expect(observed.received.filter((r) => (r.kind === 'document' || r.kind === 'script') && r.status === 200 && r.body === 0).map((r) => r.url)).toEqual([]);
  expect(paths.some((u) => u.pathname.endsWith('/sandbox/oauth/authorize'))).toBe(true);
  expect(observed.received.some((r) => r.kind === 'fetch' && new URL(r.url).pathname === '/api/customers')).toBe(true);
  if (inFrameMode(tab)) {
    // The signer's page and its own calls were searched too.
    const signer = new URL(await (await walletScope(tab)).evaluate(() => location.href)).origin;
    expect(observed.received.filter((r) => r.kind === 'document' && new URL(r.url).origin === signer).length).toBeGreaterThan(0);
  }
});
