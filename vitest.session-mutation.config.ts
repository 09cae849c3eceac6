// The Vitest config StrykerJS runs (stryker.session.config.mjs). By default the fast defenders of the
// session layer and the signed-retry engine: the model test (200 runs per mutant; the full 1000 are
// `npm run test:unit`), the unit, state and fallback tests, the session store's model
// (test/react/store.test.ts) and the transport's signed tests (a fake server).
// MUTATION_TESTS=all adds the suites against the in-process sandbox (signing, manager, cross-tab,
// bounded, wake, import): about 25 s for all of them once, but 3-8 s per mutant against about 1 s
// (each run imports them and starts their sandboxes), so only the files the fast set cannot reach
// run with them (stryker.session-sandbox.config.mjs). MUTATION_TESTS=transport is the set for
// signed.ts alone.
import { defineConfig } from 'vitest/config';

const fast = ['test/session/model.test.ts', 'test/session/manager-api.test.ts', 'test/session/follow.test.ts', 'test/session/refusal.test.ts', 'test/session/signer-pick.test.ts', 'test/session/load.test.ts', 'test/session/view.test.ts', 'test/session/schedule.test.ts', 'test/session/channel.test.ts', 'test/session/records.test.ts', 'test/react/store.test.ts', 'test/session/state.test.ts', 'test/session/units.test.ts', 'test/session/fallback.test.ts', 'test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts'];
const all = ['test/session/**/*.test.ts', 'test/react/store.test.ts', 'test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts'];
// For signed.ts alone: its own tests, the sandbox's, and the property test of generated challenge bodies.
const transport = ['test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts', 'test/robustness/transport-bodies.property.test.ts'];

/** The Vitest config of one set; the default export is the one MUTATION_TESTS names (fast by default). */
export function sessionMutationConfig(set: string | undefined) {
  return defineConfig({
    test: {
      environment: 'node',
      include: set === 'all' ? all : set === 'transport' ? transport : fast,
      exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
      env: { SESSION_MODEL_RUNS: '200' },
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  });
}

export default sessionMutationConfig(process.env.MUTATION_TESTS);
