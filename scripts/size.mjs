// `npm run size`: what the library costs an app, two ways. Writes bench/size.json; exit 1 over a
// budget.
//
// 1. The budgeted numbers: the packed package in real consumer builds (scripts/size-consumers.mjs:
//    `npm pack`, then production builds of test/size/app/ with Vite 8, Vite 7, Next.js, webpack 5 and
//    esbuild, once per scenario). The startup bytes the library adds (defined in
//    scripts/size-scenarios.mjs, the same for every bundler) must stay within each row's budget.
// 2. A report from esbuild over the source (minified ESM for browsers, code splitting on so that
//    every dynamic `import()` becomes a chunk of its own), which says what takes the bytes (`--why`).
//    Fails when any chunk of the main entry pulls in @noble/curves or bs58check (those belong to the
//    legacy entry only), or when generating a key and stamping alone is over 4 KB gz.
//
// What the esbuild report measures, per bundle:
// - startup: the entry chunk plus every chunk it imports statically, i.e. what an app downloads
//   before its first call.
// - lazy: each chunk loaded by a dynamic import (a login flow, the signed actions) the first time a
//   method needs it, with the chunks it imports beyond startup. A chunk shared by several lazy parts
//   is counted in each (it comes with whichever loads first), so the lazy rows add up to more than
//   total − startup.
// - total: every chunk, for an app that ends up using everything. Each chunk is gzipped on its own
//   (as it is served), so the total is a little more than one bundle gzipped in one piece.
//
// With `--why`, prints what takes the bytes: the esbuild metafile's inputs of the startup chunks
// grouped by npm package and by our own src/ folder, then the largest single inputs, then what each
// lazy chunk holds. `--why=<bundle>` (main, keyAndStamp, legacy; comma-separated) picks other
// bundles. `--keep-consumer` leaves the consumer builds in .tmp-size-consumer/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureConsumers } from './size-consumers.mjs';
import { BUNDLERS, SCENARIOS } from './size-scenarios.mjs';
import { breakdown, bundle, classify, fmt, gz, KB, measure, printBreakdown, printTable, sumOf } from './size-esbuild.mjs';
import { measureReactEntry, quickstartImports, REACT_BUDGET_GZ, REACT_QUICKSTART_BUDGET_GZ } from './size-react.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const targets = [
  // A report line: the budget is checked on the consumer builds below (what adopters ship).
  { name: 'main', label: 'main (src/index.ts)', entry: { file: 'src/index.ts' }, forbid: ['@noble/curves', 'bs58check'] },
  {
    name: 'keyAndStamp',
    label: 'generate a key + stamp',
    // A temporary entry: only what an app that generates a key and stamps needs. Built without
    // splitting: esbuild keeps every dynamic import() as a chunk even when the code holding it is
    // tree-shaken (createWallet is unused here), and moves the crypto modules those chunks share
    // into a startup chunk (12 KB min instead of 6). An app bundler that drops the dead import()s
    // (Rollup/Vite) ships one chunk, which is what this measures.
    entry: { contents: "export { generateSessionKey, stamp } from './src/index.ts';", splitting: false },
    failGz: 4 * KB,
    forbid: ['@noble/curves', 'bs58check', '@hpke/core'],
  },
  { name: 'legacy', label: 'legacy (src/legacy.ts)', entry: { file: 'src/legacy.ts' } },
];

/** `--why` → ['main']; `--why=legacy,main` → those; absent → []. */
function whyFlag(argv) {
  const picked = [];
  for (const arg of argv) {
    if (arg === '--why') picked.push('main');
    else if (arg.startsWith('--why=')) picked.push(...arg.slice('--why='.length).split(',').filter(Boolean));
  }
  const unknown = picked.filter((name) => !targets.some((t) => t.name === name));
  if (unknown.length) {
    console.error(`unknown bundle for --why: ${unknown.join(', ')} (known: ${targets.map((t) => t.name).join(', ')})`);
    process.exit(2);
  }
  return picked;
}
const why = whyFlag(process.argv.slice(2));


const rows = [];
const failures = [];
const warnings = [];

for (const t of targets) {
  const minChunks = await bundle(root, t.entry, true);
  const rawChunks = await bundle(root, t.entry, false);
  const { startup, lazy } = classify(minChunks);
  // The unminified build splits the same way; its shared chunks have other hashes, so its groups
  // are matched by name (the lazy chunk's module), not by file.
  const raw = classify(rawChunks);
  const rawLazy = new Map(raw.lazy.map((l) => [l.name, l.chunks]));
  const startupSize = measure(startup, raw.startup);
  const allSize = measure(minChunks, rawChunks);
  const lazyRows = lazy.map((l) => ({ name: l.name, ...measure(l.chunks, rawLazy.get(l.name) ?? []), breakdown: breakdown(l.chunks, sumOf(l.chunks, (c) => gz(c.bytes))) }));

  const inputs = new Set(minChunks.flatMap((c) => c.shipped.map((i) => i.path)));
  const forbidden = (t.forbid ?? []).filter((pkg) => [...inputs].some((input) => input.includes(`node_modules/${pkg}/`)));
  for (const pkg of forbidden) failures.push(`${t.label} contains ${pkg} (in one of its chunks)`);
  const size = startupSize.gzipBytes;
  let status = 'ok';
  if (t.failGz !== undefined && size > t.failGz) {
    status = 'FAIL';
    failures.push(`${t.label}: startup ${fmt(size)} KB gz exceeds the hard ceiling of ${fmt(t.failGz)} KB`);
  } else if (t.warnGz !== undefined && size > t.warnGz) {
    status = 'WARN';
    warnings.push(`${t.label}: startup ${fmt(size)} KB gz is over the ${fmt(t.warnGz)} KB budget (hard ceiling ${fmt(t.failGz)} KB)`);
  } else if (t.failGz === undefined && t.warnGz === undefined) {
    status = 'reported';
  }
  if (forbidden.length) status = 'FAIL';
  const overGoal = t.warnGz !== undefined ? size > t.warnGz : t.failGz !== undefined && size > t.failGz;
  rows.push({
    name: t.name,
    label: t.label,
    // The budgeted numbers: the startup chunks (entry + its static imports).
    rawBytes: startupSize.rawBytes,
    minBytes: startupSize.minBytes,
    gzipBytes: size,
    budgetGzipBytes: t.warnGz ?? t.failGz ?? null,
    hardCeilingGzipBytes: t.failGz ?? null,
    status,
    splitting: t.entry.splitting ?? true,
    inputs: inputs.size,
    startup: { ...startupSize, files: startup.map((c) => c.file) },
    lazy: lazyRows,
    total: allSize,
    breakdown: breakdown(startup, size),
    explain: why.includes(t.name) || (t.name === 'main' && overGoal),
  });
}

const tableRows = [];
for (const r of rows) {
  const budget = r.budgetGzipBytes === null ? '-' : fmt(r.budgetGzipBytes) + (r.hardCeilingGzipBytes && r.hardCeilingGzipBytes !== r.budgetGzipBytes ? ` (max ${fmt(r.hardCeilingGzipBytes)})` : '');
  tableRows.push([r.label, r.budgetGzipBytes === null ? 'startup' : 'startup (budgeted)', r.startup.chunks, fmt(r.rawBytes), fmt(r.minBytes), fmt(r.gzipBytes), budget, r.status]);
  for (const l of r.lazy) tableRows.push(['', `lazy: ${l.name}`, l.chunks, fmt(l.rawBytes), fmt(l.minBytes), fmt(l.gzipBytes), '', '']);
  if (r.lazy.length > 0) tableRows.push(['', 'total (every chunk)', r.total.chunks, fmt(r.total.rawBytes), fmt(r.total.minBytes), fmt(r.total.gzipBytes), '', '']);
}
printTable(['bundle', 'part', 'chunks', 'raw KB', 'min KB', 'gz KB', 'budget gz KB', 'status'], tableRows, 2);

for (const r of rows) if (r.explain) printBreakdown(r);

// The budgeted numbers: the packed package in real consumer builds, one per bundler and scenario
// (scripts/size-consumers.mjs; what startup means and the budgets: scripts/size-scenarios.mjs).
const consumers = await measureConsumers(root, { keep: process.argv.includes('--keep-consumer') });
console.log(`\nThe packed package in consumer builds (test/size/app/: open the wallet and restore at load; email login and one signed action on a click; startup = what the page loads before any import() fires, minus the baseline page):\n`);
const consumerRows = [];
const chunkLines = [];
for (const scenario of consumers.scenarios) {
  const { budgetKB } = SCENARIOS.find((s) => s.name === scenario.name);
  if (scenario.skipped) {
    consumerRows.push([scenario.label, '-', '', '', '', '', 'skipped']);
    chunkLines.push(`${scenario.name}: skipped, ${scenario.skipped}`);
    continue;
  }
  for (const [i, { id, label }] of BUNDLERS.entries()) {
    const c = scenario.builds[id];
    const budget = budgetKB[id] === undefined ? undefined : Math.round(budgetKB[id] * KB);
    const over = budget !== undefined && c.startup.gzipBytes > budget;
    if (over) failures.push(`${scenario.name}, ${label}: the library adds ${fmt(c.startup.gzipBytes)} KB gz at startup, over the ${fmt(budget)} KB budget`);
    consumerRows.push([i === 0 ? scenario.label : '', label, `${fmt(c.startup.gzipBytes)} (${c.startup.chunks})`, budget === undefined ? '-' : fmt(budget), `${fmt(c.lazy.gzipBytes)} (${c.lazy.chunks})`, fmt(c.total.gzipBytes), budget === undefined ? 'reported' : over ? 'FAIL' : 'ok']);
    const each = (files) => files.map((f) => `${f.file} ${fmt(f.gzipBytes)}`).join(', ');
    chunkLines.push(`${scenario.name}, ${label}: startup ${each(c.startup.files)}${c.startup.baselineOnly.length ? ` (minus the baseline's ${each(c.startup.baselineOnly)})` : ''}; lazy ${each(c.lazy.files)}`);
  }
}
printTable(['scenario', 'build', 'startup gz KB (chunks)', 'budget gz KB', 'lazy gz KB (chunks)', 'total gz KB', 'status'], consumerRows, 2);
console.log('\nChunks (gz KB each):');
for (const line of chunkLines) console.log(`  ${line}`);
console.log(`Timings: ${consumers.timings.map((t) => `${t.step} ${t.seconds.toFixed(1)} s`).join(', ')}`);

// The React entry (scripts/size-react.mjs): esbuild, React external, within 3 KB gz. Measured here so
// that `npm run size -- --why` and `--keep-consumer` reach this script (npm passes them to the last
// command of a script only).
const react = await measureReactEntry();
console.log(`\nreact (src/react/index.ts, React external): ${react.minBytes} B min, ${react.gzipBytes} B gz (budget ${REACT_BUDGET_GZ} B gz)`);
for (const [path, bytes] of Object.entries(react.inputs).sort((a, b) => b[1] - a[1])) console.log(`  ${String(bytes).padStart(6)} B  ${path}`);
if (react.gzipBytes > REACT_BUDGET_GZ) failures.push(`react entry: ${react.gzipBytes} B gz, over its ${REACT_BUDGET_GZ} B budget`);
// What the README's React quickstart imports, tree-shaken as an app's bundler does (issue 35: within 3 KB gz).
const quickstartNames = quickstartImports();
const reactQuickstart = await measureReactEntry(quickstartNames);
console.log(`react, the README quickstart's imports (${quickstartNames.join(', ')}): ${reactQuickstart.minBytes} B min, ${reactQuickstart.gzipBytes} B gz (budget ${REACT_QUICKSTART_BUDGET_GZ} B gz)`);
if (reactQuickstart.gzipBytes > REACT_QUICKSTART_BUDGET_GZ) failures.push(`react quickstart: ${reactQuickstart.gzipBytes} B gz, over its ${REACT_QUICKSTART_BUDGET_GZ} B budget`);

mkdirSync(join(root, 'bench'), { recursive: true });
writeFileSync(
  join(root, 'bench', 'size.json'),
  JSON.stringify(
    {
      tool:
        'esbuild (minify, esm, splitting, platform browser) + gzip level 9 per chunk; rawBytes/minBytes/gzipBytes are the startup chunks ' +
        '(entry + its static imports: the budgeted number), lazy = chunks loaded by dynamic import, total = every chunk ' +
        '(a bundle with splitting: false is one chunk, see scripts/size.mjs); ' +
        'breakdown from the esbuild metafile (estGzipBytes = share of minified bytes × gzip size)',
      bundles: rows.map(({ explain, ...r }) => r),
      consumers: {
        tool: 'npm pack → tarball installed into a consumer → a production build of test/size/app/ per scenario and bundler; gzip level 9 per chunk; startup = what the page loads before any import() fires, minus the baseline page (scripts/size-scenarios.mjs)',
        bundlers: BUNDLERS,
        scenarios: consumers.scenarios.map((s) => ({ ...s, budgetGzipBytes: Object.fromEntries(Object.entries(SCENARIOS.find((x) => x.name === s.name).budgetKB).map(([id, kb]) => [id, Math.round(kb * KB)])) })),
        timings: consumers.timings,
      },
      react: { tool: 'esbuild (minify, esm, platform browser, React external) + gzip level 9 (scripts/size-react.mjs)', budgetGzipBytes: REACT_BUDGET_GZ, ...react },
      reactQuickstart: { imports: quickstartNames, budgetGzipBytes: REACT_QUICKSTART_BUDGET_GZ, minBytes: reactQuickstart.minBytes, gzipBytes: reactQuickstart.gzipBytes, inputs: reactQuickstart.inputs },
    },
    null,
    2,
  ) + '\n',
);

if (warnings.length || failures.length) console.log('');
for (const w of warnings) console.warn(`WARNING: ${w}`);
for (const f of failures) console.error(`FAIL: ${f}`);
process.exit(failures.length ? 1 : 0);
