// The sandbox's optional peer dependencies (src/sandbox/peers.ts): a package that is not installed
// is a WalletError DEPENDENCY_MISSING naming it, found by a real import() of a package that does not
// exist (no mock of the resolver). The packed package without its peers: scripts/package-check.mjs.
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { bip39English, hpkeCore, loadSandboxPeers, peer, webauthnServer } from '../../src/sandbox/peers.js';

// Names no registry package has (a reserved-looking scope), imported by a specifier the bundler
// cannot see, so Node's own resolver answers.
const ABSENT = '@embedded-wallet-signer-test/not-installed';
const importAbsent = (): Promise<unknown> => import(/* @vite-ignore */ [ABSENT, 'index.js'].join('/'));

describe('optional peers of the sandbox', () => {
  it('a package that is not installed → DEPENDENCY_MISSING with the install command', async () => {
    const load = peer(ABSENT, importAbsent);
    const error: unknown = await load().catch((e: unknown) => e);
    expect(isWalletError(error, 'DEPENDENCY_MISSING')).toBe(true);
    expect((error as Error).message).toContain(`npm install --save-dev ${ABSENT}`);
    expect((error as { details?: unknown }).details).toEqual({ packages: [ABSENT] });
    expect((error as Error).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
  });

  it('a failure that is not a missing package is rethrown as it is, and the next call tries again', async () => {
    let calls = 0;
    const load = peer('@hpke/core', async () => {
      calls += 1;
      if (calls === 1) throw new SyntaxError('broken build');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow(SyntaxError);
    expect(await load()).toBe('loaded');
    expect(await load()).toBe('loaded');
    expect(calls).toBe(2);
  });

  it('a missing dependency of an installed package is not reported as the package missing', async () => {
    const load = peer('@hpke/core', importAbsent);
    const error: unknown = await load().catch((e: unknown) => e);
    expect(isWalletError(error)).toBe(false);
    expect(error).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
  });

  it('loadSandboxPeers names every missing package in one error', async () => {
    const other = '@embedded-wallet-signer-test/also-missing';
    const error: unknown = await loadSandboxPeers([
      ['@hpke/core', hpkeCore],
      [ABSENT, peer(ABSENT, importAbsent)],
      [other, peer(other, () => import(/* @vite-ignore */ [other, 'x.js'].join('/')))],
    ]).catch((e: unknown) => e);
    expect(isWalletError(error, 'DEPENDENCY_MISSING')).toBe(true);
    expect((error as { details?: unknown }).details).toEqual({ packages: [ABSENT, other] });
  });

  it('installed here (devDependencies): all three load, once', async () => {
    await loadSandboxPeers();
    expect(await hpkeCore()).toBe(await hpkeCore());
    expect(typeof (await webauthnServer()).verifyRegistrationResponse).toBe('function');
    expect(await bip39English()).toHaveLength(2048);
  });
});
