/**
 * Next.js App Router. Two levels:
 * - the route handlers `nextRouteHandlers` returns, called with real `NextRequest` objects from the
 *   real `next/server` package, as Next calls them;
 * - a minimal Next app (`app/api/[...path]/route.ts` exporting `{ GET, POST, PATCH, DELETE }`), built
 *   with the real `next build` and served by `next start`, then called over HTTP. A build of this
 *   app takes ~10–20 s here (measured; printed below), so it runs in the normal suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NextRequest } from 'next/server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextRouteHandlers, withCors } from '../../src/proxy/index.js';
import { expectLibraryCalls, startWorld, type AdapterWorld } from './setup.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let world: AdapterWorld;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world?.sandbox.close());

describe('nextRouteHandlers with real NextRequest objects', () => {
  it('GET, POST, PATCH and DELETE each reach the proxy; ownership enforced', async () => {
    const { GET, POST, PATCH, DELETE } = nextRouteHandlers(world.proxy('/api'));
    const { alice, bob } = world.users;
    const e = encodeURIComponent;
    const req = (method: string, path: string, user: string, body?: unknown) =>
      new NextRequest(`http://app.test/api${path}`, {
        method,
        headers: { 'x-test-user': user, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await GET(req('GET', `/auth/credentials?accountId=${e(alice.accountId)}`, 'alice'))).status).toBe(200);
    expect((await POST(req('POST', `/auth/credentials/${e(alice.credentialId)}/challenge`, 'alice', {}))).status).toBe(200);
    expect((await PATCH(req('PATCH', `/internal-accounts/${e(alice.accountId)}`, 'alice', { nickname: 'n' }))).status).toBe(202);
    expect((await DELETE(req('DELETE', `/auth/credentials/${e(alice.credentialId)}`, 'alice'))).status).toBe(400); // the service's LAST_CREDENTIAL
    const refused = await GET(req('GET', `/auth/credentials?accountId=${e(bob.accountId)}`, 'alice'));
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain(bob.accountId);
    expect((await GET(req('GET', `/auth/credentials?accountId=${e(alice.accountId)}`, 'nobody'))).status).toBe(401);
  });

  it('OPTIONS: a signer origin\'s preflight is answered through withCors; any other origin, or a proxy without withCors, refuses it', async () => {
    const signer = 'http://signer.app.test';
    const preflight = (origin: string) =>
      new NextRequest('http://app.test/api/auth/sessions/s1/refresh', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    const { OPTIONS } = nextRouteHandlers(withCors(world.proxy('/api'), { origins: [signer] }));
    const allowed = await OPTIONS(preflight(signer));
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(signer);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const foreign = await OPTIONS(preflight('http://elsewhere.test'));
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const bare = await nextRouteHandlers(world.proxy('/api')).OPTIONS(preflight(signer));
    expect(bare.status).toBeGreaterThanOrEqual(400);
    expect(bare.headers.get('access-control-allow-origin')).toBeNull();
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; done: Promise<number | null> } {
  const child = spawn(command, args, { cwd, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  return { child, output: () => output, done: new Promise((resolve) => child.once('exit', resolve)) };
}

describe('a minimal Next.js app: next build, next start', () => {
  const app = join(REPO, `.tmp-next-app-${process.pid}`);
  let server: ChildProcess | undefined;

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(app, { recursive: true, force: true });
  });

  it('app/api/[...path]/route.ts: export const { GET, POST, PATCH, DELETE } = nextRouteHandlers(proxy)', async () => {
    mkdirSync(join(app, 'app/api/[...path]'), { recursive: true });
    writeFileSync(join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
    // The route imports this repository's TypeScript sources, whose imports say `.js` (ESM style):
    // webpack's extensionAlias maps them to the `.ts` files (an adopter imports the built package).
    writeFileSync(
      join(app, 'next.config.mjs'),
      "export default { webpack: (config) => { config.resolve.extensionAlias = { '.js': ['.ts', '.js'] }; return config; } };\n",
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', lib: ['dom', 'dom.iterable', 'ES2022'], module: 'esnext', moduleResolution: 'bundler', strict: true, jsx: 'react-jsx', noEmit: true, skipLibCheck: true, isolatedModules: true, esModuleInterop: true, resolveJsonModule: true, allowJs: false, incremental: false, plugins: [{ name: 'next' }] }, include: ['**/*.ts'], exclude: ['node_modules'] }, null, 2),
    );
    writeFileSync(
      join(app, 'app/api/[...path]/route.ts'),
      `import { createProxy, nextRouteHandlers } from '../../../../src/proxy/index.js';

export const dynamic = 'force-dynamic';

const users: Record<string, { customerId: string }> = JSON.parse(process.env.TEST_USERS ?? '{}');

const proxy = createProxy({
  baseUrl: process.env.SERVICE_URL ?? '',
  clientId: process.env.SERVICE_CLIENT_ID ?? '',
  clientSecret: process.env.SERVICE_CLIENT_SECRET ?? '',
  prefix: '/api',
  logger: false,
  // A real app reads its session cookie here.
  currentUser: (request) => users[request.headers.get('x-test-user') ?? ''] ?? null,
});

export const { GET, POST, PATCH, DELETE } = nextRouteHandlers(proxy);
`,
    );
    const env = {
      SERVICE_URL: world.sandbox.url,
      SERVICE_CLIENT_ID: 'sandbox-client',
      SERVICE_CLIENT_SECRET: 'sandbox-secret',
      TEST_USERS: JSON.stringify({ alice: { customerId: world.users.alice.customerId }, bob: { customerId: world.users.bob.customerId } }),
    };
    const next = join(REPO, 'node_modules/.bin/next');
    const started = Date.now();
    const built = run(next, ['build', '--webpack'], app, env);
    const code = await built.done;
    const buildMs = Date.now() - started;
    expect(code, built.output()).toBe(0);
    console.info(`next build of the minimal app: ${buildMs} ms`);

    const port = await freePort();
    const start = run(next, ['start', '-p', String(port), '-H', '127.0.0.1'], app, env);
    server = start.child;
    const origin = `http://127.0.0.1:${port}`;
    // Polled until it answers (every 200 ms; given up after 120 s, a bound for a busy machine, or when it exits).
    for (const deadline = Date.now() + 120_000; ; ) {
      try {
        await fetch(`${origin}/api/ready`);
        break;
      } catch {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error(`next start did not come up: ${start.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await expectLibraryCalls(`${origin}/api`, world);
  }, 180_000);
});
