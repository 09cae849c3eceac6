// `npm run build` (and `prepack`): the package's dist/ from a clean slate. Removes dist/ first, so
// a file whose source was deleted or renamed can never be published; compiles with
// tsconfig.build.json (ESM + .d.ts, no source maps: src/ is not shipped, and maps without
// sourcesContent would only point at files a consumer does not have); makes the sandbox's bin
// executable.
import { chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const bin of Object.values(pkg.bin ?? {})) {
  const file = join(root, bin);
  if (!readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n')) {
    console.error(`build: ${bin} lacks its #!/usr/bin/env node line`);
    process.exit(1);
  }
  chmodSync(file, 0o755);
}
// The React entry's modules must keep their "use client" directive (Next.js App Router treats them
// as client modules only then): tsc keeps a directive prologue; this makes sure it stays so.
for (const file of readdirSync(join(dist, 'react')).filter((f) => f.endsWith('.js'))) {
  if (!readFileSync(join(dist, 'react', file), 'utf8').startsWith("'use client';")) {
    console.error(`build: dist/react/${file} does not start with 'use client'`);
    process.exit(1);
  }
}
// The signer page of frame mode (index.html, signer.css, signer.js and its chunks).
const { buildSignerPage } = await import('./signer-page.mjs');
await buildSignerPage(join(dist, 'signer-page'));
console.log(`build: dist/ from a clean slate (${pkg.name}@${pkg.version})`);
