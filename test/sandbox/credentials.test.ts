import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';
import { newKey } from './helpers/keys.js';
import { SoftAuthenticator } from './helpers/webauthn.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

const ORIGIN = 'http://localhost:5173';
const challengeB64 = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

async function addPasskey(accountId: string, key: ReturnType<typeof newKey>, auth = new SoftAuthenticator(ORIGIN, 'localhost')) {
  const challenge = challengeB64();
  const r = await signed(api, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId, nickname: 'laptop', challenge, attestation: auth.register(challenge) }, key);
  return { r, auth };
}

describe('POST /auth/credentials', () => {
  it('adds SMS_OTP: 202 with type, then 201 with a target bundle; usable after verify', async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550100' });
    const { key } = await otpLogin(api, w.email.id);
    const first = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id });
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ type: 'SMS_OTP', payloadToSign: expect.any(String), requestId: expect.any(String), expiresAt: expect.any(String) });
    expect(JSON.parse(first.json.payloadToSign).type).toBe('ACTIVITY_TYPE_CREATE_AUTHENTICATORS');
    const r = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id }, { headers: retryHeaders(first, key) });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^AuthMethod:/), accountId: w.wallet.id, type: 'SMS_OTP', nickname: '+14155550100', otpEncryptionTargetBundle: expect.any(String) });
    const sms = await otpLogin(api, r.json.id);
    expect(sms.session.type).toBe('SMS_OTP');
    const dup = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id });
    expect(dup.status).toBe(400);
    expect(dup.json.code).toBe('SMS_OTP_CREDENTIAL_ALREADY_EXISTS');
  });

  it('EMAIL_OTP twice → 400 EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS; SMS without phone → 400 MISSING_MANDATORY_USER_INFO', async () => {
    const w = await createCustomer(api);
    const email = await api.post('/auth/credentials', { type: 'EMAIL_OTP', accountId: w.wallet.id });
    expect(email.status).toBe(400);
    expect(email.json.code).toBe('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS');
    const sms = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id });
    expect(sms.status).toBe(400);
    expect(sms.json.code).toBe('MISSING_MANDATORY_USER_INFO');
  });

  it('the retry must be signed by a session of the account', async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550101' });
    const first = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id });
    const r = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id }, { headers: retryHeaders(first, newKey()) });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_INVALID');
  });

  it('passkeys: distinct credentialIds, at most 5 credentials', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const first = await addPasskey(w.wallet.id, key);
    expect(first.r.status, first.r.text).toBe(201);
    expect(first.r.json).toMatchObject({ type: 'PASSKEY', nickname: 'laptop', credentialId: first.auth.id });
    const challenge = challengeB64();
    const dup = await api.post('/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'again', challenge, attestation: first.auth.register(challenge) });
    expect(dup.status).toBe(400);
    expect(dup.json.code).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    for (let i = 0; i < 3; i += 1) expect((await addPasskey(w.wallet.id, key)).r.status).toBe(201);
    const list = await api.get(`/auth/credentials?accountId=${enc(w.wallet.id)}`);
    expect(list.json.data).toHaveLength(5);
    const sixth = await api.post('/auth/credentials', (() => {
      const c = challengeB64();
      return { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'six', challenge: c, attestation: new SoftAuthenticator(ORIGIN, 'localhost').register(c) };
    })());
    expect(sixth.status).toBe(400);
    expect(sixth.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'CREDENTIAL_LIMIT', limit: 5 } });
  });

  it('body validation lists every bad field; unknown account → 404; non-wallet → 400', async () => {
    const bad = await api.post('/auth/credentials', { type: 'PASSKEY', accountId: 5, attestation: { credentialId: 'a+b' } });
    expect(bad.status).toBe(400);
    expect(bad.json.details.errors.map((e: any) => e.field).sort()).toEqual([
      'accountId',
      'attestation.attestationObject',
      'attestation.clientDataJson',
      'attestation.credentialId',
      'challenge',
      'nickname',
    ]);
    expect((await api.post('/auth/credentials', { type: 'X', accountId: 'a' })).json.details.errors[0].field).toBe('type');
    expect((await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: 'InternalAccount:x' })).json.code).toBe('ACCOUNT_NOT_FOUND');
    const w = await createCustomer(api);
    const usd = w.accounts.find((a: any) => a.type === 'INTERNAL_FIAT');
    expect((await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: usd.id })).status).toBe(400);
  });

  it('GET /auth/credentials needs accountId', async () => {
    const r = await api.get('/auth/credentials');
    expect(r.status).toBe(400);
    expect(r.json.details.errors[0]).toMatchObject({ field: 'accountId', constraint: 'REQUIRED' });
  });
});

describe('DELETE /auth/credentials/{id}', () => {
  it('the last credential cannot go', async () => {
    const w = await createCustomer(api);
    const r = await api.delete(`/auth/credentials/${enc(w.email.id)}`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'LAST_CREDENTIAL' } });
  });

  it("needs a session of another credential; the deleted credential's sessions end", async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550102' });
    const emailLogin = await otpLogin(api, w.email.id);
    const added = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id }, emailLogin.key);
    expect(added.status).toBe(201);
    const smsLogin = await otpLogin(api, added.json.id);

    const path = `/auth/credentials/${enc(w.email.id)}`;
    const first = await api.delete(path);
    expect(first.status).toBe(202);
    expect(first.json.type).toBe('EMAIL_OTP');
    const same = await api.delete(path, { headers: retryHeaders(first, emailLogin.key) });
    expect(same.status).toBe(401);
    expect(same.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'SAME_CREDENTIAL_SESSION' } });
    const ok = await api.delete(path, { headers: retryHeaders(first, smsLogin.key) });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');

    const creds = await api.get(`/auth/credentials?accountId=${enc(w.wallet.id)}`);
    expect(creds.json.data.map((m: any) => m.type)).toEqual(['SMS_OTP']);
    const sessions = await api.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`);
    expect(sessions.json.data.map((s: any) => s.id)).toEqual([smsLogin.session.id]);
    const stale = await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, emailLogin.key);
    expect(stale.status).toBe(401);
    expect((await api.delete(path)).json.code).toBe('AUTH_METHOD_NOT_FOUND');
    // The last one left cannot go either.
    expect((await api.delete(`/auth/credentials/${enc(added.json.id)}`)).json.details.cause).toBe('LAST_CREDENTIAL');
    // EMAIL_OTP can be re-added.
    const readd = await signed(api, 'POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: w.wallet.id }, smsLogin.key);
    expect(readd.status).toBe(201);
    expect(readd.json.nickname).toBe(w.customer.email);
  });
});
