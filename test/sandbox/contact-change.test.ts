import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

const fresh = () => `new-${Math.random().toString(36).slice(2)}@example.com`;

describe('contact change (wire-reference §8.2)', () => {
  it('email with a tied EMAIL_OTP: 202, signed retry → 200; the credential changes with it', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const email = fresh();
    const path = `/customers/${enc(w.customer.id)}`;
    const first = await api.patch(path, { email });
    expect(first.status).toBe(202);
    expect(JSON.parse(first.json.payloadToSign)).toMatchObject({ type: 'ACTIVITY_TYPE_UPDATE_CUSTOMER_CONTACT', parameters: { customerId: w.customer.id, field: 'email', credentialIds: [w.email.id] } });
    const unchanged = await api.get(path);
    expect(unchanged.json.email).toBe(w.customer.email);
    const r = await api.patch(path, { email }, { headers: retryHeaders(first, key) });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ email, contactVerification: { email: 'UNVERIFIED' } });
    const creds = await api.get(`/auth/credentials?accountId=${enc(w.wallet.id)}`);
    expect(creds.json.data[0].nickname).toBe(email);
    // The new address logs in.
    expect((await otpLogin(api, w.email.id)).session.nickname).toBe(email);
  });

  it('the same email (any case) or other fields answer 200 at once', async () => {
    const w = await createCustomer(api);
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { email: w.customer.email.toUpperCase(), fullName: 'X' });
    expect(r.status).toBe(200);
  });

  it('retry must be signed by a session of one of the customer wallets', async () => {
    const w = await createCustomer(api);
    const other = await createCustomer(api);
    const otherKey = (await otpLogin(api, other.email.id)).key;
    const email = fresh();
    const first = await api.patch(`/customers/${enc(w.customer.id)}`, { email });
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { email }, { headers: retryHeaders(first, otherKey) });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_INVALID');
    expect((await api.patch(`/customers/${enc(w.customer.id)}`, { email: fresh() }, { headers: retryHeaders(first, otherKey) })).json.code).toBe(
      'WALLET_SIGNATURE_BODY_MISMATCH',
    );
  });

  it('an email tied to another EMAIL_OTP credential → 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS', async () => {
    const w = await createCustomer(api);
    const other = await createCustomer(api);
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { email: other.customer.email });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('EMAIL_OTP_EMAIL_ALREADY_EXISTS');
  });

  it('a conflict arising between the legs → 409 on the retry and nothing changes', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const email = fresh();
    const first = await api.patch(`/customers/${enc(w.customer.id)}`, { email });
    // Another customer takes the address meanwhile.
    await createCustomer(api, { email });
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { email }, { headers: retryHeaders(first, key) });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('EMAIL_OTP_EMAIL_ALREADY_EXISTS');
    expect((await api.get(`/customers/${enc(w.customer.id)}`)).json.email).toBe(w.customer.email);
  });

  it('the tied credential set changed between the legs → 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED', async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550199' });
    const emailLogin = await otpLogin(api, w.email.id);
    const sms = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id }, emailLogin.key);
    const smsLogin = await otpLogin(api, sms.json.id);
    const email = fresh();
    const first = await api.patch(`/customers/${enc(w.customer.id)}`, { email });
    expect((await signed(api, 'DELETE', `/auth/credentials/${enc(w.email.id)}`, undefined, smsLogin.key)).status).toBe(204);
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { email }, { headers: retryHeaders(first, smsLogin.key) });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('EMAIL_OTP_CREDENTIAL_SET_CHANGED');
    expect((await api.get(`/customers/${enc(w.customer.id)}`)).json.email).toBe(w.customer.email);
    // Without a tied credential the change is immediate.
    const now = await api.patch(`/customers/${enc(w.customer.id)}`, { email });
    expect(now.status).toBe(200);
  });

  it('phone with a tied SMS_OTP: signed; conflicts → SMS codes', async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550200' });
    const { key } = await otpLogin(api, w.email.id);
    const sms = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: w.wallet.id }, key);
    expect(sms.status).toBe(201);
    const path = `/customers/${enc(w.customer.id)}`;
    const r = await signed(api, 'PATCH', path, { phoneNumber: '+14155550201' }, key);
    expect(r.status).toBe(200);
    expect(r.json.phoneNumber).toBe('+14155550201');
    const creds = await api.get(`/auth/credentials?accountId=${enc(w.wallet.id)}`);
    expect(creds.json.data.find((m: any) => m.type === 'SMS_OTP').nickname).toBe('+14155550201');

    const other = await createCustomer(api, { phoneNumber: '+14155550300' });
    const otherKey = (await otpLogin(api, other.email.id)).key;
    expect((await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: other.wallet.id }, otherKey)).status).toBe(201);
    const taken = await api.patch(path, { phoneNumber: '+14155550300' });
    expect(taken.status).toBe(409);
    expect(taken.json.code).toBe('SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS');

    const first = await api.patch(path, { phoneNumber: '+14155550202' });
    expect((await signed(api, 'DELETE', `/auth/credentials/${enc(sms.json.id)}`, undefined, key)).status).toBe(204);
    const changed = await api.patch(path, { phoneNumber: '+14155550202' }, { headers: retryHeaders(first, key) });
    expect(changed.status).toBe(409);
    expect(changed.json.code).toBe('SMS_OTP_CREDENTIAL_SET_CHANGED');
  });

  it('a signed contact change accepts the sandbox literal (while a session of the customer exists)', async () => {
    const w = await createCustomer(api);
    await otpLogin(api, w.email.id);
    const r = await signed(api, 'PATCH', `/customers/${enc(w.customer.id)}`, { email: fresh() }, 'magic');
    expect(r.status).toBe(200);
  });

  it('an expired session cannot sign the change', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const { key } = await otpLogin(local, w.email.id);
      local.sandbox.advanceClock(16 * 60);
      const r = await signed(local, 'PATCH', `/customers/${enc(w.customer.id)}`, { email: fresh() }, key);
      expect(r.status).toBe(401);
    } finally {
      await local.sandbox.close();
    }
  });
});
