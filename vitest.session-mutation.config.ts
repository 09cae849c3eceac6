// The Vitest config StrykerJS runs (stryker.session.config.mjs). By default the fast defenders of the
// session layer and the signed-retry engine: the model test (200 runs per mutant; the full 1000 are
// `npm run test:unit`), the unit and fallback tests, and the transport's signed tests (a fake
// server). MUTATION_TESTS=all adds the suites against the in-process sandbox (about five times slower
// per mutant: each file starts a sandbox); MUTATION_TESTS=transport is the set for signed.ts alone.
import { defineConfig } from 'vitest/config';

const fast = ['test/session/model.test.ts', 'test/session/state.test.ts', 'test/session/units.test.ts', 'test/session/fallback.test.ts', 'test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts'];
const all = ['test/session/**/*.test.ts', 'test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts'];
// For signed.ts alone: its own tests, the sandbox's, and the property test of generated challenge bodies.
const transport = ['test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts', 'test/robustness/transport-bodies.property.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    include: process.env.MUTATION_TESTS === 'all' ? all : process.env.MUTATION_TESTS === 'transport' ? transport : fast,
    exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
    env: { SESSION_MODEL_RUNS: '200' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
