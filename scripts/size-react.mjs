// The size of `embedded-wallet-signer/react` as an app's bundler ships it: esbuild, minified ESM
// for browsers, React (and react-dom) external, gzip level 9. Budget: 3 KB gz. `npm run size`
// (scripts/size.mjs) measures and budgets it with the rest; run alone with
// `node scripts/size-react.mjs` (exit 1 over budget).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REACT_BUDGET_GZ = 3 * 1024;

/** { minBytes, gzipBytes, inputs } of the React entry, React excluded. */
export async function measureReactEntry() {
  const result = await build({
    entryPoints: [join(root, 'src/react/index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['react', 'react-dom'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.entries(result.metafile.outputs)[0][1].inputs;
  return {
    minBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    startsWithUseClient: new TextDecoder().decode(code.slice(0, 14)).startsWith('"use client"'),
    inputs: Object.fromEntries(Object.entries(inputs).filter(([, i]) => i.bytesInOutput > 0).map(([p, i]) => [p, i.bytesInOutput])),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const m = await measureReactEntry();
  console.log(`react (src/react/index.ts, React external): ${m.minBytes} B min, ${m.gzipBytes} B gz (budget ${REACT_BUDGET_GZ} B gz)`);
  for (const [path, bytes] of Object.entries(m.inputs).sort((a, b) => b[1] - a[1])) console.log(`  ${String(bytes).padStart(6)} B  ${path}`);
  if (m.gzipBytes > REACT_BUDGET_GZ) {
    console.error('react entry over its budget');
    process.exit(1);
  }
}
