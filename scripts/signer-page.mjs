// Builds the static signer page (the frame of frame mode: src/signer/page/ + the bundle of
// src/signer/frame/main.ts) into a directory: index.html, signer.css, signer.js and its chunks (the
// login flows and actions load on first use, as in the app). `npm run build` puts it in
// dist/signer-page/ (the package's `embedded-wallet-signer/signer-page/*`); the e2e tests and the
// demo build it into a directory of their own. The host adds signer-config.json beside it.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = join(root, 'src', 'signer', 'page');

/** Builds the page into `outDir`; resolves to esbuild's metafile (sizes). */
export async function buildSignerPage(outDir, { minify = true } = {}) {
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: { signer: join(root, 'src', 'signer', 'frame', 'main.ts') },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'signer.css']) copyFileSync(join(page, file), join(outDir, file));
  return result.metafile;
}
