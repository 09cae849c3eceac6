// Vitest config of the mutation run on src/proxy/signer-origin.ts (stryker.signer-origin.config.mjs).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/proxy/signer-origin.test.ts', 'test/signer/config-cors.test.ts'],
    testTimeout: 60_000,
  },
});
