import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { launchOptions } from './scripts/chromium.mjs';

// One config for the test projects. `node`: unit and integration tests (crypto against the
// vectors, sandbox over HTTP, flows against the in-process sandbox). `browser`: the same kind of
// test inside real Chromium (files named *.browser.test.ts). The demo has its own config in demo/.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
          testTimeout: 30_000,
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
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: launchOptions() }),
            instances: [{ browser: 'chromium' }],
            screenshotFailures: false,
          },
        },
      },
    ],
  },
});
