// StrykerJS on the proxy's frame-mode rule (src/proxy/signer-origin.ts, THREAT-MODEL.md P5) with its
// own tests only (vitest.signer-origin-mutation.config.ts): `npx stryker run stryker.signer-origin.config.mjs`.
import base from './stryker.proxy.config.mjs';

export default {
  ...base,
  vitest: { configFile: 'vitest.signer-origin-mutation.config.ts' },
  mutate: ['src/proxy/signer-origin.ts'],
  incremental: false,
  jsonReporter: { fileName: 'reports/mutation/signer-origin.json' },
  htmlReporter: { fileName: 'reports/mutation/signer-origin.html' },
  tempDirName: '.stryker-tmp-signer-origin',
};
