// createWallet without its environment (src/wallet-unconfigured.ts): an unset variable leaves
// baseUrl or a trusted key undefined or empty; the wallet is made (a module that makes it at import
// time loads, a component renders) and fails when used: every call rejects INVALID_ARGUMENT naming
// what is missing. A present but malformed value still throws at once.
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createWallet, type WalletConfig } from '../src/index.js';
import { WalletProvider, useSession } from '../src/react/index.js';

const env: Record<string, string | undefined> = {}; // an environment without the wallet's variables

describe('createWallet with its environment missing', () => {
  it('does not throw; every call rejects INVALID_ARGUMENT naming the missing fields; the store shows initializing', async () => {
    const wallet = createWallet({ baseUrl: env.NEXT_PUBLIC_WALLET_URL as string, trustedKeys: [env.NEXT_PUBLIC_ENCLAVE_KEY as string] });
    expect(wallet.getSnapshot()).toMatchObject({ status: 'initializing', session: null });
    expect(wallet.session()).toBeNull();
    expect(wallet.sessions()).toEqual([]);
    const off = wallet.subscribe(() => undefined);
    off();
    const failure = { code: 'INVALID_ARGUMENT', details: { missing: ['config.baseUrl', 'config.trustedKeys'] }, message: expect.stringContaining('config.baseUrl and config.trustedKeys') };
    await expect(wallet.restore()).rejects.toMatchObject(failure);
    await expect(wallet.startOtpLogin({ accountId: 'InternalAccount:1' })).rejects.toMatchObject(failure);
    await expect(wallet.updateAccount('InternalAccount:1', { privateEnabled: true })).rejects.toMatchObject(failure);
    await expect(wallet.logout()).rejects.toMatchObject(failure);
    // Not a thenable (await wallet must not call a refusing then()).
    expect(await Promise.resolve(wallet)).toBe(wallet);
    wallet.dispose();
  });

  it('each field alone, and an empty string, counts as missing; a malformed value still throws at once', async () => {
    await expect(createWallet({ baseUrl: '', trustedKeys: 'skip-verification' }).restore()).rejects.toMatchObject({ details: { missing: ['config.baseUrl'] } });
    await expect(createWallet({ baseUrl: '/api', trustedKeys: undefined as unknown as string[] }).restore()).rejects.toMatchObject({ details: { missing: ['config.trustedKeys'] } });
    await expect(createWallet({ baseUrl: '/api', trustedKeys: ['04ab', ''] }).restore()).rejects.toMatchObject({ details: { missing: ['config.trustedKeys'] } });
    expect(() => createWallet({ baseUrl: 5, trustedKeys: 'skip-verification' } as unknown as WalletConfig)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => createWallet({ baseUrl: '/api', trustedKeys: [7] } as unknown as WalletConfig)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('a component under a provider of such a wallet renders (a component test, a build without the variables)', () => {
    const wallet = createWallet({ baseUrl: env.NEXT_PUBLIC_WALLET_URL as string, trustedKeys: [env.NEXT_PUBLIC_ENCLAVE_KEY as string] });
    const Status = () => h('p', null, useSession((s) => s.status));
    expect(renderToString(h(WalletProvider, { wallet }, h(Status)))).toBe('<p>initializing</p>');
  });
});
