// The legacy entry: uncompressed clientPublicKey for OAuth, passkeys and refresh; the sealed key is
// opened into a non-extractable signing key and the session manager keeps the session like any other.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { oauthNonce } from '../../src/crypto/index.js';
import { prepareLegacyOAuth, prepareLegacyPasskeyLogin, refreshLegacySession } from '../../src/legacy.js';
import { installAuthenticator } from './helpers/authenticator.js';
import { ORIGIN, codeOf, emailLogin, useTestSandbox, testWallet } from './helpers/sandbox.js';

const env = useTestSandbox();
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('legacy flows', () => {
  it('OAuth with an uncompressed key: the sealed session key signs, refresh works both ways', async () => {
    const { accountId, email } = await env.admin.customer();
    const owner = testWallet(env.sandbox);
    await emailLogin(owner.wallet, accountId);
    await owner.wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(email, 'x'.repeat(64)) });

    const { wallet, keyStore, requests } = testWallet(env.sandbox);
    const prepared = await prepareLegacyOAuth(wallet, { accountId });
    expect(prepared.clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(prepared.nonce).toBe(await oauthNonce(prepared.clientPublicKey));
    const session = await prepared.complete(await env.admin.oidcToken(email, prepared.nonce));
    expect(session).toMatchObject({ accountId, credentialType: 'OAUTH', legacy: true });
    const stored = await keyStore.get(session.publicKeyHex);
    expect(stored?.privateKey.extractable).toBe(false);
    expect(stored?.privateKey.usages).toEqual(['sign']);

    // The opened key is the session's key on the service: a legacy refresh signed with it succeeds.
    const refreshed = await refreshLegacySession(wallet, accountId);
    expect(refreshed).toMatchObject({ accountId, legacy: true, credentialId: session.credentialId });
    expect(refreshed.id).not.toBe(session.id);
    await expect.poll(() => keyStore.get(session.publicKeyHex)).toBeUndefined(); // kept until its end is confirmed (I8)
    const legs = requests.filter((r) => r.path.endsWith('/refresh'));
    expect(legs.map((r) => [r.leg, r.signed, r.status])).toEqual([
      [1, false, 202],
      [2, true, 201],
    ]);
    // And the ordinary refresh moves the session to a client-held key.
    const modern = await wallet.refresh(accountId);
    expect(modern.legacy).toBeUndefined();
    expect(modern.credentialType).toBe('OAUTH');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('a legacy session survives a reload like any other', async () => {
    const { accountId, email } = await env.admin.customer();
    const first = testWallet(env.sandbox);
    await emailLogin(first.wallet, accountId);
    await first.wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(email, 'x'.repeat(64)) });
    const prepared = await prepareLegacyOAuth(first.wallet, { accountId });
    const session = await prepared.complete(await env.admin.oidcToken(email, prepared.nonce));
    first.wallet.dispose();
    const second = testWallet(env.sandbox, { backend: first.backend });
    const restored = await second.wallet.restore();
    expect(restored.map((s) => s.id)).toContain(session.id);
    expect(second.wallet.session(accountId)).toEqual(session);
    expect(await second.wallet.signOutOtherDevices(accountId)).toBe(0);
    second.wallet.dispose();
  });

  it('passkey login with an uncompressed key', async () => {
    installAuthenticator(ORIGIN, 'localhost');
    const { accountId } = await env.admin.customer();
    const owner = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    await emailLogin(owner.wallet, accountId);
    const credential = await owner.wallet.registerPasskey({ accountId, nickname: 'Key' });
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    const prepared = await prepareLegacyPasskeyLogin(wallet, { accountId });
    const session = await prepared.login();
    expect(session).toMatchObject({ accountId, credentialId: credential.id, credentialType: 'PASSKEY', legacy: true });
    expect((await wallet.refresh(accountId)).credentialType).toBe('PASSKEY');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('refuses something that is not a wallet', async () => {
    expect(await codeOf(refreshLegacySession({} as never))).toBe('INVALID_ARGUMENT');
  });
});
