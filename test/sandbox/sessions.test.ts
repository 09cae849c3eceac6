import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';
import { newKey } from './helpers/keys.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

describe('sessions', () => {
  it('list: active sessions only, never a sealed key; needs accountId', async () => {
    const w = await createCustomer(api);
    const a = await otpLogin(api, w.email.id);
    const r = await api.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual([
      {
        id: a.session.id,
        accountId: w.wallet.id,
        authMethodId: w.email.id,
        type: 'EMAIL_OTP',
        nickname: w.customer.email,
        createdAt: a.session.createdAt,
        updatedAt: a.session.createdAt,
        expiresAt: a.session.expiresAt,
      },
    ]);
    expect((await api.get('/auth/sessions')).status).toBe(400);
    expect((await api.get('/auth/sessions?accountId=InternalAccount:x')).json.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('at most 4: a 5th login revokes the oldest', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const logins = [];
      for (let i = 0; i < 5; i += 1) {
        logins.push(await otpLogin(local, w.email.id));
        local.sandbox.advanceClock(13); // keep under the challenge rate limit, keep order clear
      }
      const list = await local.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`);
      expect(list.json.data.map((s: any) => s.id)).toEqual(logins.slice(1).map((l) => l.session.id));
      const evicted = await signed(local, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, logins[0]!.key);
      expect(evicted.status).toBe(401);
      expect((await signed(local, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, logins[1]!.key)).status).toBe(200);
    } finally {
      await local.sandbox.close();
    }
  });

  it('sessions expire after 15 minutes', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const { key, session } = await otpLogin(local, w.email.id);
      local.sandbox.advanceClock(15 * 60 - 5);
      expect((await signed(local, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
      local.sandbox.advanceClock(10);
      const r = await signed(local, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key);
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'NO_ACTIVE_SESSION' } });
      expect((await local.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`)).json.data).toEqual([]);
      expect((await local.delete(`/auth/sessions/${enc(session.id)}`)).json.code).toBe('SESSION_NOT_FOUND');
    } finally {
      await local.sandbox.close();
    }
  });

  it('delete: 202 then signed by any session of the account → 204; then 404', async () => {
    const w = await createCustomer(api);
    const a = await otpLogin(api, w.email.id);
    const b = await otpLogin(api, w.email.id);
    const path = `/auth/sessions/${enc(a.session.id)}`;
    const first = await api.delete(path);
    expect(first.status).toBe(202);
    expect(first.json.type).toBe('EMAIL_OTP');
    expect((await api.delete(path, { headers: retryHeaders(first, newKey()) })).status).toBe(401);
    const ok = await api.delete(path, { headers: retryHeaders(first, b.key) });
    expect(ok.status).toBe(204);
    expect((await api.delete(path)).status).toBe(404);
    expect((await api.delete(path)).json.code).toBe('SESSION_NOT_FOUND');
    // A session may delete itself.
    const self = await signed(api, 'DELETE', `/auth/sessions/${enc(b.session.id)}`, undefined, b.key);
    expect(self.status).toBe(204);
    expect((await api.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`)).json.data).toEqual([]);
  });

  it('refresh: signed by that session → 201 with a new id; the old one stays until it expires', async () => {
    const w = await createCustomer(api);
    const a = await otpLogin(api, w.email.id);
    const other = await otpLogin(api, w.email.id);
    const next = newKey();
    const path = `/auth/sessions/${enc(a.session.id)}/refresh`;
    const first = await api.post(path, { clientPublicKey: next.compressed });
    expect(first.status).toBe(202);
    expect(JSON.parse(first.json.payloadToSign).parameters.clientPublicKey).toBe(next.compressed);
    const wrong = await api.post(path, { clientPublicKey: next.compressed }, { headers: retryHeaders(first, other.key) });
    expect(wrong.status).toBe(401);
    expect(wrong.json.details.cause).toBe('NOT_THE_SESSION_KEY');
    const mismatch = await api.post(path, { clientPublicKey: newKey().compressed }, { headers: retryHeaders(first, a.key) });
    expect(mismatch.json.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const r = await api.post(path, { clientPublicKey: next.compressed }, { headers: retryHeaders(first, a.key) });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^Session:/), authMethodId: w.email.id, type: 'EMAIL_OTP' });
    expect(r.json.id).not.toBe(a.session.id);
    expect(r.json.encryptedSessionSigningKey).toBeUndefined();
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, next)).status).toBe(200);
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, a.key)).status).toBe(200);
  });

  it('refresh validates clientPublicKey and needs an active session', async () => {
    const w = await createCustomer(api);
    const a = await otpLogin(api, w.email.id);
    const path = `/auth/sessions/${enc(a.session.id)}/refresh`;
    for (const body of [{}, { clientPublicKey: 'abc' }, { clientPublicKey: `02${'ff'.repeat(32)}` }, { clientPublicKey: 7 }]) {
      const r = await api.post(path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe('INVALID_INPUT');
    }
    expect((await api.post('/auth/sessions/Session:x/refresh', { clientPublicKey: newKey().compressed })).json.code).toBe('SESSION_NOT_FOUND');
  });
});
