// A reduced `mutate:proxy` for issue 34's changed lines: the same settings as stryker.proxy.config.mjs,
// the scripted scoping tests only (vitest.proxy-mutation-changed.config.ts). The full run
// (real-sandbox tests included) estimated 9 h on the shared machine at the time.
import base from './stryker.proxy.config.mjs';

export default {
  ...base,
  vitest: { configFile: 'vitest.proxy-mutation-changed.config.ts' },
  mutate: ['src/proxy/scope.ts:175-228', 'src/proxy/ownership.ts:177-223', 'src/proxy/owners.ts:50-60', 'src/proxy/routes.ts:215-232', 'src/proxy/wallets.ts', 'src/proxy/contact.ts', 'src/proxy/contact-decoy.ts'],
  incremental: false,
  jsonReporter: { fileName: 'reports/mutation/proxy-changed.json' },
  htmlReporter: { fileName: 'reports/mutation/proxy-changed.html' },
  tempDirName: '.stryker-tmp-proxy-changed',
};
