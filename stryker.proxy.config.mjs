// `npm run mutate:proxy`: StrykerJS on the proxy's scoping and ownership code (src/proxy/scope.ts,
// ownership.ts, owners.ts, routes.ts) with only the proxy's node tests (vitest.proxy-mutation.config.ts).
// TypeScript 7 has no JS API, so no type checker: `tsconfigFile` names a file that does not exist.
// CPU is shared: concurrency 1. Results: reports/mutation/proxy.{json,html}; summary in test/proxy/MUTATION.md.
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.proxy-mutation.config.ts' },
  mutate: ['src/proxy/scope.ts', 'src/proxy/error-answer.ts', 'src/proxy/idempotency-key.ts', 'src/proxy/ownership.ts', 'src/proxy/owners.ts', 'src/proxy/routes.ts', 'src/proxy/narrowed-list.ts', 'src/proxy/contact.ts', 'src/proxy/contact-decoy.ts'],
  tsconfigFile: 'tsconfig.stryker-none.json',
  checkers: [],
  concurrency: 1,
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants: the route table's literals, BODY_ID_FIELDS, the lookup
  // table) would each rerun every test file (Stryker estimated 62% of the time for 39% of the
  // mutants): not run here. The route table's literals are pinned by test/proxy/routes-readme.test.ts
  // (the README's table is generated from it) and exercised by the leak property.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/mutation/proxy-incremental.json',
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/proxy.json' },
  htmlReporter: { fileName: 'reports/mutation/proxy.html' },
  tempDirName: '.stryker-tmp-proxy',
  cleanTempDir: true,
};
