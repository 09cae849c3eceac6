// `npm run deps`: the layer rules of ../shared/docs/design.md, checked over src/ by dependency-cruiser
// (rules in .dependency-cruiser.cjs). Exit 1 on any violation, printing each.
//
// Type-only imports count (a cycle through types is still a cycle): dependency-cruiser sees them
// only when it parses with the TypeScript compiler API (`tsPreCompilationDeps`), which TypeScript 7
// no longer has. So this runs it with TypeScript 5.7, the devDependency `typescript-min`: before
// dependency-cruiser loads, every request for `typescript` in this process (require and import) is
// sent to `typescript-min`. Only this process; the repo's own `tsc` stays TypeScript 7.
//
// It checks the src/ of the current directory (test/deps/ runs it on a tree of violations).
import Module, { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, typeof request === 'string' ? request.replace(/^typescript(?=\/|$)/, 'typescript-min') : request, ...rest);
};
register(
  'data:text/javascript,' +
    encodeURIComponent('export function resolve(s, c, next) { return next(s.replace(/^typescript(?=\\/|$)/, "typescript-min"), c); }'),
);

const ts = createRequire(import.meta.url)('typescript');
if (!ts.version.startsWith('5.')) {
  console.error(`deps: dependency-cruiser would parse with TypeScript ${ts.version}; it needs 5.x (typescript-min)`);
  process.exit(2);
}
const { cruise } = await import('dependency-cruiser');
// The rules, relative to this script (a checked tree elsewhere gets the same ones).
const { default: config } = await import('../.dependency-cruiser.cjs');

const started = Date.now();
const options = { ...config.options, tsConfig: { fileName: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) } };
const result = await cruise(['src'], { ...options, validate: true, ruleSet: { forbidden: config.forbidden }, outputType: 'err' });
console.log(result.output.trim());
console.log(`deps: parsed with TypeScript ${ts.version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(result.exitCode > 0 ? 1 : 0);
