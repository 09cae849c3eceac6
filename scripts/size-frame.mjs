// `npm run size:frame`: what frame mode costs. The parent: an app that imports createWallet and
// signerFrame from the frame entry (src/signer/parent/index.ts), bundled by esbuild (minified, ESM,
// browser) and gzipped (level 9); budget 8 KB gz (issue 32). The signer page (the frame's own
// bundle, reported apart): its startup (signer.js and the chunks it imports statically: what the
// frame's first paint, handshake and session restore load) and the chunks it loads on first use
// (the prompts, passkeys, flows and actions). Exit 1 over the parent's or the startup's budget.
// `--why`: the startup's bytes per source module.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildSignerPage } from './signer-page.mjs';

const PARENT_BUDGET_GZ = 8 * 1024;
// The signer page's startup (signer.js and the chunks it imports statically): measured + 0.1 KB (BENCHMARKS.md;
// 33.25 KB gz after the merge of 2026-11-28 evening: the frame sized to its prompt, the page's title and language).
const SIGNER_STARTUP_BUDGET_GZ = 33.35 * 1024;
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
  const meta = await buildSignerPage(pageDir);
  // The page's startup: signer.js and the chunks it imports statically (transitively), which the
  // browser fetches before the script runs; every other chunk is fetched on first use (import()).
  const outputs = Object.fromEntries(Object.entries(meta.outputs).map(([file, out]) => [relative(pageDir, resolve(root, file)), out]));
  const startup = new Set();
  const visit = (file) => {
    if (startup.has(file)) return;
    startup.add(file);
    for (const i of outputs[file].imports) if (i.kind === 'import-statement') visit(relative(pageDir, resolve(root, i.path)));
  };
  visit('signer.js');
  const js = Object.keys(outputs).filter((f) => f.endsWith('.js'));
  const read = (files) => files.map((f) => readFileSync(join(pageDir, f)));
  const sum = (files) => {
    const bytes = read(files);
    return `${kb(bytes.reduce((n, b) => n + b.length, 0))} KB min, ${kb(bytes.reduce((n, b) => n + gz(b), 0))} KB gz`;
  };
  const startupFiles = js.filter((f) => startup.has(f));
  const later = js.filter((f) => !startup.has(f));
  const startupGz = read(startupFiles).reduce((n, b) => n + gz(b), 0);
  console.log(`parent (frame entry, esbuild):   ${kb(parent.length)} KB min, ${kb(gz(parent))} KB gz (budget ${kb(PARENT_BUDGET_GZ)} KB gz)`);
  console.log(`signer page, entry signer.js:    ${sum(['signer.js'])}`);
  console.log(`signer page, startup (signer.js + ${startupFiles.length - 1} chunks it imports): ${sum(startupFiles)} (budget ${kb(SIGNER_STARTUP_BUDGET_GZ)} KB gz, each file gzipped alone)`);
  console.log(`signer page, ${later.length} chunks on first use: ${sum(later)}`);
  console.log(`signer page, css:                ${kb(statSync(join(pageDir, 'signer.css')).size)} KB`);
  // What each first use adds to the startup: a chunk the startup imports dynamically, with the
  // chunks it imports statically that the startup does not hold (the first prompt: prompts-*.js).
  const closure = (file, seen = new Set()) => {
    if (seen.has(file) || startup.has(file)) return seen;
    seen.add(file);
    for (const i of outputs[file].imports) if (i.kind === 'import-statement') closure(relative(pageDir, resolve(root, i.path)), seen);
    return seen;
  };
  const lazy = [...new Set(startupFiles.flatMap((f) => outputs[f].imports.filter((i) => i.kind === 'dynamic-import').map((i) => relative(pageDir, resolve(root, i.path)))))];
  for (const file of lazy.sort()) {
    const files = [...closure(file)];
    console.log(`  on first use, ${file.replace(/^chunks\//, '').replace(/-[A-Z0-9]+\.js$/, '')}: +${sum(files)} (${files.length} file${files.length === 1 ? '' : 's'})`);
  }
  if (process.argv.includes('--why')) {
    // What takes the startup bytes: each source module's minified bytes in the startup files.
    const modules = startupFiles.flatMap((f) => Object.entries(outputs[f].inputs).map(([m, v]) => [m, v.bytesInOutput]));
    for (const [m, bytes] of modules.sort((a, b) => b[1] - a[1]).filter(([, b]) => b > 0)) console.log(`  ${String(bytes).padStart(6)}  ${m}`);
  }
  if (gz(parent) > PARENT_BUDGET_GZ) {
    console.error('size:frame: the parent is over its budget');
    process.exitCode = 1;
  }
  if (startupGz > SIGNER_STARTUP_BUDGET_GZ) {
    console.error('size:frame: the signer page\'s startup is over its budget (what it needs before a prompt opens; load the rest on first use)');
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
