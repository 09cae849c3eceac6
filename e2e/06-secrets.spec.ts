/**
 * Journey 18: the platform secret never reaches the browser. Every response the browser receives
 * during a journey that touches each kind of call (pages, scripts, the demo backend, the proxy, the
 * sandbox's sign-in page) is recorded, and its headers and body are searched for the secret and
 * for the `Authorization: Basic` token the proxy adds upstream. The browser's own requests must
 * not carry them either. Both modes: in frame mode the signer page and its own calls are searched too.
 */
import type { Page, Response } from '@playwright/test';
import { approve, approveDelegatedKey, autoApprove, byTest, credentialRows, expect, newLoggedInCustomer, OTP, signerFrame, signPrivateToggle, test, typeCodeInFrame } from './fixtures.js';

test('18 · the platform secret appears in no page, script or response the browser receives', async ({ page, context, mode }) => {
  const clientId = process.env.E2E_CLIENT_ID;
  const secret = process.env.E2E_CLIENT_SECRET;
  if (!clientId || !secret) throw new Error('E2E_CLIENT_ID / E2E_CLIENT_SECRET are not set (e2e/global-setup.ts)');
  const basic = Buffer.from(`${clientId}:${secret}`).toString('base64');
  const needles = [secret, basic, Buffer.from(secret).toString('base64'), encodeURIComponent(secret)];

  const leaks: string[] = [];
  const unread: string[] = [];
  const kinds = new Map<string, number>();
  const scans: Promise<void>[] = [];
  const urls: string[] = [];
  // Each answer is read as it arrives (a navigation would drop the previous document's bodies).
  const scan = async (r: Response): Promise<void> => {
    const kind = r.request().resourceType();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    urls.push(r.url());
    let body = '';
    const redirect = r.status() >= 300 && r.status() < 400;
    if (!redirect) {
      // A body the page never finished reading would wait forever: give up on it (and fail) after 10 s.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('body not received in 10 s')), 10_000)));
      try {
        body = (await Promise.race([r.body(), late])).toString('utf8');
      } catch (e) {
        unread.push(`${r.status()} ${r.request().method()} ${r.url()}: ${String(e)}`);
      } finally {
        clearTimeout(timer);
      }
    }
    const text = JSON.stringify(await r.allHeaders()) + body;
    if (needles.some((n) => text.includes(n))) leaks.push(`response ${r.status()} ${r.url()}`);
  };
  const watch = (p: Page) => p.on('response', (r) => scans.push(scan(r)));
  context.pages().forEach(watch);
  context.on('page', watch);
  context.on('request', (r) => {
    const sent = JSON.stringify(r.headers()) + (r.postData() ?? '');
    if (needles.some((n) => sent.includes(n)) || /basic /i.test(r.headers()['authorization'] ?? '')) leaks.push(`request ${r.method()} ${r.url()}`);
  });

  await autoApprove(context);
  await newLoggedInCustomer(page);
  await signPrivateToggle(page);
  // Credentials: SMS code, and OAuth through the sandbox's sign-in page (another origin).
  await byTest(page, 'nav-credentials').click();
  await byTest(page, 'add-sms').click();
  if (mode === 'frame') {
    await approve(page);
    await typeCodeInFrame(page, OTP);
  } else {
    await byTest(page, 'add-sms-code').fill(OTP);
    await byTest(page, 'add-sms-verify').click();
  }
  await expect(credentialRows(page, 'SMS_OTP')).toHaveCount(1);
  await byTest(page, 'add-oauth').click();
  await page.locator('#sandbox-sign-in').click();
  await approve(page);
  await expect(credentialRows(page, 'OAUTH')).toHaveCount(1);
  // Actions: fund, transfer, card + delegated key, export.
  await byTest(page, 'nav-actions').click();
  await byTest(page, 'fund-submit').click();
  await expect(byTest(page, 'fund-status')).toContainText('Added');
  await byTest(page, 'transfer-submit').click();
  await approve(page);
  await expect(byTest(page, 'transfer-result')).toContainText('Sent');
  await byTest(page, 'card-create').click();
  await expect(byTest(page, 'card-result')).toContainText('Card ••••');
  await byTest(page, 'delegated-create').click();
  await approveDelegatedKey(page);
  await expect(byTest(page, 'delegated-result')).toContainText('ACTIVE');
  await byTest(page, 'export-reveal').click();
  await approve(page);
  if (mode === 'frame') {
    // Shown in the signer frame; the app's page is told that it was shown (THREAT-MODEL P2).
    await signerFrame(page).getByRole('button', { name: 'Done' }).click();
    await expect(byTest(page, 'export-status')).toContainText('shown in the wallet window');
  } else await expect(byTest(page, 'mnemonic')).toBeVisible();
  // Home: refresh, sessions, logout.
  await byTest(page, 'nav-home').click();
  await byTest(page, 'session-refresh').click();
  await expect(byTest(page, 'home-status')).toContainText('New session');
  await byTest(page, 'sessions-list').click();
  await expect(byTest(page, 'sessions-count')).toBeVisible();
  await byTest(page, 'logout').click();
  await expect(byTest(page, 'screen-login')).toBeVisible();
  // An error answer too (the proxy's own 404 for a route it does not allow).
  const refused = await page.evaluate(async () => {
    const answer = await fetch('/api/customers');
    return { status: answer.status, body: (await answer.json()) as { code?: unknown } };
  });
  expect(refused.status).toBe(404);
  expect(typeof refused.body.code).toBe('string');

  await Promise.all(scans);
  expect(unread).toEqual([]);
  expect(leaks).toEqual([]);
  // The search covered every kind of answer: documents (the app and the sign-in page), scripts, API calls.
  expect(kinds.get('document') ?? 0).toBeGreaterThanOrEqual(3);
  expect(kinds.get('script') ?? 0).toBeGreaterThan(20);
  expect(kinds.get('fetch') ?? 0).toBeGreaterThan(30);
  expect(urls.some((u) => new URL(u).pathname.endsWith('/sandbox/oauth/authorize'))).toBe(true);
});
