/**
 * The journeys of e2e/ (01-… to 15-…) in frame mode (issue 32: every journey in both modes): the
 * demo stack with its signer page on a second port of localhost (e2e/global-setup-frame.ts), the
 * fixtures' `mode` option set to `frame` (e2e/fixtures.ts: codes typed in the frame, signatures
 * approved by a click in the frame, passkey ceremonies there, legs read off the frame's network).
 * Chromium with third-party storage partitioning ON, as users have it, and its canary
 * (e2e/frame/00-partitioning.spec.ts) in the same run. In-origin mode is playwright.config.ts.
 * A journey that cannot exist in frame mode skips itself there, naming the property that rules it out.
 */
import { defineConfig, devices } from '@playwright/test';
import { partitionedLaunchOptions } from './scripts/chromium.mjs';
import type { DemoMode } from './e2e/fixtures.js';

export default defineConfig<{ mode: DemoMode }>({
  testDir: 'e2e',
  // The journeys that run in frame mode so far, and the canary. Not yet adapted: 07, 10, 13, 14,
  // 15 (they read the app origin's Web Locks and IndexedDB, which in frame mode are the signer's)
  // and 09 (its wait for the network to go idle after the login timed out in frame mode, 20 s;
  // the cause is not found yet).
  testMatch: /e2e\/((0[1-6]|08|1[12])-[^/]+|frame\/00-partitioning)\.spec\.ts$/,
  outputDir: 'e2e/artifacts/modes',
  globalSetup: './e2e/global-setup-frame.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: {
    ...devices['Desktop Chrome'],
    headless: true,
    launchOptions: partitionedLaunchOptions(),
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    actionTimeout: 15_000,
    navigationTimeout: 20_000,
  },
  projects: [{ name: 'chromium-frame', use: { browserName: 'chromium', mode: 'frame' } }],
});
