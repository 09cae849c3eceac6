// `npm run package-check`: the package as an adopter gets it. Packs it from a clean dist/ (the
// prepack build), checks what the tarball holds, runs `publint --strict` and `attw` on it, then
// installs it into a throwaway consumer in the OS temp folder (the tarball extracted into its
// node_modules; the package's dependencies linked from this repo's node_modules; the optional
// peers absent at first) and:
// - type-checks the consumer (test/consumer/: every entry, and the type tests of the public types)
//   under moduleResolution `bundler` and `nodenext`, with TypeScript 5.7 (the minimum the README
//   states, devDependency `typescript-min`) and with the repo's own TypeScript, skipLibCheck off so
//   our .d.ts files are checked too;
// - loads every entry with import() and require() (require of ESM: Node ≥ 20.19), the testing
//   entry included (it imports only the types of its optional peer @playwright/test);
// - starts the sandbox's bin without the peers (it must exit naming them), then with them (it must
//   answer over HTTP).
// Exit 1 on the first failure. The temp folder and the tarball are removed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const work = mkdtempSync(join(tmpdir(), 'ews-package-check-'));
const steps = [];

function fail(message, output = '') {
  console.error(`package-check: ${message}`);
  if (output) console.error(output.trimEnd());
  process.exitCode = 1;
  throw new Error(message);
}

function run(label, command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) fail(`${label} failed (exit ${result.status})`, output);
  steps.push(`ok  ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log(steps.at(-1));
  return { output, stdout: result.stdout ?? '' };
}

function link(consumer, name) {
  const target = join(root, 'node_modules', name);
  if (!existsSync(target)) fail(`${name} is not installed in this repo (npm ci first)`);
  const at = join(consumer, 'node_modules', name);
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at, 'junction');
}

/** Starts the packed bin; resolves with its output once it printed `until`, or when it exits. */
function startBin(file, cwd, until) {
  return new Promise((resolve) => {
    const child = spawn(file, [], { cwd, env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_LOG: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const onData = (chunk) => {
      out += chunk.toString();
      if (until !== undefined && out.includes(until)) resolve({ out, child, code: undefined });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ out, child, code });
    });
  });
}

async function main() {
  // 1. Pack from a clean dist/: prepack builds it, so a fresh clone packs the real thing.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const packed = run('npm pack (prepack: clean build)', 'npm', ['pack', '--json', '--pack-destination', work], { cwd: root });
  const report = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m)))[0];
  const tarball = join(work, report.filename);
  const files = report.files.map((f) => f.path);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const required = ['LICENSE', 'README.md', 'ERRORS.md', 'package.json', ...Object.values(pkg.bin)].map((f) => f.replace(/^\.\//, ''));
  for (const entry of Object.values(pkg.exports)) {
    if (typeof entry === 'object') required.push(entry.types.slice(2), entry.import.slice(2));
  }
  // The signer page (./signer-page/*, a folder of static files rather than a module).
  required.push('dist/signer-page/index.html', 'dist/signer-page/signer.js', 'dist/signer-page/signer.css');
  const missing = required.filter((f) => !files.includes(f));
  if (missing.length) fail(`the tarball lacks ${missing.join(', ')}`);
  const unwanted = files.filter((f) => f.endsWith('.map') || f.startsWith('src/') || f.includes('.test.'));
  if (unwanted.length) fail(`the tarball holds files it should not: ${unwanted.slice(0, 5).join(', ')}`);
  // Relative links in the shipped markdown must point at shipped files (others are absolute URLs).
  for (const doc of ['README.md', 'ERRORS.md']) {
    for (const [, href] of readFileSync(join(root, doc), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (!/^[a-z]+:/.test(href) && !files.includes(href)) fail(`${doc} links to ${href}, which the package does not ship`);
    }
  }
  console.log(`    ${files.length} files, ${report.size} B packed, ${report.unpackedSize} B unpacked`);

  // 2. The linters, on the tarball itself.
  console.log(`    ${run('publint --strict', bin('publint'), ['--strict', tarball]).output.trim().split('\n').at(-1)}`);
  // cjs-resolves-to-esm: the package is ESM only on purpose; Node ≥ 20.19 (engines) loads it with
  // require() (checked below), and every other row of attw (node10, node16 from CJS and ESM, bundler)
  // must resolve.
  run('attw (ignoring cjs-resolves-to-esm: ESM only, require(esm) on Node ≥ 20.19)', bin('attw'), [tarball, '--ignore-rules', 'cjs-resolves-to-esm', '--no-color']);

  // 3. A consumer: the tarball in node_modules, the dependencies linked, the peers absent.
  const consumer = join(work, 'consumer');
  const installed = join(consumer, 'node_modules', pkg.name);
  mkdirSync(installed, { recursive: true });
  run('extract the tarball into the consumer', 'tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dep of Object.keys(pkg.dependencies)) link(consumer, dep);
  link(consumer, '@types/node');
  // The testing entry's Playwright fixtures are typed by the app's @playwright/test (an optional peer
  // that an app testing with Playwright has); test/consumer/src/testing.ts uses them.
  link(consumer, '@playwright/test');
  // The React entry's optional peer (an app that imports embedded-wallet-signer/react has React).
  for (const dep of ['react', '@types/react']) link(consumer, dep);
  cpSync(join(root, 'test', 'consumer'), consumer, { recursive: true });

  // 4. Type-check it: two resolutions × the minimum TypeScript and ours.
  const compilers = [
    ['TypeScript 5.7 (typescript-min)', join(root, 'node_modules', 'typescript-min', 'bin', 'tsc')],
    [`TypeScript ${JSON.parse(readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8')).version}`, join(root, 'node_modules', 'typescript', 'bin', 'tsc')],
  ];
  for (const [name, tsc] of compilers) {
    for (const resolution of ['bundler', 'nodenext']) {
      run(`type-check the consumer: ${resolution}, ${name}`, process.execPath, [tsc, '-p', join(consumer, `tsconfig.${resolution}.json`)], { cwd: consumer });
    }
  }

  // 5. Load every entry at run time, as ESM and with require() (no sandbox peers needed to load).
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json' && !k.includes('*')).map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
  const esm = subpaths.map((s) => `await import(${JSON.stringify(s)});`).join('');
  run('import() every entry', process.execPath, ['--input-type=module', '-e', esm], { cwd: consumer });
  const cjs = subpaths.map((s) => `require(${JSON.stringify(s)});`).join('');
  run('require() every entry (require of ESM)', process.execPath, ['--no-warnings', '--input-type=commonjs', '-e', cjs], { cwd: consumer });

  // 6. The sandbox's bin, without its optional peers, then with them.
  const cli = join(installed, pkg.bin['embedded-wallet-signer-sandbox']);
  const without = await startBin(cli, consumer, undefined);
  // The sandbox's peers (the testing entry's @playwright/test and the React entry's react are not among them).
  const notSandbox = new Set(['@playwright/test', 'react', 'react-dom']);
  const peers = Object.keys(pkg.peerDependencies).filter((p) => !notSandbox.has(p));
  const install = /npm install --save-dev ([^\n]+)/.exec(without.out)?.[1]?.trim().split(/\s+/) ?? [];
  if (without.code !== 2 || [...install].sort().join(' ') !== [...peers].sort().join(' ')) {
    fail(`the bin without its peers should exit 2 naming them; it exited ${without.code}`, without.out);
  }
  steps.push('ok  the bin without the optional peers exits 2: ' + without.out.trim());
  console.log(steps.at(-1));
  for (const peer of peers) link(consumer, peer);
  const started = await startBin(cli, consumer, 'enclave public key:');
  try {
    const url = /sandbox listening: (\S+)/.exec(started.out)?.[1];
    if (url === undefined) fail('the bin did not start', started.out);
    const auth = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
    const res = await fetch(`${url}/sandbox/enclave`, { headers: { Authorization: auth } });
    if (res.status !== 200) fail(`the bin's sandbox answered ${res.status}`);
    const { enclaveQuorumPublic } = await res.json();
    if (!started.out.includes(enclaveQuorumPublic)) fail('the enclave key printed and served differ');
    steps.push(`ok  the bin with the peers serves ${url} (GET /sandbox/enclave → 200)`);
    console.log(steps.at(-1));
  } finally {
    started.child.kill('SIGTERM');
  }
}

try {
  await main();
  console.log(`package-check: all ${steps.length} steps ok`);
} catch (error) {
  if (process.exitCode !== 1) {
    console.error(error);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
