// A fixed sandbox enclave key (src/sandbox/enclave-key.ts, startSandbox's `enclaveKey`): the same
// seed or key file gives the same enclave across restarts, the key signs what its public key
// verifies, a missing file is made (0600) and kept, a bad option or file is INVALID_ARGUMENT.
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnclave } from '../../src/sandbox/enclave.js';
import { checkEnclaveKeyOption, loadEnclaveKey } from '../../src/sandbox/enclave-key.js';
import { startSandbox } from '../../src/sandbox/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ews-enclave-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function enclaveOf(options: Parameters<typeof startSandbox>[0]): Promise<{ key: string; source: string }> {
  const sandbox = await startSandbox({ log: false, ...options });
  try {
    return { key: sandbox.enclavePublicKey, source: sandbox.enclaveKeySource };
  } finally {
    await sandbox.close();
  }
}

describe('a fixed enclave key', () => {
  it('the same seed gives the same key at every start; another seed another; no option a new one each start', async () => {
    const a = await enclaveOf({ enclaveKey: { seed: 'dev-seed' } });
    const b = await enclaveOf({ enclaveKey: { seed: 'dev-seed' } });
    const c = await enclaveOf({ enclaveKey: { seed: 'other-seed' } });
    expect(a.key).toMatch(/^04[0-9a-f]{128}$/);
    expect(b.key).toBe(a.key);
    expect(c.key).not.toBe(a.key);
    expect(a.source).toBe('derived from a seed');
    const fresh = [await enclaveOf({}), await enclaveOf({})];
    expect(fresh[0]!.key).not.toBe(fresh[1]!.key);
    expect(fresh[0]!.source).toBe('new at this start');
  });

  it('a key file is made when missing (mode 0600), then kept across restarts', async () => {
    const file = join(dir, 'nested', 'enclave.pem');
    const first = await enclaveOf({ enclaveKey: { file } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await enclaveOf({ enclaveKey: { file } });
    expect(again.key).toBe(first.key);
    expect(again.source).toBe(`kept in ${file}`);
  });

  it('the derived key signs what its public key verifies (DER ECDSA P-256/SHA-256)', () => {
    const key = loadEnclaveKey({ seed: 'verify-me' })!;
    const enclave = createEnclave(key);
    const data = new TextEncoder().encode('bundle data');
    expect(verify('sha256', data, { key: createPublicKey(key), dsaEncoding: 'der' }, enclave.signDer(data))).toBe(true);
    expect(createEnclave(loadEnclaveKey({ seed: 'verify-me' })).publicKey).toBe(enclave.publicKey);
  });

  it('refuses a malformed option, a file that is no PEM key, and a key of another curve', async () => {
    for (const bad of [{}, { seed: '' }, { file: '' }, { seed: 'a', file: 'b' }, 'seed', { seed: 1 }]) {
      expect(() => checkEnclaveKeyOption(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    await expect(startSandbox({ log: false, enclaveKey: { seed: '' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a key');
    expect(() => loadEnclaveKey({ file: garbage })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('PEM') }));
    const { generateKeyPairSync } = await import('node:crypto');
    const other = join(dir, 'p384.pem');
    writeFileSync(other, generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    expect(() => loadEnclaveKey({ file: other })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('P-256') }));
  });
});
