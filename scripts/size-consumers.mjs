// The package as adopters build it (used by scripts/size.mjs): packs it (`npm pack`, whose prepack
// builds dist/ from a clean slate), installs the tarball into one throwaway consumer, and builds the
// small app of test/size/app/ there twice: a Vite production build and a Next.js production build
// (`next build`, Turbopack). The app restores the wallet at load and, on a click, logs in with an
// email code and signs one action (test/size/app/wallet-app.ts).
//
// The consumer is the folder .tmp-size-consumer/ at the repo's root (git-ignored): the tarball is
// extracted into its node_modules/embedded-wallet-signer, and everything else it needs (vite, next,
// react, the package's own dependencies) resolves from the repo's node_modules one level up, with no
// links (Turbopack refuses files outside its root).
//
// What is measured, each chunk gzipped on its own (level 9, as served):
// - Vite: `startup` is the entry chunk plus every chunk it imports statically (the build manifest's
//   `imports`, followed); the app's own code is a few lines of it and the module-preload polyfill is
//   off. `lazy` is every other chunk (what dynamic import() loads: the library's only ones).
// - Next.js: the app has two pages, `/` (the wallet) and `/baseline` (the same page without the
//   library). `startup` is what the library adds to the first load: the gzip of the chunks `/`
//   loads (its prerendered HTML's <script> tags) that `/baseline` does not, minus those `/baseline`
//   loads that `/` does not (its own page chunk). `lazy` is every chunk those startup chunks name for
//   a dynamic import (Turbopack lists them as "static/chunks/….js"), followed.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const sum = (list) => list.reduce((n, x) => n + x.gzipBytes, 0);

function run(label, command, args, cwd, timings) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  timings.push({ step: label, seconds: (Date.now() - started) / 1000 });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

function file(dir, name) {
  const bytes = readFileSync(join(dir, name));
  return { file: name, minBytes: bytes.length, gzipBytes: gz(bytes) };
}

function part(chunks) {
  return { chunks: chunks.length, gzipBytes: sum(chunks), files: chunks };
}

/** The Vite build's startup (the entry and its static imports, by the manifest) and lazy chunks. */
function viteSizes(consumer) {
  const dist = join(consumer, 'dist');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
  const seen = new Set();
  const walk = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const next of manifest[key].imports ?? []) walk(next);
  };
  walk(Object.keys(manifest).find((key) => manifest[key].isEntry));
  const startupFiles = new Set([...seen].map((key) => manifest[key].file));
  const all = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`);
  const nameOf = new Map(Object.values(manifest).map((m) => [m.file, m.name ?? m.file]));
  const named = (f) => ({ ...file(dist, f), name: nameOf.get(f) ?? f });
  const startup = all.filter((f) => startupFiles.has(f)).map(named);
  const lazy = all.filter((f) => !startupFiles.has(f)).map(named);
  return { startup: part(startup), lazy: part(lazy), total: part([...startup, ...lazy]) };
}

/** The Next.js build: what `/` loads beyond `/baseline`, and the chunks it names for dynamic imports. */
function nextSizes(consumer) {
  const next = join(consumer, '.next');
  const chunksDir = join(next, 'static');
  const scripts = (page) => {
    const html = readFileSync(join(next, 'server', 'app', `${page}.html`), 'utf8');
    return new Set([...html.matchAll(/<script[^>]*\ssrc="\/_next\/static\/(chunks\/[^"]+\.js)"/g)].map((m) => m[1]));
  };
  const wallet = scripts('index');
  const baseline = scripts('baseline');
  if (wallet.size === 0 || baseline.size === 0) throw new Error('next build: no <script> tags found in the prerendered pages');
  const added = [...wallet].filter((f) => !baseline.has(f)).map((f) => file(chunksDir, f));
  const own = [...baseline].filter((f) => !wallet.has(f)).map((f) => file(chunksDir, f));
  const lazyFiles = new Set();
  const walk = (f) => {
    const text = readFileSync(join(chunksDir, f), 'utf8');
    for (const [, named] of text.matchAll(/static\/(chunks\/[A-Za-z0-9_.-]+\.js)/g)) {
      if (wallet.has(named) || lazyFiles.has(named)) continue;
      lazyFiles.add(named);
      walk(named);
    }
  };
  for (const f of added) walk(f.file);
  const lazy = [...lazyFiles].sort().map((f) => file(chunksDir, f));
  const startup = { chunks: added.length, gzipBytes: sum(added) - sum(own), files: added, baselineOnly: own };
  return { startup, lazy: part(lazy), total: { chunks: added.length + lazy.length, gzipBytes: startup.gzipBytes + sum(lazy) } };
}

/**
 * Packs, installs, builds with Vite and Next.js, measures. Returns { vite, next, timings, tarball }.
 * `keep`: leave .tmp-size-consumer/ for a look.
 */
export function measureConsumers(root, { keep = false } = {}) {
  const timings = [];
  const consumer = join(root, '.tmp-size-consumer');
  rmSync(consumer, { recursive: true, force: true });
  const installed = join(consumer, 'node_modules', 'embedded-wallet-signer');
  mkdirSync(installed, { recursive: true });
  try {
    const packed = run('npm pack (prepack: clean build)', 'npm', ['pack', '--json', '--pack-destination', consumer], root, timings);
    const report = JSON.parse(packed.slice(packed.search(/^\[/m)))[0];
    const tarball = join(consumer, report.filename);
    run('install the tarball into the consumer', 'tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], root, timings);
    cpSync(join(root, 'test', 'size', 'app'), consumer, { recursive: true });
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'size-consumer', private: true, type: 'module' }) + '\n');
    const nodeModules = join(root, 'node_modules');
    if (!existsSync(join(nodeModules, 'next')) || !existsSync(join(nodeModules, 'vite'))) throw new Error('vite and next must be installed (npm install)');

    // The app is real code: checked against the packed package's types before it is measured.
    run('type-check the app (tsc)', process.execPath, [join(nodeModules, 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], consumer, timings);
    run('vite build', process.execPath, [join(nodeModules, 'vite', 'bin', 'vite.js'), 'build'], consumer, timings);
    const vite = viteSizes(consumer);
    run('next build', process.execPath, [join(nodeModules, 'next', 'dist', 'bin', 'next'), 'build'], consumer, timings);
    const nextjs = nextSizes(consumer);
    return { vite, next: nextjs, timings, tarball: report.filename };
  } finally {
    if (!keep) rmSync(consumer, { recursive: true, force: true });
  }
}
