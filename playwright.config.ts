/**
 * End-to-end suite (e2e/): the demo app in real Chromium, through the demo's proxy, against the
 * local sandbox. One demo stack for the whole run (e2e/global-setup.ts); every test opens its own
 * browser context and creates its own demo customer.
 *
 * Projects: `chromium` runs every journey; `firefox` (Firefox ESR) and `webkit` (WebKitGTK) run the
 * journeys of e2e/portable/, written against the driver of e2e/drivers/ so that one file runs in
 * every engine (the others use Chromium-only tools: request interception, real offline emulation).
 * TEST_ENGINES=chromium,firefox narrows a run.
 *
 * One worker: the sandbox clock is shared by every test of the stack, and several journeys move it
 * (refresh, expiry, two tabs), so tests run one after another.
 */
import { defineConfig } from '@playwright/test';
import { browserUse, oneAtATime } from './e2e/suite-config.js';
import { launchOptions } from './scripts/chromium.mjs';
import { selectedEngines, type Engine } from './scripts/engines/engines.js';

const projects = {
  chromium: { name: 'chromium', use: { browserName: 'chromium', engine: 'chromium' } },
  // Firefox ESR and WebKitGTK through their drivers take two to three times Chromium's time on a busy
  // machine (at load 22 WebKitGTK's journeys 25, 26, 35 and 36 ran out of 45 s, and a second tab's
  // home screen, journey 24, out of the 10 s wait for it): bounds on waits for states, not speeds.
  firefox: { name: 'firefox', testMatch: 'portable/**/*.spec.ts', timeout: 120_000, expect: { timeout: 30_000 }, use: { engine: 'firefox' } },
  webkit: { name: 'webkit', testMatch: 'portable/**/*.spec.ts', timeout: 120_000, expect: { timeout: 30_000 }, use: { engine: 'webkit' } },
} as const;

export default defineConfig<object, { engine: Engine }>({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  // Frame mode has its own config (playwright.frame.config.ts: partitioning on, its own stacks).
  testIgnore: 'frame/**',
  // Its own folder: Playwright empties the output folder at start, and the other configs' are beside it.
  outputDir: 'e2e/artifacts/in-origin',
  globalSetup: './e2e/global-setup.ts',
  ...oneAtATime,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  use: browserUse(launchOptions(), { actionMs: 10_000, navigationMs: 15_000 }),
  projects: selectedEngines().map((engine) => projects[engine]),
});
