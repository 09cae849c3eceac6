import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The bin under tsx, from `cwd` (default: the repository), with the repository's tsx and cli.ts. */
function runCli(env: Record<string, string>, args: string[] = ['--new-enclave-key'], cwd = REPO): Promise<{ out: string; stop: () => void; exit: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const tsx = new URL('node_modules/tsx/dist/loader.mjs', `file://${REPO}`).href;
    const child = spawn(process.execPath, ['--import', tsx, join(REPO, 'src/sandbox/cli.ts'), ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('enclave public key:')) resolve({ out, stop: () => child.kill('SIGTERM'), exit });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (out.includes('enclave public key:') ? undefined : reject(new Error(`cli exited ${code}: ${out}`))));
  });
}

describe('npm run sandbox (cli.ts)', () => {
  it('prints the URL, the client id and the enclave key, never the secret; serves with those credentials', async () => {
    const { out, stop, exit } = await runCli({ SANDBOX_PORT: '0', SANDBOX_CLIENT_ID: 'cli-id', SANDBOX_CLIENT_SECRET: 'very-secret-value', SANDBOX_LOG: 'off' });
    try {
      expect(out).toMatch(/sandbox listening: http:\/\/127\.0\.0\.1:[0-9]+\/2025-10-13/);
      expect(out).toContain('client id: cli-id');
      expect(out).toMatch(/enclave public key: 04[0-9a-f]{128}/);
      expect(out).not.toContain('very-secret-value');
      const url = /sandbox listening: (\S+)/.exec(out)?.[1] as string;
      const res = await fetch(`${url}/sandbox/enclave`, { headers: { Authorization: `Basic ${Buffer.from('cli-id:very-secret-value').toString('base64')}` } });
      expect(res.status).toBe(200);
      expect(out).toContain((await res.json()).enclaveQuorumPublic);
    } finally {
      stop();
    }
    expect(await exit).toBe(0);
  });

  it('refuses a bad SANDBOX_PORT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], { env: { ...process.env, SANDBOX_PORT: 'abc' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(2);
    expect(err).toContain('SANDBOX_PORT');
  });

  it('--help prints the options and their environment variables, and starts nothing', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(out).toContain('Usage: embedded-wallet-signer-sandbox');
    for (const name of ['--port', '--origin', '--enclave-key-file', '--enclave-seed', 'SANDBOX_PORT']) expect(out).toContain(name);
    expect(out).not.toContain('sandbox listening');
  });

  it('--port and --origin name what it serves; with --enclave-key-file the key printed is the same after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ews-cli-'));
    const file = join(dir, 'enclave.pem');
    const keys: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const { out, stop, exit } = await runCli({ SANDBOX_LOG: 'off', SANDBOX_PORT: '8787' }, ['--port', '0', '--origin', 'http://a.test,http://b.test', '--enclave-key-file', file]);
        stop();
        expect(await exit).toBe(0);
        expect(out).not.toContain(':8787/');
        expect(out).toContain('webauthn: origin http://a.test, http://b.test');
        expect(out).toContain(`enclave key: kept in ${file}`);
        keys.push(/enclave public key: (04[0-9a-f]{128})/.exec(out)?.[1] ?? '');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(keys[0]).toMatch(/^04/);
    expect(keys[1]).toBe(keys[0]);
  }, 90_000); // two starts of the bin under tsx: ~9 s each on a busy machine

  it('with no enclave option (development), the key is kept under the project’s node_modules/.cache: the same after a restart', async () => {
    const project = mkdtempSync(join(tmpdir(), 'ews-cli-default-'));
    mkdirSync(join(project, 'node_modules'));
    const file = join(project, 'node_modules/.cache/embedded-wallet-signer/sandbox-enclave-key.pem');
    const keys: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const { out, stop, exit } = await runCli({ SANDBOX_LOG: 'off', NODE_ENV: 'development' }, ['--port', '0'], project);
        stop();
        expect(await exit).toBe(0);
        expect(out).toContain(`enclave key: kept in ${file}`);
        keys.push(/enclave public key: (04[0-9a-f]{128})/.exec(out)?.[1] ?? '');
      }
      expect(existsSync(file)).toBe(true);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
    expect(keys[0]).toMatch(/^04/);
    expect(keys[1]).toBe(keys[0]);
  }, 90_000); // two starts of the bin under tsx, as above

  it('refuses an unknown option, naming it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', '--prot', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await new Promise<number | null>((r) => child.on('exit', r))).toBe(2);
    expect(err).toContain('--prot');
    expect(err).toContain('--help');
  });
});
