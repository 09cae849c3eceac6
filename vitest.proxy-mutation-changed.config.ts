// Vitest config of a reduced mutation run on issue 34's changed lines (stryker.proxy-changed.config.mjs):
// only the proxy's scripted (no sandbox) scoping tests, so that each mutant runs in about a second.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: [
      'test/proxy/scope.test.ts',
      'test/proxy/scope-edges.test.ts',
      'test/proxy/spec-shaped.test.ts',
      'test/proxy/ownership-lookups.test.ts',
      'test/proxy/ownership-failures.test.ts',
      'test/proxy/routes-readme.test.ts',
      'test/proxy/narrowed-list.test.ts',
      'test/proxy/contact-decoy.test.ts',
      'test/proxy/ownership-verdicts.test.ts',
      // Scripted too (no sandbox): without them scope.ts's lines 159 and 169 survived (MUTATION.md).
      'test/proxy/authorize.test.ts',
      'test/proxy/deny-by-default.test.ts',
    ],
    testTimeout: 60_000,
  },
});
