// The Vitest config StrykerJS runs (stryker.session.config.mjs). By default the fast defenders of the
// session layer and the signed-retry engine: the model test (200 runs per mutant; the full 1000 are
// `npm run test:unit`), the unit, state and fallback tests, the fast tests of single files (refusal,
// signer-pick, load, view, schedule, channel, records, state, operations, store, changes, refresher,
// sign-out-others, signed-call, service, migrate, glue, lease locks, critical section, host, manager, follow, ending, ends, held, arguments, kept-signer, storage-back), the session store's model (test/react/store.test.ts)
// and the transport's signed tests (a fake server).
// MUTATION_TESTS=all adds the suites against the in-process sandbox (signing, manager, cross-tab,
// bounded, wake, import): 3-8 s per mutant against about 1 s, for a file the fast set cannot reach.
// MUTATION_TESTS=transport is the set for signed.ts alone.
import { defineConfig } from 'vitest/config';

const fast = [
  'test/session/model.test.ts',
  'test/session/refusal.test.ts',
  'test/session/signer-pick.test.ts',
  'test/session/load.test.ts',
  'test/session/view.test.ts',
  'test/session/schedule.test.ts',
  'test/session/channel.test.ts',
  'test/session/records.test.ts',
  'test/react/store.test.ts',
  'test/session/state.test.ts',
  'test/session/state-records.test.ts',
  'test/session/operations-edges.test.ts',
  'test/session/store-edges.test.ts',
  'test/session/units.test.ts',
  'test/session/fallback.test.ts',
  'test/transport/signed.test.ts',
  'test/transport/signed-engine.test.ts',
  'test/session/commit.test.ts',
  'test/session/refresh.test.ts',
  'test/session/refresher.test.ts',
  'test/session/sign-out-others.test.ts',
  'test/session/signed-call.test.ts',
  'test/session/service.test.ts',
  'test/session/migrate.test.ts',
  'test/session/glue.test.ts',
  'test/session/lease-lock.test.ts',
  'test/session/critical-section.test.ts',
  'test/session/host.test.ts',
  'test/session/manager-api.test.ts',
  'test/session/follow.test.ts',
  'test/session/ending.test.ts',
  'test/session/ends.test.ts',
  'test/session/held.test.ts',
  'test/session/held-oracle.test.ts',
  'test/session/arguments.test.ts',
  'test/session/kept-signer.test.ts',
  'test/session/storage-back.test.ts',
];
const all = ['test/session/**/*.test.ts', 'test/react/store.test.ts', 'test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts'];
// For signed.ts alone: its own tests, the sandbox's, and the property test of generated challenge bodies.
const transport = ['test/transport/signed.test.ts', 'test/transport/signed-engine.test.ts', 'test/transport/sandbox.test.ts', 'test/robustness/transport-bodies.property.test.ts'];

/** The Vitest config of one set; the default export is the one MUTATION_TESTS names (fast by default). */
export function sessionMutationConfig(set: string | undefined) {
  return defineConfig({
    test: {
      environment: 'node',
      include: process.env.MUTATION_INCLUDE?.split(',') ?? (set === 'all' ? all : set === 'transport' ? transport : fast),
      exclude: ['test/**/*.browser.test.ts', 'node_modules/**', ...(process.env.MUTATION_EXCLUDE?.split(',') ?? [])],
      env: { SESSION_MODEL_RUNS: process.env.MUTATION_MODEL_RUNS ?? '200' },
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  });
}

export default sessionMutationConfig(process.env.MUTATION_TESTS);
