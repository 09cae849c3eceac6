// Vitest config for the mutation run of the React entry's signature queue and the session store
// (stryker.react.config.json): only their Node suites.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/react/signatures.test.ts', 'test/react/store.test.ts', 'test/react/ssr.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
