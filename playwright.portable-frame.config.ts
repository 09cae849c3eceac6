/**
 * The journeys of e2e/portable/ in frame mode (issue 32: every journey in both modes, in the three
 * engines): the demo stack with its signer page on a second port of localhost
 * (e2e/global-setup-frame.ts), the fixtures' `mode` option set to `frame` (e2e/portable/modes.ts:
 * codes typed in the frame, every signature approved there or in its approval window, the wallet's
 * storage, locks and legs read in the signer frame). Chromium runs with third-party storage
 * partitioning ON, as users have it (playwright issue 32230), with the canary
 * e2e/frame/portable/00-partitioning.spec.ts in the same run; Firefox ESR and WebKitGTK partition by
 * default (the canary checks them too). In-origin mode of the same files is playwright.config.ts.
 * A journey that cannot exist in frame mode skips itself there, naming the property of
 * src/signer/THREAT-MODEL.md that rules it out. TEST_ENGINES narrows the engines.
 *
 * One worker: the sandbox clock is shared by every test of the stack (see playwright.config.ts).
 */
import { defineConfig } from '@playwright/test';
import { browserUse, oneAtATime } from './e2e/suite-config.js';
import { partitionedLaunchOptions } from './scripts/chromium.mjs';
import { selectedEngines, type Engine } from './scripts/engines/engines.js';
import type { DemoMode } from './e2e/portable/modes.js';

type LaunchOptions = ReturnType<typeof partitionedLaunchOptions>;

const projects = {
  chromium: { name: 'chromium-frame', use: { browserName: 'chromium', engine: 'chromium', mode: 'frame', chromiumLaunch: partitionedLaunchOptions() } },
  // Firefox ESR and WebKitGTK approve every signature in a window of the signer origin (no
  // IntersectionObserver v2): a window per approval. Journey 10 (two tabs, two approvals) ran out of
  // 120 s in both at load 28 (Chromium, approving in the frame: 38 s). A wait for a state gets 30 s
  // there (the in-origin projects' reason, playwright.config.ts).
  firefox: { name: 'firefox-frame', timeout: 240_000, expect: { timeout: 30_000 }, use: { engine: 'firefox', mode: 'frame' } },
  webkit: { name: 'webkit-frame', timeout: 240_000, expect: { timeout: 30_000 }, use: { engine: 'webkit', mode: 'frame' } },
} as const;

export default defineConfig<object, { engine: Engine; mode: DemoMode; chromiumLaunch: LaunchOptions }>({
  testDir: 'e2e',
  testMatch: /e2e\/(portable|frame\/portable\/00-partitioning)[^/]*(\/[^/]+)?\.spec\.ts$/,
  outputDir: 'e2e/artifacts/portable-frame',
  globalSetup: './e2e/global-setup-frame.ts',
  ...oneAtATime,
  // Frame mode in Firefox and WebKit on a busy machine: journey 7 took 54 s in Firefox at load 20 (Chromium 20 s).
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: browserUse(partitionedLaunchOptions(), { actionMs: 15_000, navigationMs: 20_000 }),
  projects: selectedEngines().map((engine) => projects[engine]),
});
