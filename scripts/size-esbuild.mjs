// The esbuild half of `npm run size` (scripts/size.mjs): split builds of the source, their chunks
// sorted into startup and lazy, gzip sizes, and the breakdown of what takes the bytes (`--why`).
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

export const KB = 1024;
const TOP_INPUTS = 15;
const TOP_LAZY_INPUTS = 6;

// Chunks are kept in memory (write: false); esbuild still wants an output directory for splitting.
const outdir = mkdtempSync(join(tmpdir(), 'ews-size-'));
process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));

/**
 * One split build. Returns its chunks (only .js outputs), each with its bytes, the inputs that ship
 * in it (files esbuild read but tree-shook away entirely have bytesInOutput 0: left out), its
 * static and dynamic imports, and whether it is the target's entry chunk.
 */
export async function bundle(root, entry, minify) {
  const common = {
    bundle: true,
    minify,
    format: 'esm',
    splitting: entry.splitting ?? true,
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    write: false,
    absWorkingDir: root,
    outdir,
    logLevel: 'silent',
  };
  const result = await build(
    entry.file
      ? { ...common, entryPoints: [entry.file] }
      : { ...common, stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: 'size-entry.ts' } },
  );
  const entryPoint = entry.file ?? 'size-entry.ts';
  const files = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
  const chunks = [];
  for (const [path, meta] of Object.entries(result.metafile.outputs)) {
    if (!path.endsWith('.js')) continue;
    const contents = files.get(resolve(root, path));
    chunks.push({
      path,
      file: path.slice(path.lastIndexOf('/') + 1),
      bytes: contents,
      isEntry: meta.entryPoint === entryPoint,
      // A dynamically imported module is an entry point of its own to esbuild: name the chunk by it.
      source: meta.entryPoint,
      staticImports: meta.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
      dynamicImports: meta.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
      shipped: Object.entries(meta.inputs)
        .filter(([, info]) => info.bytesInOutput > 0)
        .map(([input, info]) => ({ path: input, bytes: info.bytesInOutput })),
    });
  }
  return chunks;
}

/** Chunks reachable from `start` through static imports (start included). */
function staticClosure(byPath, start) {
  const seen = new Set();
  const walk = (path) => {
    if (seen.has(path) || !byPath.has(path)) return;
    seen.add(path);
    for (const next of byPath.get(path).staticImports) walk(next);
  };
  walk(start);
  return seen;
}

/**
 * Sorts the chunks of a build: `startup` (the entry and its static imports), then one `lazy` group
 * per dynamically imported chunk (with every chunk it needs beyond startup), in a stable order.
 */
export function classify(chunks) {
  const byPath = new Map(chunks.map((c) => [c.path, c]));
  const entry = chunks.find((c) => c.isEntry);
  if (!entry) throw new Error('esbuild produced no entry chunk');
  const startup = staticClosure(byPath, entry.path);
  const dynamicTargets = [...new Set(chunks.flatMap((c) => c.dynamicImports))].filter((p) => byPath.has(p) && !startup.has(p)).sort();
  const lazy = dynamicTargets.map((path) => {
    const own = [...staticClosure(byPath, path)].filter((p) => !startup.has(p));
    return { path, name: byPath.get(path).source ?? byPath.get(path).file, chunks: own.map((p) => byPath.get(p)) };
  });
  return { startup: [...startup].map((p) => byPath.get(p)), lazy };
}

/**
 * Who an input belongs to: an npm package (`@scope/name` or `name`, nested node_modules resolved to
 * the innermost package), one of our src/ folders (`src/crypto/`), a file at the top of src/, or the
 * temporary entry.
 */
function ownerOf(path) {
  const nm = path.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const parts = path.slice(nm + 'node_modules/'.length).split('/');
    return { kind: 'package', name: parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0] };
  }
  const parts = path.split('/');
  if (parts[0] === 'src') return { kind: 'ours', name: parts.length > 2 ? `src/${parts[1]}/` : path };
  return { kind: 'ours', name: path };
}

export const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
export const sumOf = (list, f) => list.reduce((n, x) => n + f(x), 0);

/** Sizes of a set of chunks: each chunk gzipped on its own (as it is served), then summed. */
export function measure(minChunks, rawChunks) {
  return {
    chunks: minChunks.length,
    rawBytes: sumOf(rawChunks, (c) => c.bytes.length),
    minBytes: sumOf(minChunks, (c) => c.bytes.length),
    gzipBytes: sumOf(minChunks, (c) => gz(c.bytes)),
  };
}

/**
 * The breakdown of a set of minified chunks. Minified bytes come from the metafile (exact per
 * input); the gzip column is the input's share of the minified bytes applied to the set's gzip size,
 * an estimate (gzip works across file boundaries, so per-input gzip sizes do not exist).
 */
export function breakdown(chunks, gzBytes) {
  const shipped = chunks.flatMap((c) => c.shipped);
  const total = sumOf(chunks, (c) => c.bytes.length);
  const toGz = (bytes) => Math.round((bytes / total) * gzBytes);
  const groups = new Map();
  for (const input of shipped) {
    const owner = ownerOf(input.path);
    const key = `${owner.kind}:${owner.name}`;
    const group = groups.get(key) ?? { kind: owner.kind, name: owner.name, minBytes: 0, files: 0 };
    group.minBytes += input.bytes;
    group.files += 1;
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) => b.minBytes - a.minBytes).map((g) => ({ ...g, estGzipBytes: toGz(g.minBytes) }));
  const sum = (kind) => sumOf(sorted.filter((g) => g.kind === kind), (g) => g.minBytes);
  const packages = sum('package');
  const ours = sum('ours');
  const glue = total - packages - ours; // esbuild's runtime helpers, export/import glue, separators
  return {
    totalMinBytes: total,
    packagesMinBytes: packages,
    packagesEstGzipBytes: toGz(packages),
    oursMinBytes: ours,
    oursEstGzipBytes: toGz(ours),
    glueMinBytes: glue,
    groups: sorted,
    topInputs: [...shipped].sort((a, b) => b.bytes - a.bytes).slice(0, TOP_INPUTS).map((i) => ({ path: i.path, minBytes: i.bytes, estGzipBytes: toGz(i.bytes) })),
  };
}

export const fmt = (n) => (n / KB).toFixed(2);

export function printTable(header, rows, leftColumns = 1) {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
  for (const [i, row] of table.entries()) {
    console.log(row.map((cell, j) => (j < leftColumns ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

export function printBreakdown(row) {
  const b = row.breakdown;
  const pct = (n) => `${((n / b.totalMinBytes) * 100).toFixed(1)}%`;
  console.log(`\nWhat takes the bytes in ${row.label}, startup (${row.startup.chunks} chunk${row.startup.chunks === 1 ? '' : 's'}): ${fmt(b.totalMinBytes)} KB min, ${fmt(row.gzipBytes)} KB gz`);
  console.log(`  dependencies ${fmt(b.packagesMinBytes)} KB min (≈${fmt(b.packagesEstGzipBytes)} KB gz), our src/ ${fmt(b.oursMinBytes)} KB min (≈${fmt(b.oursEstGzipBytes)} KB gz), esbuild glue ${fmt(b.glueMinBytes)} KB min`);
  console.log('  (≈gz = share of the minified bytes applied to the gzip size: an estimate)\n');
  printTable(
    ['group', 'kind', 'files', 'min KB', 'share', '≈gz KB'],
    b.groups.map((g) => [g.name, g.kind === 'package' ? 'npm' : 'ours', g.files, fmt(g.minBytes), pct(g.minBytes), fmt(g.estGzipBytes)]),
    2,
  );
  console.log(`\nLargest startup inputs (top ${b.topInputs.length}):\n`);
  printTable(
    ['input', 'min KB', 'share', '≈gz KB'],
    b.topInputs.map((i) => [i.path, fmt(i.minBytes), pct(i.minBytes), fmt(i.estGzipBytes)]),
  );
  for (const lazy of row.lazy) {
    const inputs = lazy.breakdown.topInputs.slice(0, TOP_LAZY_INPUTS);
    console.log(`\nLazy chunk ${lazy.name}: ${fmt(lazy.minBytes)} KB min, ${fmt(lazy.gzipBytes)} KB gz, loaded on first use; largest inputs:`);
    for (const i of inputs) console.log(`  ${i.path}  ${fmt(i.minBytes)} KB min`);
  }
}
