/**
 * The Next.js example (examples/next-app) served by `next start` on a free port of 127.0.0.1, in
 * front of a sandbox of its own (also on a free port); `stop()` ends both. The example is built
 * (`npm run example:next`) by the global setup when its build is missing. Used by e2e/11-next-app.spec.ts (Chromium,
 * console checks) and e2e/portable/12-next-app.spec.ts (every engine).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startSandbox, type RunningSandbox } from '../src/sandbox/index.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const app = `${repo}examples/next-app`;
const next = `${repo}node_modules/next/dist/bin/next`;

export interface NextApp {
  url: string;
  sandbox: RunningSandbox;
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

/**
 * Builds the example (`npm run example:next`) when its build is missing. Called once by
 * e2e/global-setup.ts before the workers start: two workers building it at once would each delete
 * the other's `.next/`.
 */
export function ensureNextAppBuilt(): void {
  if (existsSync(`${app}/.next/BUILD_ID`)) return;
  const built = spawnSync('npm', ['run', 'example:next'], { cwd: repo, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (built.status !== 0) throw new Error('the Next.js example did not build (npm run example:next)');
}

export async function startNextApp(): Promise<NextApp> {
  ensureNextAppBuilt();
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', log: false });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
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
    },
  });
  const stop = async (): Promise<void> => {
    server.kill('SIGTERM');
    await sandbox.close();
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
  return { url, sandbox, stop };
}
