// The size of `embedded-wallet-signer/react` as an app's bundler ships it: esbuild, minified ESM
// for browsers, React (and react-dom) external, gzip level 9. Two figures:
// - the README's React quickstart (the hooks its import line names, tree-shaken as any app's bundler
//   does): what a new app adds, within 3 KB gz (issue 35's measure);
// - the whole entry (every hook and component exported, as an app that uses all of them): 3.2 KB gz
//   (3 KB until the hooks ran over frame mode's wallet too: +184 B gz for the OTP hook's frame code
//   entry, the typed refusals of a code given in frame mode and of `signatures` with a frame wallet,
//   and a step that ends well clearing an earlier refusal; 3,038 → 3,222 B gz).
// `npm run size` (scripts/size.mjs) measures and budgets both with the rest; run alone with
// `node scripts/size-react.mjs` (exit 1 over a budget).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REACT_BUDGET_GZ = Math.round(3.2 * 1024);
export const REACT_QUICKSTART_BUDGET_GZ = 3 * 1024;

/** The names the README's React quickstart imports from `embedded-wallet-signer/react` (its first such import line). */
export function quickstartImports(readme = readFileSync(join(root, 'README.md'), 'utf8')) {
  const m = /^import \{([^}]+)\} from 'embedded-wallet-signer\/react';$/m.exec(readme);
  if (!m) throw new Error('README.md has no import from embedded-wallet-signer/react');
  return m[1].split(',').map((name) => name.trim()).filter(Boolean);
}

/**
 * { minBytes, gzipBytes, inputs, lazy } of the React entry, React excluded: what an app loads with
 * it (the entry chunk and the chunks it imports statically), split as a bundler splits it. `lazy`:
 * the chunks loaded on first use only (the error descriptions, on a hook's first error), not in
 * the budget.
 */
export async function measureReactEntry(names) {
  const index = join(root, 'src/react/index.ts');
  const result = await build({
    // Only `names` (an app importing those): the entry re-exports them and the bundler drops the rest.
    ...(names
      ? { stdin: { contents: `export { ${names.join(', ')} } from ${JSON.stringify(index)};`, resolveDir: root, sourcefile: 'quickstart.js', loader: 'js' } }
      : { entryPoints: [index] }),
    bundle: true,
    splitting: true,
    outdir: join(root, 'dist-size-react'),
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['react', 'react-dom'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const file = (path) => result.outputFiles.find((f) => f.path === join(root, path));
  const entry = Object.keys(outputs).find((path) => outputs[path].entryPoint !== undefined);
  // The entry and what it imports statically, transitively.
  const loaded = new Set([entry]);
  for (const path of loaded) for (const i of outputs[path].imports) if (i.kind === 'import-statement' && outputs[i.path]) loaded.add(i.path);
  const code = Buffer.concat([...loaded].map((path) => file(path).contents));
  const inputsOf = (paths) => Object.fromEntries(paths.flatMap((path) => Object.entries(outputs[path].inputs)).filter(([, i]) => i.bytesInOutput > 0).map(([p, i]) => [p, i.bytesInOutput]));
  const lazy = Object.keys(outputs).filter((path) => !loaded.has(path) && !path.endsWith('.map'));
  return {
    minBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    startsWithUseClient: new TextDecoder().decode(file(entry).contents.slice(0, 14)).startsWith('"use client"'),
    inputs: inputsOf([...loaded]),
    lazy: Object.fromEntries(lazy.map((path) => [Object.keys(inputsOf([path])).join(', '), gzipSync(file(path).contents, { level: 9 }).length])),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const m = await measureReactEntry();
  console.log(`react (src/react/index.ts, React external): ${m.minBytes} B min, ${m.gzipBytes} B gz (budget ${REACT_BUDGET_GZ} B gz)`);
  for (const [path, bytes] of Object.entries(m.inputs).sort((a, b) => b[1] - a[1])) console.log(`  ${String(bytes).padStart(6)} B  ${path}`);
  for (const [inputs, gz] of Object.entries(m.lazy)) console.log(`  loaded on first use: ${gz} B gz (${inputs})`);
  const names = quickstartImports();
  const q = await measureReactEntry(names);
  console.log(`react, the README quickstart's imports (${names.join(', ')}): ${q.minBytes} B min, ${q.gzipBytes} B gz (budget ${REACT_QUICKSTART_BUDGET_GZ} B gz)`);
  if (m.gzipBytes > REACT_BUDGET_GZ || q.gzipBytes > REACT_QUICKSTART_BUDGET_GZ) {
    console.error('react over its budget');
    process.exit(1);
  }
}
