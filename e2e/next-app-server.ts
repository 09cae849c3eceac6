/**
 * The Next.js example (examples/next-app) served by `next start` on a free port of 127.0.0.1, in
 * front of a sandbox of its own (also on a free port); `stop()` ends them. The example is built
 * (`npm run example:next`) by the global setup when its build is missing or older than its sources.
 * Used by e2e/11-next-app.spec.ts (Chromium, console checks) and e2e/portable/12-next-app.spec.ts
 * (every engine), in both modes: in frame mode the package's built signer page (dist/signer-page,
 * from the same build as the example's) is served on another free port of 127.0.0.1 (another
 * origin, the same site: these journeys have no passkey, so an IP address does), configured at its
 * host as an integrator does (allowed parent: the app; proxy: the app's /api/wallet; the sandbox's
 * enclave key), and `next start` is told its URL (`SIGNER_URL`, read at request time: one build
 * serves both modes).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startSandbox, type RunningSandbox } from '../src/sandbox/index.js';
import { serveSignerPage, type SignerPageServer } from '../src/signer/host/serve.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const app = `${repo}examples/next-app`;
const next = `${repo}node_modules/next/dist/bin/next`;

export interface NextApp {
  url: string;
  sandbox: RunningSandbox;
  /** Frame mode: the signer page's URL (`http://127.0.0.1:<port>/`); in-origin: null. */
  signerUrl: string | null;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The newest modification time of a file under `path` (a file or a directory). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(`${path}/${name}`)));
}

/**
 * Builds the example (`npm run example:next`) when its build, or the package's signer page, is
 * missing, or when a source of the example is newer than its build (a checkout that changed it).
 * Called once by e2e/global-setup.ts before the workers start: two workers building it at once
 * would each delete the other's `.next/`.
 */
export function ensureNextAppBuilt(): void {
  const built = `${app}/.next/BUILD_ID`;
  const current =
    existsSync(built) &&
    existsSync(`${repo}dist/signer-page/signer.js`) &&
    Math.max(...['app', 'lib', 'next.config.mjs'].map((p) => newest(`${app}/${p}`))) <= statSync(built).mtimeMs;
  if (current) return;
  const run = spawnSync('npm', ['run', 'example:next'], { cwd: repo, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (run.status !== 0) throw new Error('the Next.js example did not build (npm run example:next)');
}

/** Starts the example in `mode` (`frame`: with its signer page on another port, see the module's comment). */
export async function startNextApp(mode: 'in-origin' | 'frame' = 'in-origin'): Promise<NextApp> {
  ensureNextAppBuilt();
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', log: false });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let signer: SignerPageServer | undefined;
  if (mode === 'frame') {
    signer = await serveSignerPage({
      dir: `${repo}dist/signer-page`,
      config: { allowedParentOrigins: [url], baseUrl: `${url}/api/wallet`, trustedKeys: [sandbox.enclavePublicKey], name: 'Example wallet' },
      host: '127.0.0.1',
      publicHost: '127.0.0.1',
    }).catch(async (e: unknown) => {
      await sandbox.close();
      throw e;
    });
  }
  const server = spawn(process.execPath, [next, 'start', app, '-p', String(port), '-H', '127.0.0.1'], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      SERVICE_BASE_URL: sandbox.url,
      SERVICE_CLIENT_ID: 'sandbox-client',
      SERVICE_CLIENT_SECRET: 'sandbox-secret',
      ENCLAVE_PUBLIC_KEY_HEX: sandbox.enclavePublicKey,
      APP_SESSION_SECRET: 'e2e-app-session-secret-of-32-characters-or-more',
      SIGNER_URL: signer?.url, // unset in in-origin mode (spawn leaves out undefined values)
    },
  });
  const stop = async (): Promise<void> => {
    server.kill('SIGTERM');
    await Promise.all([sandbox.close(), signer?.close()]);
  };
  let log = '';
  server.stdout?.on('data', (d) => (log += String(d)));
  server.stderr?.on('data', (d) => (log += String(d)));
  const until = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > until || server.exitCode !== null) {
      await stop();
      throw new Error(`next start did not answer:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, sandbox, signerUrl: signer?.url ?? null, stop };
}
