// The second half of `npm run mutate:session`: the session files that only the suites against the
// in-process sandbox reach (SANDBOX_ONLY), mutated with every session test
// (vitest.session-mutation-sandbox.config.ts). Slower per mutant (3-8 s: each run imports the
// sandbox suites and starts their sandboxes), so it holds only these files.
import base, { SANDBOX_ONLY } from './stryker.session.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.session-mutation-sandbox.config.ts', related: false },
  mutate: SANDBOX_ONLY,
  incrementalFile: 'reports/mutation/session-sandbox-incremental.json',
  jsonReporter: { fileName: 'reports/mutation/session-sandbox.json' },
  tempDirName: '.stryker-tmp-session-sandbox',
};
