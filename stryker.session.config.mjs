// StrykerJS over the session layer and the signed-retry engine (issue 22): `npm run mutate:session`.
// Mutants are killed by the session node tests and the transport's signed tests only
// (vitest.session-mutation.config.ts). TypeScript 7 has no JS API: tsconfigFile names a file that does
// not exist, so Stryker's TypeScript checker and tsconfig rewriting stay off. CPU is shared: one
// test process at a time. Narrow with `--mutate src/session/state.ts` for a quick run.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.session-mutation.config.ts', related: false },
  mutate: ['src/session/**/*.ts', 'src/transport/signed.ts', '!src/session/index.ts', '!src/session/types.ts'],
  tsconfigFile: 'tsconfig.stryker-none.json',
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/session.json' },
  tempDirName: '.stryker-tmp-session',
  cleanTempDir: 'always',
};
