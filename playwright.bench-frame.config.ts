/**
 * `npm run bench:frame`: the frame benchmark (e2e/frame/bench/frame.bench.ts) in Chromium
 * (third-party storage partitioning on), Firefox ESR and WebKitGTK; not part of `npm test`.
 * TEST_ENGINES narrows the engines.
 */
import { defineConfig } from '@playwright/test';
import { selectedEngines, type Engine } from './scripts/engines/engines.js';

export default defineConfig<object, { engine: Engine }>({
  testDir: 'e2e/frame/bench',
  testMatch: '**/*.bench.ts',
  outputDir: 'e2e/artifacts/bench-frame',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: 'list',
  timeout: 300_000,
  expect: { timeout: 30_000 },
  projects: selectedEngines().map((engine) => ({ name: engine, use: { engine } })),
});
