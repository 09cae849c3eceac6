/**
 * End-to-end suite (e2e/): the demo app in real Chromium, through the demo's proxy, against the
 * local sandbox. One demo stack for the whole run (e2e/global-setup.ts); every test opens its own
 * browser context and creates its own demo customer.
 *
 * One worker: the sandbox clock is shared by every test of the stack, and several journeys move it
 * (refresh, expiry, two tabs), so tests run one after another.
 */
import { defineConfig, devices } from '@playwright/test';
import { launchOptions } from './scripts/chromium.mjs';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'e2e/artifacts',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  timeout: 45_000,
  expect: { timeout: 10_000 },
  use: {
    ...devices['Desktop Chrome'],
    headless: true,
    launchOptions: launchOptions(),
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    actionTimeout: 10_000,
    navigationTimeout: 15_000,
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
});
