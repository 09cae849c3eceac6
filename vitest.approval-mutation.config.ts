// Vitest config of the approval rules' mutation run (stryker.approval.config.mjs): the route and
// deadline tests, the policy's, the host configuration's (no browser, no sandbox).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/signer/approval-route.test.ts', 'test/signer/approval.test.ts'],
    testTimeout: 60_000,
  },
});
