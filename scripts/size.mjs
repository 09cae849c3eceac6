// `npm run size`: bundle the browser entries with esbuild (minified ESM for browsers), gzip them
// (level 9) and check the budgets. Writes bench/size.json. Exit 1 when a hard budget is exceeded or
// when the main entry pulls in @noble/curves or bs58check (those belong to the legacy entry only).
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const KB = 1024;

const targets = [
  { name: 'main', label: 'main (src/index.ts)', entry: { file: 'src/index.ts' }, warnGz: 20 * KB, failGz: 25 * KB, forbid: ['@noble/curves', 'bs58check'] },
  {
    name: 'keyAndStamp',
    label: 'generate a key + stamp',
    // A temporary entry: only what an app that generates a key and stamps needs.
    entry: { contents: "export { generateSessionKey, stamp } from './src/index.ts';" },
    failGz: 4 * KB,
    forbid: ['@noble/curves', 'bs58check', '@hpke/core'],
  },
  { name: 'legacy', label: 'legacy (src/legacy.ts)', entry: { file: 'src/legacy.ts' } },
];

async function bundle(entry, minify) {
  const common = { bundle: true, minify, format: 'esm', platform: 'browser', target: 'es2022', metafile: true, write: false, absWorkingDir: root, logLevel: 'silent' };
  const result = await build(
    entry.file
      ? { ...common, entryPoints: [entry.file], outfile: 'out.js' }
      : { ...common, stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: 'size-entry.ts' }, outfile: 'out.js' },
  );
  const output = result.outputFiles.find((f) => f.path.endsWith('.js'));
  // Files esbuild read but tree-shook away entirely have bytesInOutput 0: count only what ships.
  const [meta] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(meta.inputs)
    .filter(([, info]) => info.bytesInOutput > 0)
    .map(([path]) => path);
  return { bytes: output.contents, inputs };
}

const fmt = (n) => (n / KB).toFixed(2);
const rows = [];
const failures = [];
const warnings = [];

for (const t of targets) {
  const raw = await bundle(t.entry, false);
  const min = await bundle(t.entry, true);
  const gz = gzipSync(min.bytes, { level: 9 }).length;
  const forbidden = (t.forbid ?? []).filter((pkg) => min.inputs.some((input) => input.includes(`node_modules/${pkg}/`)));
  for (const pkg of forbidden) failures.push(`${t.label} contains ${pkg}`);
  let status = 'ok';
  if (t.failGz !== undefined && gz > t.failGz) {
    status = 'FAIL';
    failures.push(`${t.label}: ${fmt(gz)} KB gz exceeds the hard ceiling of ${fmt(t.failGz)} KB`);
  } else if (t.warnGz !== undefined && gz > t.warnGz) {
    status = 'WARN';
    warnings.push(`${t.label}: ${fmt(gz)} KB gz is over the ${fmt(t.warnGz)} KB budget (hard ceiling ${fmt(t.failGz)} KB)`);
  } else if (t.failGz === undefined && t.warnGz === undefined) {
    status = 'reported';
  }
  if (forbidden.length) status = 'FAIL';
  rows.push({
    name: t.name,
    label: t.label,
    rawBytes: raw.bytes.length,
    minBytes: min.bytes.length,
    gzipBytes: gz,
    budgetGzipBytes: t.warnGz ?? t.failGz ?? null,
    hardCeilingGzipBytes: t.failGz ?? null,
    status,
    inputs: min.inputs.length,
  });
}

const header = ['bundle', 'raw KB', 'min KB', 'gz KB', 'budget gz KB', 'status'];
const table = [header, ...rows.map((r) => [r.label, fmt(r.rawBytes), fmt(r.minBytes), fmt(r.gzipBytes), r.budgetGzipBytes === null ? '-' : fmt(r.budgetGzipBytes) + (r.hardCeilingGzipBytes && r.hardCeilingGzipBytes !== r.budgetGzipBytes ? ` (max ${fmt(r.hardCeilingGzipBytes)})` : ''), r.status])];
const widths = header.map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
for (const [i, row] of table.entries()) {
  console.log(row.map((cell, j) => (j === 0 ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}

mkdirSync(join(root, 'bench'), { recursive: true });
writeFileSync(
  join(root, 'bench', 'size.json'),
  JSON.stringify({ tool: 'esbuild (minify, esm, platform browser) + gzip level 9', bundles: rows }, null, 2) + '\n',
);

for (const w of warnings) console.warn(`WARNING: ${w}`);
for (const f of failures) console.error(`FAIL: ${f}`);
process.exit(failures.length ? 1 : 0);
