// StrykerJS over the session layer and the signed-retry engine (issue 22): `npm run mutate:session`.
// Every file is mutated against the fast defenders (vitest.session-mutation.config.ts: the model
// test, the fast tests of each file, the store's model, the transport's signed tests), about 1 s per
// mutant; the suites against the in-process sandbox cost 3-8 s per mutant and are not needed (each
// file has fast tests of its own; host.ts is reached through a fake window). TypeScript 7 has no JS
// API: tsconfigFile names a file that does not exist, so Stryker's TypeScript checker and tsconfig
// rewriting stay off.
// Narrow with `--mutate src/session/state.ts` for a quick run; `--force` ignores the incremental file.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.session-mutation.config.ts', related: false },
  mutate: ['src/session/**/*.ts', 'src/transport/signed.ts', '!src/session/index.ts', '!src/session/types.ts'],
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
