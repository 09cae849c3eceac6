/**
 * The README's `.env.local` block (step 0 of the quickstart, from a walk in a fresh create-next-app:
 * the README named the variables but not where a Next.js app keeps them). What it lists is what the
 * quickstart reads, and its sandbox values are what `npx embedded-wallet-signer-sandbox` serves with
 * no options: its default host, port and API version, its default client id and secret.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serviceFromEnv } from '../../src/proxy/index.js';
import { parseCli } from '../../src/sandbox/cli-options.js';
import { API_VERSION } from '../../src/sandbox/context.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../src/sandbox/index.js';
import { tsBlocks } from './blocks.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

/** The `# .env.local` sh block as name → value (comments after the value dropped). */
function envBlock(): Map<string, string> {
  const block = /^```sh\n# \.env\.local\n([\s\S]*?)^```$/m.exec(README)?.[1];
  expect(block, 'a ```sh block starting "# .env.local"').toBeDefined();
  return new Map(
    block!
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match = /^([A-Z_]+)=(\S*)(?:\s+#.*)?$/.exec(line);
        expect(match, line).not.toBeNull();
        return [match![1]!, match![2]!] as const;
      }),
  );
}

describe('the README’s .env.local block', () => {
  it('names every variable the quickstart reads, and no other', () => {
    const env = envBlock();
    const wallet = tsBlocks(README).find((b) => b.startsWith('// file: lib/wallet.ts'));
    expect(wallet).toBeDefined();
    const read = new Set([...wallet!.matchAll(/process\.env\.([A-Z_]+)/g)].map((m) => m[1]));
    // serviceFromEnv(process.env) reads the SERVICE_* three: with the block's values it starts.
    expect(serviceFromEnv(Object.fromEntries(env))).toEqual({ baseUrl: env.get('SERVICE_BASE_URL'), clientId: env.get('SERVICE_CLIENT_ID'), clientSecret: env.get('SERVICE_CLIENT_SECRET') });
    expect(() => serviceFromEnv({ ...Object.fromEntries(env), SERVICE_BASE_URL: undefined })).toThrow(/SERVICE_BASE_URL/);
    expect(new Set(env.keys())).toEqual(new Set(['SERVICE_BASE_URL', 'SERVICE_CLIENT_ID', 'SERVICE_CLIENT_SECRET', ...read]));
    expect(read).toEqual(new Set(['APP_SESSION_SECRET', 'ENCLAVE_PUBLIC_KEY_HEX']));
  });

  it('its sandbox values are those of the sandbox bin started with no options', () => {
    const env = envBlock();
    const cwd = mkdtempSync(join(tmpdir(), 'ews-env-'));
    try {
      const request = parseCli([], {}, cwd);
      if (request.help) throw new Error('no --help given');
      const { host, port } = request.options;
      expect(env.get('SERVICE_BASE_URL')).toBe(`http://${host}:${port}/${API_VERSION}`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    expect(env.get('SERVICE_CLIENT_ID')).toBe(DEFAULT_CLIENT_ID);
    expect(env.get('SERVICE_CLIENT_SECRET')).toBe(DEFAULT_CLIENT_SECRET);
  });
});
