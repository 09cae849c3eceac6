// The Vitest config StrykerJS runs (stryker.session.config.mjs): only the node tests that defend
// the session layer and the signed-retry engine, the model test at 100 runs per mutant (the full
// 1000 runs are `npm run test:unit`).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/session/**/*.test.ts', 'test/transport/signed.test.ts', 'test/transport/sandbox.test.ts'],
    exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
    env: { SESSION_MODEL_RUNS: '100' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
