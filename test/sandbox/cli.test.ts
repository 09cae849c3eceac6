import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runCli(env: Record<string, string>): Promise<{ out: string; stop: () => void; exit: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
});
