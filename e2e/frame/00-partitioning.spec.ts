/**
 * Canary: the frame suite runs with third-party storage partitioning ON (playwright.frame.config.ts).
 * The signer page embedded by a page of another site (127.0.0.1) writes to its localStorage; the
 * same signer origin opened top-level must not see it. With partitioning off (Playwright's
 * default) it does, and this test fails: every frame journey would then test a browser no user has.
 */
import { expect, test } from '@playwright/test';
import { embedSigner } from './helpers.js';
import { readCanary, writeCanary } from './in-page.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

test('third-party storage partitioning is on: the frame under another site has storage of its own', async ({ page, context }) => {
  await page.goto(frameStack().appPage(frameStack().crossSiteAppUrl));
  await embedSigner(page, frameStack().signerUrl);
  const embedded = page.frames().find((f) => f.url().startsWith(frameStack().signerOrigin));
  if (embedded === undefined) throw new Error('the signer frame did not load');
  const marker = `canary-${Date.now()}`;
  // Off and third-party storage blocked: reading localStorage throws (SecurityError); fail with why.
  const wrote = await embedded.evaluate(writeCanary, marker);
  expect(wrote, 'the frame under another site must have (partitioned) storage').toBe('written');
  expect(await embedded.evaluate(readCanary)).toBe(marker);

  const top = await context.newPage();
  await top.goto(frameStack().signerUrl);
  expect(await top.evaluate(readCanary)).toBeNull();
});
