/**
 * Frame-mode suite (e2e/frame/): the signer frame on its own origin, the app on another (same site:
 * two ports of localhost) and on another site (127.0.0.1). Each spec file starts its own stack
 * (e2e/frame/stack.ts) and stops it.
 *
 * Chromium runs with third-party storage partitioning ON, as users have it: Playwright turns it off
 * by default (playwright issue 32230); scripts/chromium.mjs's `partitionedLaunchOptions` turns it
 * back on, and e2e/frame/00-partitioning.spec.ts fails when it is off. e2e/frame/portable/ runs in
 * Chromium (partitioning on), Firefox ESR and WebKitGTK through e2e/drivers/, with the same canary.
 */
import { defineConfig } from '@playwright/test';
import { browserUse, oneAtATime } from './e2e/suite-config.js';
import { partitionedLaunchOptions } from './scripts/chromium.mjs';
import { selectedEngines, type Engine } from './scripts/engines/engines.js';

// Chromium runs every spec; Firefox ESR and WebKitGTK (which partition third-party storage by
// default) run e2e/frame/portable/, written against the driver of e2e/drivers/. TEST_ENGINES narrows.
const projects = {
  chromium: { name: 'chromium', use: { browserName: 'chromium', engine: 'chromium' } },
  firefox: { name: 'firefox', testMatch: 'portable/**/*.spec.ts', use: { engine: 'firefox' } },
  webkit: { name: 'webkit', testMatch: 'portable/**/*.spec.ts', use: { engine: 'webkit' } },
} as const;

export default defineConfig<object, { engine: Engine }>({
  testDir: 'e2e/frame',
  testMatch: '**/*.spec.ts',
  outputDir: 'e2e/artifacts/frame',
  // The prompts' pictures (e2e/frame/portable/06-prompts.spec.ts), kept as the documentation's.
  snapshotPathTemplate: 'docs/prompts/{projectName}/{arg}{ext}',
  ...oneAtATime,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: browserUse(partitionedLaunchOptions(), { actionMs: 15_000, navigationMs: 20_000 }, 'none'),
  projects: selectedEngines().map((engine) => projects[engine]),
});
