// Vitest config of the proxy's mutation run (stryker.proxy.config.mjs): only the node tests of the
// proxy's scoping and ownership, the leak property at 30 × 10 requests (LEAK_RUNS) so each mutant runs in seconds.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: [
      'test/proxy/scope.test.ts',
      'test/proxy/leak.property.test.ts',
      'test/proxy/ownership.test.ts',
      'test/proxy/ownership-failures.test.ts',
      'test/proxy/ownership-lookups.test.ts',
      'test/proxy/ownership-verdicts.test.ts',
      'test/proxy/scope-edges.test.ts',
      'test/proxy/authorize.test.ts',
      'test/proxy/deny-by-default.test.ts',
      'test/proxy/routes-readme.test.ts',
      'test/proxy/allowlist.test.ts',
      'test/proxy/narrowed-list.test.ts',
      'test/proxy/spec-shaped.test.ts',
      'test/proxy/contact-decoy.test.ts',
      'test/proxy/sessions-through-proxy.test.ts',
      'test/attack/*.test.ts',
    ],
    env: { LEAK_RUNS: '30', LEAK_SEED: '23' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
