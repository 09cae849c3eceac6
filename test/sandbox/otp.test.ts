import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { bundleData, sealOtp, verifyBundle } from './helpers/bundles.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';
import { newKey, stamp } from './helpers/keys.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

const challenge = (id: string) => api.post(`/auth/credentials/${enc(id)}/challenge`, {});
const verifyOtp = (id: string, body: unknown, headers?: Record<string, string>) =>
  api.post(`/auth/credentials/${enc(id)}/verify`, body, headers === undefined ? {} : { headers });

describe('email OTP login (wire-reference §5.1)', () => {
  it('challenge → a signed target bundle with a fresh HPKE key each time', async () => {
    const w = await createCustomer(api);
    const a = await challenge(w.email.id);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ id: w.email.id, accountId: w.wallet.id, type: 'EMAIL_OTP', nickname: w.customer.email, otpEncryptionTargetBundle: expect.any(String) });
    const bundle = JSON.parse(a.json.otpEncryptionTargetBundle);
    expect(Object.keys(bundle)).toEqual(['version', 'data', 'dataSignature', 'enclaveQuorumPublic']);
    expect(bundle.version).toBe('v1.0.0');
    expect(bundle.enclaveQuorumPublic).toBe(api.sandbox.enclavePublicKey);
    expect(verifyBundle(bundle)).toBe(true);
    const data = bundleData(bundle);
    expect(data.targetPublic).toMatch(/^04[0-9a-f]{128}$/);
    const b = await challenge(w.email.id);
    expect(bundleData(JSON.parse(b.json.otpEncryptionTargetBundle)).targetPublic).not.toBe(data.targetPublic);
  });

  it('verify: 202 with a verification token (ES256 by the enclave, binding the key), then 200 AuthSession', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await challenge(w.email.id);
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    const leg1 = await verifyOtp(w.email.id, body);
    expect(leg1.status).toBe(202);
    expect(leg1.json).toMatchObject({ type: 'EMAIL_OTP', payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) });
    const [h, p, s] = leg1.json.payloadToSign.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(header.alg).toBe('ES256');
    expect(claims.public_key).toBe(key.compressed);
    expect(JSON.stringify(claims)).not.toContain('000000');
    const jwk = (await api.get('/sandbox/enclave')).json.verificationTokenKey;
    expect(verify('sha256', Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(true);

    const leg2 = await verifyOtp(w.email.id, body, retryHeaders(leg1, key));
    expect(leg2.status).toBe(200);
    expect(leg2.json).toMatchObject({
      id: expect.stringMatching(/^Session:/),
      accountId: w.wallet.id,
      type: 'EMAIL_OTP',
      nickname: w.customer.email,
      authMethodId: w.email.id,
      expiresAt: expect.any(String),
    });
    expect(leg2.json.encryptedSessionSigningKey).toBeUndefined();
    expect(Date.parse(leg2.json.expiresAt) - Date.parse(leg2.json.createdAt)).toBe(15 * 60 * 1000);
    // The key now signs actions.
    const r = await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key);
    expect(r.status).toBe(200);
  });

  it('the verify retry must be signed by the bound key', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await challenge(w.email.id);
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    const leg1 = await verifyOtp(w.email.id, body);
    const wrong = await verifyOtp(w.email.id, body, retryHeaders(leg1, newKey()));
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'NOT_THE_BOUND_KEY' } });
    const missing = await verifyOtp(w.email.id, body, { 'Request-Id': leg1.json.requestId });
    expect(missing.json.code).toBe('WALLET_SIGNATURE_MISSING');
    const noId = await verifyOtp(w.email.id, body, { 'Service-Wallet-Signature': stamp(leg1.json.payloadToSign, key) });
    expect(noId.json.code).toBe('REQUEST_ID_MISSING');
    const other = await verifyOtp(w.email.id, { ...body, type: 'EMAIL_OTP', extra: 1 }, retryHeaders(leg1, key));
    expect(other.json.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const ok = await verifyOtp(w.email.id, body, retryHeaders(leg1, key));
    expect(ok.status).toBe(200);
  });

  it('the sandbox literal is accepted on the verify retry', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await challenge(w.email.id);
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    const leg1 = await verifyOtp(w.email.id, body);
    const r = await verifyOtp(w.email.id, body, { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': leg1.json.requestId });
    expect(r.status).toBe(200);
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
  });

  it('a wrong code → 400 INVALID_INPUT (OTP_CODE_INVALID, spec §7.1) and a right one then works', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await challenge(w.email.id);
    const bad = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '123456', key.compressed) });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'OTP_CODE_INVALID', attemptsLeft: 4 } });
    const good = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) });
    expect(good.status).toBe(202);
  });

  it('a code works once; five wrong codes burn it', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    let c = await challenge(w.email.id);
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    expect((await verifyOtp(w.email.id, body)).status).toBe(202);
    const reuse = await verifyOtp(w.email.id, body);
    expect(reuse.status).toBe(400);
    expect(reuse.json.details.cause).toBe('OTP_EXPIRED');

    c = await challenge(w.email.id);
    for (let i = 0; i < 5; i += 1) {
      const r = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, `99999${i}`, key.compressed) });
      expect(r.json.details.cause).toBe('OTP_CODE_INVALID');
    }
    const after = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) });
    expect(after.status).toBe(400);
    expect(after.json.details.cause).toBe('OTP_EXPIRED');
  });

  it('an expired code → 400 INVALID_INPUT (OTP_EXPIRED)', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const c = await local.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
      local.sandbox.advanceClock(5 * 60 + 1);
      const r = await local.post(`/auth/credentials/${enc(w.email.id)}/verify`, {
        type: 'EMAIL_OTP',
        encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', newKey().compressed),
      });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'OTP_EXPIRED' } });
    } finally {
      await local.sandbox.close();
    }
  });

  it('an uncompressed public_key → 400 INVALID_INPUT', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await challenge(w.email.id);
    const r = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.uncompressed) });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors[0].field).toBe('encryptedOtpBundle.public_key');
  });

  it('a bundle sealed to an older target → 400 INVALID_INPUT', async () => {
    const w = await createCustomer(api);
    const old = await challenge(w.email.id);
    await challenge(w.email.id);
    const r = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(old.json.otpEncryptionTargetBundle, '000000', newKey().compressed) });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it.each([
    ['not JSON', 'nope'],
    ['missing ciphertext', JSON.stringify({ encappedPublic: newKey().uncompressed })],
    ['compressed encappedPublic', JSON.stringify({ encappedPublic: newKey().compressed, ciphertext: 'ab'.repeat(40) })],
    ['garbage ciphertext', JSON.stringify({ encappedPublic: newKey().uncompressed, ciphertext: 'ab'.repeat(40) })],
    ['odd hex', JSON.stringify({ encappedPublic: newKey().uncompressed, ciphertext: 'abc' })],
  ])('a malformed encryptedOtpBundle (%s) → 400 INVALID_INPUT', async (_, bundle) => {
    const w = await createCustomer(api);
    await challenge(w.email.id);
    const r = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: bundle });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
  });

  it('verify without any challenge → 400; wrong type → 400; bad fields listed; type is optional (spec §4.5)', async () => {
    const w = await createCustomer(api);
    const noChallenge = await verifyOtp(w.email.id, { type: 'EMAIL_OTP', encryptedOtpBundle: JSON.stringify({ encappedPublic: newKey().uncompressed, ciphertext: 'ab'.repeat(40) }) });
    expect(noChallenge.status).toBe(400);
    const wrongType = await verifyOtp(w.email.id, { type: 'SMS_OTP', encryptedOtpBundle: 'x' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.details.errors[0]).toMatchObject({ field: 'type', constraint: 'ENUM' });
    const empty = await verifyOtp(w.email.id, {});
    expect(empty.json.details.errors.map((e: any) => e.field).sort()).toEqual(['encryptedOtpBundle']);
    const unknown = await verifyOtp('AuthMethod:none', { type: 'EMAIL_OTP', encryptedOtpBundle: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('AUTH_METHOD_NOT_FOUND');
  });

  it('challenging too fast → 429 RATE_LIMITED with Retry-After; the window passes', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const path = `/auth/credentials/${enc(w.email.id)}/challenge`;
      for (let i = 0; i < 5; i += 1) expect((await local.post(path, {})).status).toBe(200);
      const limited = await local.post(path, {});
      expect(limited.status).toBe(429);
      expect(limited.json.code).toBe('RATE_LIMITED');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      local.sandbox.advanceClock(retryAfter);
      expect((await local.post(path, {})).status).toBe(200);
    } finally {
      await local.sandbox.close();
    }
  });

  it('an OAUTH credential has no challenge step; unknown credential → 404', async () => {
    const r = await api.post('/auth/credentials/AuthMethod:x/challenge', {});
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('AUTH_METHOD_NOT_FOUND');
  });

  it('login with the helper (independent client) works end to end', async () => {
    const w = await createCustomer(api);
    const { session } = await otpLogin(api, w.email.id);
    const list = await api.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`);
    expect(list.json.data.map((s: any) => s.id)).toEqual([session.id]);
  });
});
