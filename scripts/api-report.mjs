// `npm run api` checks, `npm run api:update` rewrites: the public surface of every entry of the
// package, as API Extractor reads it from the built .d.ts files, in api/<entry>.api.md (checked
// in). A change to an exported name, signature or type that is not in the checked-in report fails
// the check (and `npm test`); after a deliberate change, `npm run api:update` and commit the
// report with the change.
//
// Also enforced here, as errors: every exported symbol and every member of an exported type has a
// doc comment (ae-undocumented), and every type the public API uses is itself exported
// (ae-forgotten-export). Builds dist/ first (scripts/build.mjs). API Extractor analyses with its
// own bundled TypeScript; our .d.ts files are plain declarations that it reads as they are.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const update = process.argv.includes('--update');
// legacy: its functions take the main entry's Wallet (and its Session records), which the app
// imports from `embedded-wallet-signer`; re-exporting them here would duplicate the main entry's
// surface, so for this entry the types it borrows are listed in its report as ae-forgotten-export
// notes instead of failing.
// react, react-testing: the same (they take a Wallet; the hooks' types name Session, SignRequest…).
const BORROWS_MAIN_TYPES = new Set(['legacy', 'react', 'react-testing', 'frame']);
const entries = [
  ['index', 'dist/index.d.ts'],
  ['legacy', 'dist/legacy.d.ts'],
  ['proxy', 'dist/proxy/index.d.ts'],
  ['sandbox', 'dist/sandbox/index.d.ts'],
  ['error-codes', 'dist/error-codes.d.ts'],
  ['testing', 'dist/testing/index.d.ts'],
  ['react', 'dist/react/index.d.ts'],
  ['react-testing', 'dist/react/testing.d.ts'],
  ['frame', 'dist/signer/parent/index.d.ts'],
  ['signer-host', 'dist/signer/host/index.d.ts'],
];

if (!process.argv.includes('--no-build')) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const reportFolder = join(root, 'api');
mkdirSync(reportFolder, { recursive: true });
const temp = mkdtempSync(join(tmpdir(), 'ews-api-report-'));
const problems = [];
try {
  for (const [name, dts] of entries) {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(root, dts),
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022',
              module: 'esnext',
              moduleResolution: 'bundler',
              lib: ['ES2022', 'DOM', 'DOM.Iterable'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files: [join(root, dts)],
          },
        },
        apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder, reportTempFolder: temp },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          extractorMessageReporting: {
            default: { logLevel: 'warning' },
            'ae-undocumented': { logLevel: 'error', addToApiReportFile: false },
            'ae-forgotten-export': BORROWS_MAIN_TYPES.has(name) ? { logLevel: 'none', addToApiReportFile: true } : { logLevel: 'error', addToApiReportFile: false },
            'ae-missing-release-tag': { logLevel: 'none' },
            ...(BORROWS_MAIN_TYPES.has(name) ? { 'ae-unresolved-link': { logLevel: 'none' } } : {}),
          },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
      configObjectFullPath: join(root, 'api', `${name}.api-extractor.json`),
      packageJsonFullPath: join(root, 'package.json'),
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      messageCallback: (message) => {
        // API Extractor's own console notes (report created / copied, compiler version): the
        // status line below says the same.
        if (message.messageId.startsWith('console-')) {
          message.handled = true;
          return;
        }
        if (message.logLevel === 'error' || message.logLevel === 'warning') {
          const where = message.sourceFilePath ? `${message.sourceFilePath.replace(`${root}/`, '')}:${message.sourceFileLine}` : dts;
          problems.push(`${name}: ${message.messageId} ${where} ${message.text}`);
          message.handled = true;
        }
      },
    });
    if (result.apiReportChanged && !update) problems.push(`${name}: the public API differs from api/${name}.api.md (npm run api:update after a deliberate change)`);
    console.log(`api: ${name} ${result.apiReportChanged ? (update ? 'updated' : 'CHANGED') : 'unchanged'}`);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`api: ${problems.length} problem(s)`);
  process.exit(1);
}
