// Passkeys through @simplewebauthn/browser with a software authenticator as navigator.credentials
// (Node): registration (own challenge, signed add), login (challenge fetched up front, utf8 of the
// hex challenge signed, Request-Id on verify), refusals and WebAuthn error codes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { base64urlEncode, utf8Encode } from '../../src/crypto/index.js';
import { webauthnError } from '../../src/flows/webauthn-errors.js';
import { installAuthenticator, type SoftwareAuthenticator } from './helpers/authenticator.js';
import { ORIGIN, codeOf, emailLogin, errorOf, explained, idPattern, useTestSandbox, testWallet } from './helpers/sandbox.js';
import type { AuthMethod } from '../../src/types.js';

const env = useTestSandbox();
let authenticator: SoftwareAuthenticator;
afterEach(() => {
  vi.unstubAllGlobals();
});

async function withPasskey() {
  authenticator = installAuthenticator(ORIGIN, 'localhost');
  const { accountId } = await env.admin.customer();
  const owner = testWallet(env.sandbox, { passkey: { rpId: 'localhost', rpName: 'Test' } });
  await emailLogin(owner.wallet, accountId);
  const credential = await owner.wallet.registerPasskey({ accountId, nickname: 'Laptop' });
  return { accountId, credential, owner };
}

describe('passkey registration', () => {
  it('creates the credential over our own challenge and adds it with a signed retry', async () => {
    const { accountId, credential, owner } = await withPasskey();
    expect(credential).toMatchObject({ type: 'PASSKEY', accountId, nickname: 'Laptop' });
    expect(credential.credentialId).toBe(Buffer.from(authenticator.credentials[0]!.id).toString('base64url'));
    const add = owner.requests.filter((r) => r.path === '/auth/credentials' && r.method === 'POST');
    expect(add.map((r) => [r.leg, r.signed, r.status])).toEqual([
      [1, false, 202],
      [2, true, 201],
    ]);
    owner.wallet.dispose();
  });

  it('needs a session, checked before the ceremony', async () => {
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    expect(await codeOf(wallet.registerPasskey({ accountId, nickname: 'x' }))).toBe('NOT_LOGGED_IN');
    expect(authenticator.calls).toBe(0);
    expect(await codeOf(wallet.registerPasskey({ accountId, nickname: ' ' }))).toBe('INVALID_ARGUMENT');
    wallet.dispose();
  });

  it('once preparePasskeyRegistration has fetched the account\'s passkeys, the ceremony starts within the calling task', async () => {
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const { accountId } = await env.admin.customer();
    const { wallet, requests } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    await emailLogin(wallet, accountId);
    const sent = requests.length;
    await wallet.preparePasskeyRegistration({ accountId });
    expect(requests.slice(sent).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /auth/credentials']); // one request: the list
    const before = authenticator.calls;
    const pending = wallet.registerPasskey({ accountId, nickname: 'Click' });
    // navigator.credentials.create ran before registerPasskey returned: still inside the user's click.
    expect(authenticator.calls).toBe(before + 1);
    expect((await pending).type).toBe('PASSKEY');
    wallet.dispose();
  });

  it('sends the account\'s passkeys in excludeCredentials and asks for user verification (required by default)', async () => {
    const { accountId, credential, owner } = await withPasskey();
    expect(authenticator.lastCreate?.excludeCredentials).toEqual([]); // the first: nothing to exclude
    expect(authenticator.lastCreate?.authenticatorSelection?.userVerification).toBe('required');
    // A second device (another authenticator) registers: the first passkey's id, as the service lists it, is excluded.
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    await owner.wallet.preparePasskeyRegistration({ accountId });
    const second = await owner.wallet.registerPasskey({ accountId, nickname: 'Phone' });
    const excluded = (ids: PublicKeyCredentialCreationOptions | undefined) =>
      (ids?.excludeCredentials ?? []).map((c) => ({ type: c.type, id: Buffer.from(c.id as ArrayBuffer).toString('base64url') }));
    expect(excluded(authenticator.lastCreate)).toEqual([{ type: 'public-key', id: credential.credentialId }]);
    // Without a prepare, registerPasskey fetches the list itself (before the ceremony): both ids are excluded.
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const sent = owner.requests.length;
    await owner.wallet.registerPasskey({ accountId, nickname: 'Tablet' });
    expect(owner.requests[sent]).toMatchObject({ method: 'GET', path: '/auth/credentials' });
    expect(excluded(authenticator.lastCreate).map((c) => c.id).sort()).toEqual([credential.credentialId, second.credentialId].sort());
    owner.wallet.dispose();
  });

  it('preparePasskeyRegistration takes the passkeys from a list the app has just read: no second GET', async () => {
    const { accountId, credential, owner } = await withPasskey();
    const credentials = await owner.wallet.listCredentials(accountId);
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const sent = owner.requests.length;
    await owner.wallet.preparePasskeyRegistration({ accountId, credentials });
    expect(owner.requests.length).toBe(sent); // nothing fetched
    await owner.wallet.registerPasskey({ accountId, nickname: 'Phone' });
    expect(owner.requests.slice(sent).map((r) => `${r.method} ${r.path}`)).not.toContain('GET /auth/credentials');
    const excluded = (authenticator.lastCreate?.excludeCredentials ?? []).map((c) => Buffer.from(c.id as ArrayBuffer).toString('base64url'));
    expect(excluded).toEqual([credential.credentialId]);
    // Not the account's list (another account's credential, or not a list): refused before anything else.
    const foreign = [{ ...credentials[0]!, accountId: 'InternalAccount:someone-else' }];
    expect((await errorOf(owner.wallet.preparePasskeyRegistration({ accountId, credentials: foreign }))).code).toBe('INVALID_ARGUMENT');
    const notAList = 'nope' as unknown as AuthMethod[];
    expect((await errorOf(owner.wallet.preparePasskeyRegistration({ accountId, credentials: notAList }))).code).toBe('INVALID_ARGUMENT');
    owner.wallet.dispose();
  });

  it('userVerification is configurable, for registration and login alike', async () => {
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'localhost', userVerification: 'preferred' } });
    await emailLogin(wallet, accountId);
    await wallet.registerPasskey({ accountId, nickname: 'Laptop' });
    expect(authenticator.lastCreate?.authenticatorSelection?.userVerification).toBe('preferred');
    await (await wallet.preparePasskeyLogin({ accountId })).login();
    expect(authenticator.lastGet?.userVerification).toBe('preferred');
    const strict = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    await (await strict.wallet.preparePasskeyLogin({ accountId })).login();
    expect(authenticator.lastGet?.userVerification).toBe('required');
    wallet.dispose();
    strict.wallet.dispose();
  });

  it('the same authenticator again is refused before anything is sent: PASSKEY_CREDENTIAL_ALREADY_EXISTS', async () => {
    const { accountId, owner } = await withPasskey();
    await owner.wallet.preparePasskeyRegistration({ accountId });
    const sent = owner.requests.length;
    const error = await errorOf(owner.wallet.registerPasskey({ accountId, nickname: 'Laptop again' }));
    expect(error.code).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    expect(error.cause).toBeInstanceOf(DOMException);
    expect(error.cause.name).toBe('InvalidStateError');
    expect(owner.requests.length).toBe(sent); // no POST /auth/credentials
    expect(authenticator.credentials).toHaveLength(1); // the authenticator made nothing
    // The prepared list is kept after a refused ceremony: the next try starts at once too.
    const before = authenticator.calls;
    const again = owner.wallet.registerPasskey({ accountId, nickname: 'Laptop again' });
    expect(authenticator.calls).toBe(before + 1);
    expect((await errorOf(again)).code).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    expect((await owner.wallet.listCredentials(accountId)).filter((c) => c.type === 'PASSKEY')).toHaveLength(1);
    owner.wallet.dispose();
  });

  it('an attestation for another RP ID is refused by the service', async () => {
    authenticator = installAuthenticator(ORIGIN, 'localhost');
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'evil.example' } });
    await emailLogin(wallet, accountId);
    const error = await errorOf(wallet.registerPasskey({ accountId, nickname: 'x' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details?.cause).toBe(explained(env.sandbox, 'PASSKEY_ATTESTATION_INVALID'));
    wallet.dispose();
  });
});

describe('passkey login', () => {
  it('prepare fetches the challenge for the new key; login signs utf8(challenge) and verifies with Request-Id', async () => {
    const { accountId, credential, owner } = await withPasskey();
    const { wallet, requests, keyStore } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    const prepared = await wallet.preparePasskeyLogin({ accountId });
    expect(prepared.credentialId).toBe(credential.id);
    expect(authenticator.calls).toBe(1); // only the registration so far: the challenge came first
    const challengeCall = requests.find((r) => r.path.endsWith('/challenge'));
    expect(challengeCall?.status).toBe(200);
    const session = await prepared.login();
    expect(session).toMatchObject({ accountId, credentialId: credential.id, credentialType: 'PASSKEY' });
    // The WebAuthn challenge was the 64 ASCII bytes of the hex challenge.
    const asked = new Uint8Array(authenticator.lastGet!.challenge as ArrayBuffer);
    expect(asked.length).toBe(64);
    expect(new TextDecoder().decode(asked)).toMatch(/^[0-9a-f]{64}$/);
    const verify = requests.find((r) => r.path.endsWith('/verify'));
    expect(verify).toMatchObject({ status: 200, requestId: expect.stringMatching(idPattern(env.sandbox, 'Request')), signed: false });
    expect((await keyStore.get(session.publicKeyHex))?.sessionId).toBe(session.id);
    expect(await wallet.signOutOtherDevices(accountId)).toBe(1); // the owner's email session
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('an assertion over another challenge is PASSKEY_ASSERTION_REJECTED; the challenge stays usable', async () => {
    const { accountId, owner } = await withPasskey();
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    const prepared = await wallet.preparePasskeyLogin({ accountId });
    authenticator.tamperChallenge = utf8Encode('0'.repeat(64));
    const error = await errorOf(prepared.login());
    expect(isWalletError(error, 'PASSKEY_ASSERTION_REJECTED')).toBe(true);
    expect(error.details?.cause).toBe(explained(env.sandbox, 'PASSKEY_ASSERTION_INVALID'));
    expect(wallet.session(accountId)).toBeNull();
    expect((await prepared.login()).credentialType).toBe('PASSKEY');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('an expired challenge is refused; a new prepare works', async () => {
    const { accountId, owner } = await withPasskey();
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    const prepared = await wallet.preparePasskeyLogin({ accountId });
    env.admin.advance(5 * 60 + 1);
    const error = await errorOf(prepared.login());
    expect(error.code).toBe('PASSKEY_ASSERTION_REJECTED');
    // Only the sandbox profile explains; the service does not.
    expect(error.details?.requestStatus).toBe(explained(env.sandbox, 'EXPIRED'));
    expect((await (await wallet.preparePasskeyLogin({ accountId })).login()).credentialType).toBe('PASSKEY');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('WebAuthn failures map to codes with the DOMException as cause', async () => {
    const { accountId, owner } = await withPasskey();
    const { wallet } = testWallet(env.sandbox, { passkey: { rpId: 'localhost' } });
    const prepared = await wallet.preparePasskeyLogin({ accountId });
    for (const [name, code] of [
      ['NotAllowedError', 'WEBAUTHN_CANCELLED'],
      ['AbortError', 'WEBAUTHN_CANCELLED'],
      ['SecurityError', 'WEBAUTHN_RP_ID_MISMATCH'],
      ['NotSupportedError', 'WEBAUTHN_UNSUPPORTED'],
      ['UnknownError', 'WEBAUTHN_FAILED'],
    ] as const) {
      authenticator.fail = name;
      const error = await errorOf(prepared.login());
      expect(error.code, name).toBe(code);
      expect(error.cause).toBeInstanceOf(DOMException);
      expect(error.cause.name).toBe(name);
    }
    // Registration too.
    authenticator.fail = 'UnknownError';
    const reg = await errorOf(owner.wallet.registerPasskey({ accountId, nickname: 'again' }));
    expect(reg.code).toBe('WEBAUTHN_FAILED');
    expect(reg.cause.name).toBe('UnknownError');
    // After all that, the prepared challenge still logs in.
    expect((await prepared.login()).credentialType).toBe('PASSKEY');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('without WebAuthn the ceremony is WEBAUTHN_UNSUPPORTED', async () => {
    const { accountId, owner } = await withPasskey();
    const { wallet } = testWallet(env.sandbox);
    const prepared = await wallet.preparePasskeyLogin({ accountId });
    vi.stubGlobal('PublicKeyCredential', undefined);
    expect(await codeOf(prepared.login())).toBe('WEBAUTHN_UNSUPPORTED');
    owner.wallet.dispose();
    wallet.dispose();
  });

  it('several passkeys need credentialId (INVALID_ARGUMENT lists them)', async () => {
    const { accountId, owner, credential } = await withPasskey();
    authenticator = installAuthenticator(ORIGIN, 'localhost'); // another device: the first one holds a passkey already
    const second = await owner.wallet.registerPasskey({ accountId, nickname: 'Phone' });
    const error = await errorOf(owner.wallet.preparePasskeyLogin({ accountId }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details.credentials.map((c: { id: string }) => c.id).sort()).toEqual([credential.id, second.id].sort());
    const prepared = await owner.wallet.preparePasskeyLogin({ accountId, credentialId: second.id });
    expect((await prepared.login()).credentialId).toBe(second.id);
    owner.wallet.dispose();
  });
});

describe('webauthnError', () => {
  it('tells "not allowed" (no activation, no focus) from "cancelled"', () => {
    const e = new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');
    expect(webauthnError(e, { activation: false, focused: true }).code).toBe('WEBAUTHN_NOT_ALLOWED');
    expect(webauthnError(e, { activation: true, focused: false }).code).toBe('WEBAUTHN_NOT_ALLOWED');
    expect(webauthnError(e, { activation: true, focused: true }).code).toBe('WEBAUTHN_CANCELLED');
    expect(webauthnError(e, { activation: undefined, focused: undefined }).code).toBe('WEBAUTHN_CANCELLED');
    expect(webauthnError(e, { activation: undefined, focused: undefined }).cause).toBe(e);
    expect(webauthnError('weird', { activation: undefined, focused: undefined }).code).toBe('WEBAUTHN_FAILED');
    expect(base64urlEncode(utf8Encode('ab'))).toBe('YWI');
  });
});
