/**
 * Canary: the frame suite runs with third-party storage partitioning ON (playwright.frame.config.ts).
 * The signer page embedded by a page of another site (127.0.0.1) writes to its localStorage; the
 * same signer origin opened top-level must not see it. With partitioning off (Playwright's
 * default) it does, and this test fails: every frame journey would then test a browser no user has.
 */
import { expect, test } from '@playwright/test';
import { startFrameStack, type FrameStack } from './stack.js';

let stack: FrameStack;
test.beforeAll(async () => {
  stack = await startFrameStack();
});
test.afterAll(async () => {
  await stack?.close();
});

test('third-party storage partitioning is on: the frame under another site has storage of its own', async ({ page, context }) => {
  await page.goto(stack.appPage(stack.crossSiteAppUrl));
  await page.evaluate((url) => {
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.id = 'canary';
    document.body.append(frame);
    return new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  }, stack.signerUrl);
  const embedded = page.frames().find((f) => f.url().startsWith(stack.signerOrigin));
  if (embedded === undefined) throw new Error('the signer frame did not load');
  const marker = `canary-${Date.now()}`;
  // Off and third-party storage blocked: reading localStorage throws (SecurityError); fail with why.
  const wrote = await embedded.evaluate((m) => {
    try {
      localStorage.setItem('partition-canary', m);
      return 'written';
    } catch (e) {
      return `blocked: ${String(e)}`;
    }
  }, marker);
  expect(wrote, 'the frame under another site must have (partitioned) storage').toBe('written');
  expect(await embedded.evaluate(() => localStorage.getItem('partition-canary'))).toBe(marker);

  const top = await context.newPage();
  await top.goto(stack.signerUrl);
  expect(await top.evaluate(() => localStorage.getItem('partition-canary'))).toBeNull();
});
