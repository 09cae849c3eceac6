import { defineConfig } from 'vitest/config';
import type { BrowserProviderOption } from 'vitest/node';
import { playwright } from '@vitest/browser-playwright';
import { launchOptions } from './scripts/chromium.mjs';
import { EngineSummaryReporter } from './scripts/engines/engine-summary-reporter.js';
import { selectedEngines, type Engine } from './scripts/engines/engines.js';
import { firefoxBidi, webkitWebDriver } from './scripts/engines/vitest-providers.js';

// Each engine of the browser tests, with the provider that drives it (scripts/engines/).
// TEST_ENGINES=chromium,firefox narrows a run; by default all three run.
const browserInstances: Record<Engine, { browser: Engine; provider: BrowserProviderOption }> = {
  chromium: { browser: 'chromium', provider: playwright({ launchOptions: launchOptions() }) },
  firefox: { browser: 'firefox', provider: firefoxBidi() },
  webkit: { browser: 'webkit', provider: webkitWebDriver() },
};

// expect.poll gives up after 15 s, not Vitest's 1 s: a wait on a state is bounded to report a
// failure, never to assume how fast a busy machine is (issue 31; test/helpers/wait-for.ts).
const expectOptions = { poll: { timeout: 15_000 } };

// One config for the test projects. `node`: unit and integration tests (crypto against the
// vectors, sandbox over HTTP, flows against the in-process sandbox). `browser`: the same kind of
// test inside real Chromium, Firefox ESR and WebKitGTK (files named *.browser.test.ts; one project
// per engine: `browser (chromium)`, `browser (firefox)`, `browser (webkit)`). The demo has its own config in demo/.
export default defineConfig({
  test: {
    // The default report, then the counts of each project (each browser engine) and the reason of every skip.
    reporters: ['default', new EngineSummaryReporter()],
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
          testTimeout: 30_000,
          expect: expectOptions,
          hookTimeout: 30_000,
        },
      },
      {
        // The library's suites again, against the sandbox's service profile (answers carry only what
        // the service sends: src/sandbox/profile.ts). Read by startSandbox in test/flows/helpers.
        test: {
          name: 'node-service',
          environment: 'node',
          // The proxy and attack suites too (issue 34): the proxy must work against what the service sends.
          include: ['test/flows/**/*.test.ts', 'test/actions/**/*.test.ts', 'test/session/**/*.test.ts', 'test/proxy/**/*.test.ts', 'test/attack/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
          env: { SANDBOX_PROFILE: 'service' },
          testTimeout: 30_000,
          expect: expectOptions,
          hookTimeout: 30_000,
        },
      },
      {
        // The same suites against the sandbox's spec-minimal profile: every field the spec and the
        // wire reference leave optional omitted, embedded-wallet ids not shaped `<Type>:<uuid>`
        // (src/sandbox/profile.ts). The library must work with any spec-conformant answer.
        test: {
          name: 'node-spec-minimal',
          environment: 'node',
          // The proxy and attack suites too (issue 34): the proxy must work against what the service sends.
          include: ['test/flows/**/*.test.ts', 'test/actions/**/*.test.ts', 'test/session/**/*.test.ts', 'test/proxy/**/*.test.ts', 'test/attack/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
          env: { SANDBOX_PROFILE: 'spec-minimal' },
          testTimeout: 30_000,
          expect: expectOptions,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          // A sandbox behind a CORS + Basic-auth forwarder for the session tests (inject('sandboxUrl')).
          globalSetup: ['test/setup/sandbox-global.ts'],
          testTimeout: 30_000,
          expect: expectOptions,
          browser: {
            enabled: true,
            headless: true,
            instances: selectedEngines().map((engine) => browserInstances[engine]),
            screenshotFailures: false,
          },
        },
      },
    ],
  },
});
