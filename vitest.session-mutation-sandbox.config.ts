// What stryker.session-sandbox.config.mjs runs: every node test of the session layer, with the
// suites against the in-process sandbox (the `all` set of vitest.session-mutation.config.ts).
import { sessionMutationConfig } from './vitest.session-mutation.config.ts';

export default sessionMutationConfig('all');
