// OAuth (OIDC) against the sandbox's stand-in IdP: adding the credential, the nonce made from the
// session key, completing in the same page and after a redirect, and the token refusals.
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { oauthNonce } from '../../src/crypto/index.js';
import { codeOf, emailLogin, errorOf, explained, useTestSandbox, testWallet } from './helpers/sandbox.js';

const env = useTestSandbox();

/** A customer whose wallet has an OAUTH credential for `email` (added with an email-OTP session). */
async function withOAuth(): Promise<{ accountId: string; email: string; credentialId: string }> {
  const { accountId, email } = await env.admin.customer();
  const { wallet } = testWallet(env.sandbox);
  await emailLogin(wallet, accountId);
  const added = await wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(email, 'x'.repeat(64)) });
  expect(added).toMatchObject({ type: 'OAUTH', accountId, nickname: email });
  wallet.dispose();
  return { accountId, email, credentialId: added.id };
}

describe('OAuth login', () => {
  it('prepare makes the key first; the nonce is SHA-256 of its public key; complete gives the session', async () => {
    const { accountId, email, credentialId } = await withOAuth();
    const { wallet, keyStore } = testWallet(env.sandbox);
    const prepared = await wallet.prepareOAuth({ accountId });
    expect(prepared.clientPublicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(prepared.nonce).toBe(await oauthNonce(prepared.clientPublicKey));
    expect(await keyStore.get(prepared.clientPublicKey)).toBeDefined();
    const session = await prepared.complete(await env.admin.oidcToken(email, prepared.nonce));
    expect(session).toMatchObject({ accountId, credentialId, credentialType: 'OAUTH', publicKeyHex: prepared.clientPublicKey });
    expect((await keyStore.get(prepared.clientPublicKey))?.sessionId).toBe(session.id);
    expect(await wallet.signOutOtherDevices(accountId)).toBeGreaterThanOrEqual(0);
    wallet.dispose();
  });

  it('completes after a redirect: a new wallet on the same storage finds the key by the nonce', async () => {
    const { accountId, email } = await withOAuth();
    const before = testWallet(env.sandbox);
    const prepared = await before.wallet.prepareOAuth({ accountId });
    before.wallet.dispose();
    const token = await env.admin.oidcToken(email, prepared.nonce);
    const after = testWallet(env.sandbox, { backend: before.backend });
    await after.wallet.restore();
    const session = await after.wallet.completeOAuth({ oidcToken: token });
    expect(session.publicKeyHex).toBe(prepared.clientPublicKey);
    expect(after.wallet.session(accountId)?.id).toBe(session.id);
    // Used once: the prepared login is gone.
    expect(await codeOf(after.wallet.completeOAuth({ oidcToken: token }))).toBe('OAUTH_NOT_PREPARED');
    after.wallet.dispose();
  });

  it('a token whose nonce is not the key’s is OAUTH_TOKEN_REJECTED (OIDC_NONCE_MISMATCH)', async () => {
    const { accountId, email } = await withOAuth();
    const { wallet } = testWallet(env.sandbox);
    const prepared = await wallet.prepareOAuth({ accountId });
    const error = await errorOf(prepared.complete(await env.admin.oidcToken(email, 'f'.repeat(64))));
    expect(isWalletError(error, 'OAUTH_TOKEN_REJECTED')).toBe(true);
    expect(error.details?.cause).toBe(explained(env.sandbox, 'OIDC_NONCE_MISMATCH'));
    expect(isWalletError(error.cause, 'INVALID_INPUT')).toBe(true);
    expect(wallet.session(accountId)).toBeNull();
    expect(await codeOf(wallet.completeOAuth({ oidcToken: await env.admin.oidcToken(email, 'f'.repeat(64)) }))).toBe('OAUTH_NOT_PREPARED');
    wallet.dispose();
  });

  it('a stale token is OAUTH_TOKEN_REJECTED (OIDC_TOKEN_STALE); a fresh one for the same nonce works', async () => {
    const { accountId, email } = await withOAuth();
    const { wallet } = testWallet(env.sandbox);
    const prepared = await wallet.prepareOAuth({ accountId });
    const token = await env.admin.oidcToken(email, prepared.nonce);
    env.admin.advance(61);
    const error = await errorOf(prepared.complete(token));
    expect(error.code).toBe('OAUTH_TOKEN_REJECTED');
    expect(error.details?.cause).toBe(explained(env.sandbox, 'OIDC_TOKEN_STALE'));
    const session = await prepared.complete(await env.admin.oidcToken(email, prepared.nonce));
    expect(session.credentialType).toBe('OAUTH');
    wallet.dispose();
  });

  it("another identity's token is OAUTH_TOKEN_REJECTED; malformed tokens are INVALID_ARGUMENT", async () => {
    const { accountId } = await withOAuth();
    const { wallet } = testWallet(env.sandbox);
    const prepared = await wallet.prepareOAuth({ accountId });
    const error = await errorOf(prepared.complete(await env.admin.oidcToken('someone-else@example.com', prepared.nonce)));
    expect(error.code).toBe('OAUTH_TOKEN_REJECTED');
    expect(error.details?.cause).toBe(explained(env.sandbox, 'OIDC_TOKEN_MISMATCH'));
    expect(await codeOf(prepared.complete('not-a-jwt'))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(prepared.complete('a.!!!.c'))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(wallet.prepareOAuth({ accountId: 42 as never }))).toBe('INVALID_ARGUMENT');
    wallet.dispose();
  });

  it('with several OAUTH credentials the token’s email picks one; no OAUTH credential is CREDENTIAL_NOT_FOUND', async () => {
    const { accountId, email } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    await emailLogin(wallet, accountId);
    expect(await codeOf((await wallet.prepareOAuth({ accountId })).complete(await env.admin.oidcToken(email, 'a'.repeat(64))))).toBe('CREDENTIAL_NOT_FOUND');
    const first = await wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(`one-${email}`, 'x'.repeat(64)) });
    const second = await wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(`two-${email}`, 'x'.repeat(64)) });
    const prepared = await wallet.prepareOAuth({ accountId });
    const session = await prepared.complete(await env.admin.oidcToken(`two-${email}`, prepared.nonce));
    expect(session.credentialId).toBe(second.id);
    expect(session.credentialId).not.toBe(first.id);
    wallet.dispose();
  });
});
