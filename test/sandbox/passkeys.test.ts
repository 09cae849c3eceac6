import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { openSealedKey, recipientKey } from './helpers/bundles.js';
import { createCustomer, otpLogin, signed } from './helpers/flows.js';
import { keyFromScalar, newKey } from './helpers/keys.js';
import { SoftAuthenticator } from './helpers/webauthn.js';

const ORIGIN = 'https://wallet.example';
const RP_ID = 'wallet.example';
let api: Api;
beforeAll(async () => {
  api = await start({ origin: ORIGIN, rpId: RP_ID });
});
afterAll(() => api.sandbox.close());

const randomChallenge = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

async function withPasskey() {
  const w = await createCustomer(api);
  const { key } = await otpLogin(api, w.email.id);
  const auth = new SoftAuthenticator(ORIGIN, RP_ID);
  const challenge = randomChallenge();
  const r = await signed(api, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'phone', challenge, attestation: auth.register(challenge) }, key);
  expect(r.status, r.text).toBe(201);
  return { ...w, passkey: r.json, auth, key };
}

const challengeFor = (id: string, clientPublicKey: string) => api.post(`/auth/credentials/${enc(id)}/challenge`, { clientPublicKey });
const verify = (id: string, assertion: unknown, requestId?: string) =>
  api.post(`/auth/credentials/${enc(id)}/verify`, { type: 'PASSKEY', assertion }, requestId === undefined ? {} : { headers: { 'Request-Id': requestId } });

describe('passkey registration (wire-reference §5.3)', () => {
  it('checks the challenge inside clientDataJson, the origin and the RP ID → 400 INVALID_INPUT', async () => {
    const w = await createCustomer(api);
    const auth = new SoftAuthenticator(ORIGIN, RP_ID);
    const add = (challenge: string, attestation: unknown) => api.post('/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'x', challenge, attestation });
    const c = randomChallenge();
    for (const attestation of [auth.register(randomChallenge()), auth.register(c, { origin: 'https://evil.example' }), auth.register(c, { rpId: 'evil.example' }), auth.register(c, { type: 'webauthn.get' })]) {
      const r = await add(c, attestation);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'PASSKEY_ATTESTATION_INVALID' } });
    }
    const garbage = await add(c, { credentialId: auth.id, clientDataJson: 'AAAA', attestationObject: 'AAAA' });
    expect(garbage.status).toBe(400);
    const mismatch = await add(c, { ...auth.register(c), credentialId: new SoftAuthenticator(ORIGIN, RP_ID).id });
    expect(mismatch.status).toBe(400);
    expect((await add(c, auth.register(c))).status).toBe(202);
  });
});

describe('passkey login', () => {
  it('challenge = hex SHA-256 of a canonical body binding clientPublicKey; verify → 200 AuthSession', async () => {
    const w = await withPasskey();
    const key = newKey();
    const c = await challengeFor(w.passkey.id, key.compressed);
    expect(c.status).toBe(200);
    expect(c.json).toMatchObject({
      id: w.passkey.id,
      type: 'PASSKEY',
      nickname: 'phone',
      credentialId: w.auth.id,
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });
    const other = await challengeFor(w.passkey.id, newKey().compressed);
    expect(other.json.challenge).not.toBe(c.json.challenge);
    const r = await verify(w.passkey.id, w.auth.assert(c.json.challenge), c.json.requestId);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^Session:/), type: 'PASSKEY', authMethodId: w.passkey.id, credentialId: w.auth.id });
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
    // Single use.
    const again = await verify(w.passkey.id, w.auth.assert(c.json.challenge), c.json.requestId);
    expect(again.status).toBe(401);
    expect(again.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { requestStatus: 'USED' } });
  });

  it('an assertion over another challenge, by another key, or replaying the counter → 401 WALLET_SIGNATURE_INVALID', async () => {
    const w = await withPasskey();
    const c = await challengeFor(w.passkey.id, newKey().compressed);
    const wrongChallenge = await verify(w.passkey.id, w.auth.assert(createHash('sha256').update('x').digest('hex')), c.json.requestId);
    expect(wrongChallenge.status).toBe(401);
    expect(wrongChallenge.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'PASSKEY_ASSERTION_INVALID' } });
    const impostor = new SoftAuthenticator(ORIGIN, RP_ID);
    const forged = { ...impostor.assert(c.json.challenge), credentialId: w.auth.id };
    expect((await verify(w.passkey.id, forged, c.json.requestId)).status).toBe(401);
    const wrongOrigin = await verify(w.passkey.id, w.auth.assert(c.json.challenge, { origin: 'https://evil.example' }), c.json.requestId);
    expect(wrongOrigin.status).toBe(401);
    const wrongRp = await verify(w.passkey.id, w.auth.assert(c.json.challenge, { rpId: 'evil.example' }), c.json.requestId);
    expect(wrongRp.status).toBe(401);
    // Failed attempts did not consume the challenge.
    const good = await verify(w.passkey.id, w.auth.assert(c.json.challenge), c.json.requestId);
    expect(good.status, good.text).toBe(200);
    const c2 = await challengeFor(w.passkey.id, newKey().compressed);
    const replay = await verify(w.passkey.id, w.auth.assert(c2.json.challenge, { counter: 1 }), c2.json.requestId);
    expect(replay.status).toBe(401);
  });

  it('Request-Id: missing → 401 REQUEST_ID_MISSING; unknown → 404 REQUEST_NOT_FOUND; expired → 401', async () => {
    const w = await withPasskey();
    const c = await challengeFor(w.passkey.id, newKey().compressed);
    const missing = await verify(w.passkey.id, w.auth.assert(c.json.challenge));
    expect(missing.status).toBe(401);
    expect(missing.json.code).toBe('REQUEST_ID_MISSING');
    const unknown = await verify(w.passkey.id, w.auth.assert(c.json.challenge), 'Request:nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('REQUEST_NOT_FOUND');
    api.sandbox.advanceClock(5 * 60);
    const expired = await verify(w.passkey.id, w.auth.assert(c.json.challenge), c.json.requestId);
    expect(expired.status).toBe(401);
    expect(expired.json.details.requestStatus).toBe('EXPIRED');
  });

  it('validation: clientPublicKey required; assertion fields base64url', async () => {
    const w = await withPasskey();
    const noKey = await api.post(`/auth/credentials/${enc(w.passkey.id)}/challenge`, {});
    expect(noKey.status).toBe(400);
    expect(noKey.json.details.errors[0].field).toBe('clientPublicKey');
    expect((await challengeFor(w.passkey.id, 'zz')).status).toBe(400);
    const bad = await verify(w.passkey.id, { credentialId: 'a=b', signature: 5 }, 'Request:x');
    expect(bad.status).toBe(400);
    expect(bad.json.details.errors.map((e: any) => e.field).sort()).toEqual([
      'assertion.authenticatorData',
      'assertion.clientDataJson',
      'assertion.credentialId',
      'assertion.signature',
    ]);
  });

  it('an uncompressed clientPublicKey gives a legacy sealed key', async () => {
    const w = await withPasskey();
    const recipient = await recipientKey();
    const c = await challengeFor(w.passkey.id, recipient.publicKeyHex);
    const r = await verify(w.passkey.id, w.auth.assert(c.json.challenge), c.json.requestId);
    expect(r.status).toBe(200);
    const opened = await openSealedKey(r.json.encryptedSessionSigningKey, recipient);
    const key = keyFromScalar(opened.scalar, opened.publicKey);
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
  });
});
