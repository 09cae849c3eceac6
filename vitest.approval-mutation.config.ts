// Vitest config of the approval rules' mutation run (stryker.approval.config.mjs): the route and
// deadline tests (approval-deadline.test.ts: the quote's and the challenge's expiry on the service's
// clock), the policy's, the approve guard's (no browser, no sandbox).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/signer/approval-route.test.ts', 'test/signer/approval.test.ts', 'test/signer/approval-deadline.test.ts', 'test/signer/approval-answers.test.ts', 'test/signer/approve-guard.test.ts'],
    testTimeout: 60_000,
  },
});
