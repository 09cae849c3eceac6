// The five consumer builds of `npm run size` (scripts/size-consumers.mjs runs them), each as an app
// builds with the bundler's defaults for production, and how each names a page's startup files
// (the definition: scripts/size-scenarios.mjs). Every build holds two pages: `index` (the wallet
// scenario) and `baseline` (the same page without the library); each `build` returns, per page, the
// JavaScript files it loads before any dynamic import() runs, and every JavaScript file of the build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build as esbuild, transform } from 'esbuild';

export function run(label, command, args, cwd, timings) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  timings.push({ step: label, seconds: (Date.now() - started) / 1000 });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

async function timed(label, timings, work) {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings.push({ step: label, seconds: (Date.now() - started) / 1000 });
  }
}

const jsFiles = (dir, sub = '') =>
  readdirSync(join(dir, sub), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? jsFiles(dir, join(sub, d.name)) : d.name.endsWith('.js') ? [join(sub, d.name)] : [],
  );

/** Vite (8: Rolldown, 7: Rollup): the manifest's page entry and its `imports`, followed. */
function vite(bin) {
  return (consumer, nodeModules, timings, id) => {
    const outDir = `dist-${id}`;
    run(`${id} build`, process.execPath, [join(nodeModules, bin), 'build', '--outDir', outDir], consumer, timings);
    const dist = join(consumer, outDir);
    const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
    const startupOf = (html) => {
      const seen = new Set();
      const walk = (key) => {
        if (seen.has(key)) return;
        seen.add(key);
        for (const next of manifest[key].imports ?? []) walk(next);
      };
      walk(html);
      return [...seen].map((key) => manifest[key].file);
    };
    return { dir: dist, page: startupOf('index.html'), baseline: startupOf('baseline.html'), all: jsFiles(dist) };
  };
}

/** webpack 5 (its Node API; mode production): the entrypoint's initial chunks. */
async function webpack(consumer, _nodeModules, timings, id) {
  // webpack reads JavaScript only: the app's TypeScript is transpiled file by file first (what
  // ts-loader or babel does in an app's webpack config), imports left as they are.
  const src = join(consumer, 'webpack-src');
  mkdirSync(src, { recursive: true });
  for (const name of ['main.ts', 'baseline.ts', 'wallet-app.ts', 'scenario.ts']) {
    const { code } = await transform(readFileSync(join(consumer, name), 'utf8'), { loader: 'ts', format: 'esm' });
    writeFileSync(join(src, name.replace(/\.ts$/, '.js')), code);
  }
  const { default: createCompiler } = await import('webpack');
  const dist = join(consumer, `dist-${id}`);
  const stats = await timed(`${id} build`, timings, () =>
    new Promise((resolve, reject) => {
      createCompiler(
        {
          mode: 'production',
          context: consumer,
          entry: { index: './webpack-src/main.js', baseline: './webpack-src/baseline.js' },
          output: { path: dist, filename: '[name].[contenthash].js', chunkFilename: '[id].[contenthash].js', clean: true },
          // The transpiled files keep the app's extensionless imports (TypeScript's bundler resolution).
          module: { rules: [{ test: /\.js$/, include: join(consumer, 'webpack-src'), resolve: { fullySpecified: false } }] },
          devtool: false,
          performance: { hints: false },
        },
        (error, result) => {
          if (error) reject(error);
          else if (result.hasErrors()) reject(new Error(`webpack build failed:\n${result.toString({ all: false, errors: true })}`));
          else resolve(result.toJson({ all: false, entrypoints: true }));
        },
      );
    }),
  );
  const startupOf = (entry) => stats.entrypoints[entry].assets.map((a) => a.name).filter((f) => f.endsWith('.js'));
  return { dir: dist, page: startupOf('index'), baseline: startupOf('baseline'), all: jsFiles(dist) };
}

/** esbuild (bundle, splitting, ESM, minified): the entry's output and its import-statement imports. */
async function esbuildBuild(consumer, _nodeModules, timings, id) {
  const dist = join(consumer, `dist-${id}`);
  const result = await timed(`${id} build`, timings, () =>
    esbuild({
      absWorkingDir: consumer,
      entryPoints: ['main.ts', 'baseline.ts'],
      bundle: true,
      splitting: true,
      format: 'esm',
      minify: true,
      platform: 'browser',
      outdir: dist,
      entryNames: '[name]-[hash]',
      metafile: true,
      logLevel: 'silent',
    }),
  );
  const outputs = result.metafile.outputs;
  const startupOf = (entry) => {
    const start = Object.keys(outputs).find((path) => outputs[path].entryPoint === entry);
    const seen = new Set();
    const walk = (path) => {
      if (seen.has(path)) return;
      seen.add(path);
      for (const i of outputs[path].imports) if (i.kind === 'import-statement') walk(i.path);
    };
    walk(start);
    return [...seen].map((path) => relative(dist, join(consumer, path)));
  };
  return { dir: dist, page: startupOf('main.ts'), baseline: startupOf('baseline.ts'), all: jsFiles(dist) };
}

/**
 * Next.js (`next build`, Turbopack): the <script src> tags of the prerendered `/` and `/baseline`.
 * `all` is the startup chunks and the chunks they name for a dynamic import (Turbopack lists them as
 * "static/chunks/….js"), followed: the build's other files are Next's own, for other routes.
 */
function next(consumer, nodeModules, timings, id) {
  run(`${id} build`, process.execPath, [join(nodeModules, 'next', 'dist', 'bin', 'next'), 'build'], consumer, timings);
  const dir = join(consumer, '.next', 'static');
  const scripts = (page) => {
    const html = readFileSync(join(consumer, '.next', 'server', 'app', `${page}.html`), 'utf8');
    return [...new Set([...html.matchAll(/<script[^>]*\ssrc="\/_next\/static\/(chunks\/[^"]+\.js)"/g)].map((m) => m[1]))];
  };
  const page = scripts('index');
  const baseline = scripts('baseline');
  if (page.length === 0 || baseline.length === 0) throw new Error('next build: no <script> tags found in the prerendered pages');
  const all = new Set([...page, ...baseline]);
  const walk = (f) => {
    for (const [, named] of readFileSync(join(dir, f), 'utf8').matchAll(/static\/(chunks\/[A-Za-z0-9_.-]+\.js)/g)) {
      if (all.has(named)) continue;
      all.add(named);
      walk(named);
    }
  };
  for (const f of page) walk(f);
  return { dir, page, baseline, all: [...all] };
}

/** By bundler id (scripts/size-scenarios.mjs): (consumer, nodeModules, timings, id) → page files. */
export const BUILDS = {
  vite8: vite(join('vite', 'bin', 'vite.js')),
  vite7: vite(join('vite7', 'bin', 'vite.js')),
  next,
  webpack,
  esbuild: esbuildBuild,
};
