// The sandbox bin's command line (src/sandbox/cli-options.ts): named options over their
// environment variables, the enclave key's default (a kept file in development, new in
// production), and refusals with a message naming the option.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultEnclaveKeyFile, parseCli, USAGE } from '../../src/sandbox/cli-options.js';

const cwd = process.cwd(); // the repository: it has node_modules
const parsed = (argv: string[], env: Record<string, string | undefined> = {}) => {
  const r = parseCli(argv, env, cwd);
  if (r.help) throw new Error('help');
  return r;
};

describe('sandbox command line', () => {
  it('defaults: port 8787, 127.0.0.1, the default origin and client, the enclave key kept under node_modules/.cache', () => {
    const { options, clientSecretFromEnv } = parsed([]);
    expect(options).toMatchObject({ port: 8787, host: '127.0.0.1', origin: ['http://localhost:5173'], rpId: 'localhost', clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
    expect(options.enclaveKey).toEqual({ file: join(cwd, 'node_modules', '.cache', 'embedded-wallet-signer', 'sandbox-enclave-key.pem') });
    expect(clientSecretFromEnv).toBe(false);
    expect(options.log).toBeUndefined();
  });

  it('named options win over the environment; --origin repeats or takes commas', () => {
    const env = { SANDBOX_PORT: '9000', SANDBOX_ORIGIN: 'http://env.test', SANDBOX_CLIENT_ID: 'env-id', SANDBOX_CLIENT_SECRET: 's3cret', SANDBOX_LOG: 'off' };
    expect(parsed([], env).options).toMatchObject({ port: 9000, origin: ['http://env.test'], clientId: 'env-id', clientSecret: 's3cret', log: false });
    const { options } = parsed(['-p', '0', '--origin', 'http://a.test,http://b.test', '--origin', 'http://c.test', '--client-id', 'flag-id', '--rp-id', 'a.test', '--host', '::1', '--profile', 'service'], env);
    expect(options).toMatchObject({ port: 0, origin: ['http://a.test', 'http://b.test', 'http://c.test'], clientId: 'flag-id', rpId: 'a.test', host: '::1', profile: 'service' });
  });

  it('the enclave key: a file, a seed, new at every start, or new by default with NODE_ENV=production', () => {
    expect(parsed(['--enclave-key-file', '/tmp/k.pem']).options.enclaveKey).toEqual({ file: '/tmp/k.pem' });
    expect(parsed([], { SANDBOX_ENCLAVE_SEED: 'ci' }).options.enclaveKey).toEqual({ seed: 'ci' });
    expect(parsed(['--enclave-seed', 'flag'], { SANDBOX_ENCLAVE_SEED: 'env' }).options.enclaveKey).toEqual({ seed: 'flag' });
    expect(parsed(['--new-enclave-key']).options.enclaveKey).toBeUndefined();
    expect(parsed([], { NODE_ENV: 'production' }).options.enclaveKey).toBeUndefined();
    expect(parsed([], { NODE_ENV: 'production', SANDBOX_ENCLAVE_SEED: 'x' }).options.enclaveKey).toEqual({ seed: 'x' });
    expect(defaultEnclaveKeyFile('/nowhere-without-modules', '/home/dev')).toBe('/home/dev/.cache/embedded-wallet-signer/sandbox-enclave-key.pem');
  });

  it('--help; refusals name the option', () => {
    expect(parseCli(['--help'], {}, cwd)).toEqual({ help: true });
    expect(parseCli(['-h'], {}, cwd)).toEqual({ help: true });
    for (const name of ['--port', '--origin', '--enclave-key-file', '--enclave-seed', '--new-enclave-key', '--profile', 'SANDBOX_PORT', 'SANDBOX_ENCLAVE_SEED']) expect(USAGE).toContain(name);
    expect(() => parsed(['--port', 'abc'])).toThrow(/--port/);
    expect(() => parsed([], { SANDBOX_PORT: '70000' })).toThrow(/SANDBOX_PORT/);
    expect(() => parsed(['--profile', 'prod'])).toThrow(/--profile/);
    expect(() => parsed(['--origin', ','])).toThrow(/--origin/);
    expect(() => parsed(['--enclave-seed', 'a', '--new-enclave-key'])).toThrow(/one of/);
    expect(() => parsed(['--what'])).toThrow(/--what/);
  });

  it('every option --help names is in the README (issue 35: the bin’s options, all in the README) and is accepted', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const options = [...new Set([...USAGE.matchAll(/^\s+(?:-[a-z], )?(--[a-z-]+)/gm)].map((m) => m[1] as string))];
    expect(options.length).toBeGreaterThanOrEqual(12);
    for (const option of options) expect(new RegExp(`${option}(?![a-z-])`).test(readme), option).toBe(true);
    for (const option of options.filter((o) => o !== '--help')) expect(() => parseCli([option, ...(['--new-enclave-key', '--quiet'].includes(option) ? [] : ['x'])], {}, cwd), option).not.toThrow(/Unknown option/);
    expect(() => parsed(['positional'])).toThrow();
  });
});
