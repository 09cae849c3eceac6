/**
 * The README's Express quickstart, run from the README alone: its `lib/wallet.ts` block and its
 * Express block, written to files as they are, started with tsx against an in-process sandbox with
 * the variables of step 0. Email-first: the bootstrap answers anyone (no user in it), a proxied call
 * without a session is 401, a login by email alone (start, the code sealed to the answer's bundle,
 * the signed verify) sets the session cookie, and with it the proxied call is 200; a start without
 * the variables fails naming them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealCookie } from '../../src/proxy/login-cookie.js';
import { provisionCustomer } from '../../src/proxy/index.js';
import { sealOtp } from '../sandbox/helpers/bundles.js';
import { newKey, stamp } from '../sandbox/helpers/keys.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { tsBlocks } from './blocks.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'readme-quickstart-secret-of-32-characters';
const dir = join(REPO, `.tmp-quickstart-${process.pid}`);
let sandbox: RunningSandbox;
let server: ChildProcess | undefined;

const YOUR_APP = `
// Your app's session lookup, for this test: the user is the JSON in the "user" cookie.
(globalThis as any).userFromSession = async (request: Request) => {
  const cookie = request.headers.get('cookie') ?? '';
  const match = /(?:^|; )user=([^;]+)/.exec(cookie);
  return match ? JSON.parse(decodeURIComponent(match[1]!)) : null;
};
`;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function start(env: Record<string, string>, file = 'server.ts'): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(join(REPO, 'node_modules/.bin/tsx'), ['--import', './your-app.ts', file], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  const blocks = tsBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
  const wallet = blocks.find((b) => b.startsWith('// file: lib/wallet.ts'));
  const express = blocks.find((b) => b.startsWith('// Express'));
  const next = blocks.find((b) => b.startsWith('// Next.js App Router'));
  expect(next, 'the Next.js block').toBeDefined();
  expect(wallet, 'the lib/wallet.ts block').toBeDefined();
  expect(express, 'the Express block').toBeDefined();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'lib'), { recursive: true });
  writeFileSync(join(dir, 'lib/wallet.ts'), wallet!);
  writeFileSync(join(dir, 'server.ts'), express!);
  writeFileSync(join(dir, 'your-app.ts'), YOUR_APP);
  mkdirSync(join(dir, 'app/api/wallet/catch-all'), { recursive: true });
  writeFileSync(join(dir, 'app/api/wallet/catch-all/route.ts'), next!);
  // What Next does with the route module: load it (at build and start), then call its handlers.
  writeFileSync(
    join(dir, 'next-route.ts'),
    `const route = await import('./app/api/wallet/catch-all/route.ts');
const response = await route.GET(new Request('http://localhost/api/wallet/auth/credentials?accountId=' + encodeURIComponent(process.env.ACCOUNT ?? ''), { headers: { cookie: process.env.COOKIE ?? '' } }));
console.log('STATUS ' + response.status);
`,
  );
  // The package's entries map to its sources (an app would have it installed).
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', target: 'ES2022', baseUrl: '.', paths: { '@/*': ['./*'], 'embedded-wallet-signer/proxy': [join(REPO, 'src/proxy/index.ts')] } } }),
  );
}, 60_000);

afterAll(async () => {
  server?.kill();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('README Express quickstart', () => {
  it('serves the bootstrap to anyone, 401 without a session, logs in by email alone and then serves the proxy', async () => {
    const port = await freePort();
    const run = start({
      SERVICE_BASE_URL: sandbox.url,
      SERVICE_CLIENT_ID: DEFAULT_CLIENT_ID,
      SERVICE_CLIENT_SECRET: DEFAULT_CLIENT_SECRET,
      ENCLAVE_PUBLIC_KEY_HEX: sandbox.enclavePublicKey,
      APP_SESSION_SECRET: SECRET,
      PORT: String(port),
    });
    server = run.child;
    const origin = `http://127.0.0.1:${port}`;
    let boot: Response | undefined;
    // Polled until the app answers (every 200 ms; given up after 60 s, a bound for a busy machine, or when it exits).
    for (const deadline = Date.now() + 60_000; boot === undefined && Date.now() < deadline && server.exitCode === null; ) {
      boot = await fetch(`${origin}/api/wallet-bootstrap`).catch(() => undefined);
      if (boot === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(boot?.status, run.output()).toBe(200);
    expect(await boot!.json()).toEqual({ trustedKeys: [sandbox.enclavePublicKey], baseUrl: '/api/wallet' });
    const started = await fetch(`${origin}/api/wallet/login/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `qs-${process.pid}@example.com` }) });
    expect(started.status, run.output()).toBe(200);
    const login = (await started.json()) as { accountId: string; credentialId: string; otpEncryptionTargetBundle: string };
    const ticket = started.headers.getSetCookie()[0]!.split(';')[0]!;
    const credentials = `${origin}/api/wallet/auth/credentials?accountId=${encodeURIComponent(login.accountId)}`;
    expect((await fetch(credentials)).status).toBe(401);
    const key = newKey();
    const body = JSON.stringify({ type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(login.otpEncryptionTargetBundle, '000000', key.compressed) });
    const verifyUrl = `${origin}/api/wallet/auth/credentials/${encodeURIComponent(login.credentialId)}/verify`;
    const headers = { 'content-type': 'application/json', cookie: ticket };
    const challenge = (await (await fetch(verifyUrl, { method: 'POST', headers, body })).json()) as { payloadToSign: string; requestId: string };
    const verified = await fetch(verifyUrl, { method: 'POST', headers: { ...headers, 'service-wallet-signature': stamp(challenge.payloadToSign, key), 'request-id': challenge.requestId }, body });
    expect(verified.status).toBe(200);
    const session = verified.headers.getSetCookie().find((c) => c.startsWith('ews_session='))!.split(';')[0]!;
    const listed = await fetch(credentials, { headers: { cookie: session } });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: { type: string }[] }).data.map((c) => c.type)).toEqual(['EMAIL_OTP']);
    run.child.kill();
    await run.exited;
  }, 60_000);

  it('without the SERVICE_* variables it does not start, and says which to set', async () => {
    const run = start({ PORT: String(await freePort()) });
    const code = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output()).toContain('SERVICE_BASE_URL');
    expect(run.output()).toContain('SERVICE_CLIENT_SECRET');
  }, 60_000);
});

describe('README Next.js quickstart (the route module as Next loads and calls it)', () => {
  it('its GET answers a signed-in user (the session cookie) through the proxy; without SERVICE_* loading it fails naming them (what next build shows)', async () => {
    const service = { baseUrl: sandbox.url, clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET };
    const user = await provisionCustomer(service, { platformCustomerId: `qs-next-${process.pid}`, email: `qs-next-${process.pid}@example.com` });
    // A session cookie as the login sets it (signed with the app's secret).
    const cookie = `ews_session=${await sealCookie(SECRET, 'session', { c: user.customerId, a: user.accountId, exp: Date.now() + 600_000 })}`;
    const env = { SERVICE_BASE_URL: sandbox.url, SERVICE_CLIENT_ID: DEFAULT_CLIENT_ID, SERVICE_CLIENT_SECRET: DEFAULT_CLIENT_SECRET, APP_SESSION_SECRET: SECRET, ACCOUNT: user.accountId };
    const ok = start({ ...env, COOKIE: cookie }, 'next-route.ts');
    expect(await ok.exited, ok.output()).toBe(0);
    expect(ok.output()).toContain('STATUS 200');
    const anonymous = start(env, 'next-route.ts');
    await anonymous.exited;
    expect(anonymous.output()).toContain('STATUS 401');
    const unset = start({}, 'next-route.ts');
    expect(await unset.exited).not.toBe(0);
    expect(unset.output()).toContain('SERVICE_BASE_URL');
  }, 60_000);
});

