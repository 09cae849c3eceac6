// StrykerJS over the session layer and the signed-retry engine (issue 22): `npm run mutate:session`
// runs this config, then stryker.session-sandbox.config.mjs. Mutants here are killed by the fast
// defenders (vitest.session-mutation.config.ts: the model test, unit/state/fallback tests, the
// store's model, the transport's signed tests); the files only the suites against the in-process
// sandbox reach are in the other config. TypeScript 7 has no JS API: tsconfigFile names a file that
// does not exist, so Stryker's TypeScript checker and tsconfig rewriting stay off.
// Narrow with `--mutate src/session/state.ts` for a quick run; `--force` ignores the incremental file.

/**
 * Reached only through the sandbox suites (or, for page-events.ts, real browsers). host.ts left this
 * list once test/session/host.test.ts covered it in node (a fake window, a fake navigator.locks).
 */
export const SANDBOX_ONLY = [
  'src/session/signed-call.ts',
  'src/session/service.ts',
  'src/session/migrate.ts',
  'src/session/context.ts',
  'src/session/page-events.ts',
  'src/session/key-plan.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.session-mutation.config.ts', related: false },
  mutate: ['src/session/**/*.ts', 'src/transport/signed.ts', '!src/session/index.ts', '!src/session/types.ts', ...SANDBOX_ONLY.map((f) => `!${f}`)],
  tsconfigFile: 'tsconfig.stryker-none.json',
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 30_000,
  // Mutants reached only outside a test (module constants, timers firing between two tests) are
  // reported as Ignored: each would rerun every test file. Mutants reached both there and inside a
  // test run with the tests that reach them.
  ignoreStatic: true,
  // Reruns only mutants whose code or covering tests changed since the last run.
  incremental: true,
  incrementalFile: 'reports/mutation/session-incremental.json',
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/session.json' },
  tempDirName: '.stryker-tmp-session',
  cleanTempDir: 'always',
};
