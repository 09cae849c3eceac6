// `npm run size:frame`: what frame mode costs. The parent: an app that imports createWallet and
// signerFrame from the frame entry (src/signer/parent/index.ts), bundled by esbuild (minified, ESM,
// browser) and gzipped (level 9); budget 8 KB gz (issue 32). The signer page (the frame's own
// bundle, reported apart): its entry script and every chunk it loads on first use.
// Exit 1 over the parent's budget.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildSignerPage } from './signer-page.mjs';

const PARENT_BUDGET_GZ = 8 * 1024;
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'size-frame-'));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(2);
try {
  const app = join(dir, 'app.js');
  writeFileSync(app, `import { createWallet, signerFrame } from ${JSON.stringify(join(root, 'src/signer/parent/index.ts'))};\nconst wallet = createWallet({ signer: signerFrame({ url: 'https://signer.example/' }) });\nwindow.addEventListener('load', () => wallet.restore());\n`);
  const out = await build({ entryPoints: [app], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'warning' });
  const parent = out.outputFiles[0].contents;
  const pageDir = join(dir, 'page');
  await buildSignerPage(pageDir);
  const entry = readFileSync(join(pageDir, 'signer.js'));
  const chunks = readdirSync(join(pageDir, 'chunks')).map((f) => readFileSync(join(pageDir, 'chunks', f)));
  console.log(`parent (frame entry, esbuild):   ${kb(parent.length)} KB min, ${kb(gz(parent))} KB gz (budget ${kb(PARENT_BUDGET_GZ)} KB gz)`);
  console.log(`signer page, entry signer.js:    ${kb(entry.length)} KB min, ${kb(gz(entry))} KB gz`);
  console.log(`signer page, ${chunks.length} chunks on first use: ${kb(chunks.reduce((n, c) => n + c.length, 0))} KB min, ${kb(chunks.reduce((n, c) => n + gz(c), 0))} KB gz`);
  console.log(`signer page, css:                ${kb(statSync(join(pageDir, 'signer.css')).size)} KB`);
  if (gz(parent) > PARENT_BUDGET_GZ) {
    console.error('size:frame: the parent is over its budget');
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
