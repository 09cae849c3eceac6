/**
 * The journeys of e2e/ (01-… to 15-…) in frame mode (issue 32: every journey in both modes): the
 * demo stack with its signer page on a second port of localhost (e2e/global-setup-frame.ts), the
 * fixtures' `mode` option set to `frame` (e2e/fixtures.ts: codes typed in the frame, signatures
 * approved by a click in the frame, passkey ceremonies there, legs read off the frame's network).
 * Chromium with third-party storage partitioning ON, as users have it, and its canary
 * (e2e/frame/00-partitioning.spec.ts) in the same run. In-origin mode is playwright.config.ts.
 * A step that cannot exist in frame mode skips itself there, naming the property of
 * src/signer/THREAT-MODEL.md that rules it out; reads of the wallet's IndexedDB, localStorage and Web
 * Locks run in the signer frame (e2e/fixtures.ts `walletFrame`), prompts are the frame's (e2e/prompts.ts).
 * Only frame mode runs here: `npm test` runs in-origin mode with playwright.config.ts (test:e2e), so
 * this config adds the frame-mode half (test:e2e:modes). Firefox ESR and WebKitGTK do not run these
 * journeys (they are written against Playwright's Chromium page; the engines' frame journeys are
 * e2e/frame/portable/, playwright.frame.config.ts).
 */
import { defineConfig } from '@playwright/test';
import { browserUse, oneAtATime } from './e2e/suite-config.js';
import { partitionedLaunchOptions } from './scripts/chromium.mjs';
import type { DemoMode } from './e2e/fixtures.js';

export default defineConfig<{ mode: DemoMode }>({
  testDir: 'e2e',
  // Every journey of e2e/ (01-… to 15-…) and the canary.
  testMatch: /e2e\/((0\d|1[0-5])-[^/]+|frame\/00-partitioning)\.spec\.ts$/,
  outputDir: 'e2e/artifacts/modes',
  globalSetup: './e2e/global-setup-frame.ts',
  ...oneAtATime,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: browserUse(partitionedLaunchOptions(), { actionMs: 15_000, navigationMs: 20_000 }),
  projects: [{ name: 'chromium-frame', use: { browserName: 'chromium', mode: 'frame' } }],
});
