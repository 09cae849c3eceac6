import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';
import { derSign, newKey, stamp, stampWith, type TestKey } from './helpers/keys.js';

let api: Api;
let walletId: string;
let key: TestKey;
let path: string;

beforeAll(async () => {
  api = await start();
  const w = await createCustomer(api);
  walletId = w.wallet.id;
  path = `/internal-accounts/${enc(walletId)}`;
  key = (await otpLogin(api, w.email.id)).key;
});
afterAll(() => api.sandbox.close());

describe('signed retry (wire-reference §4) on PATCH /internal-accounts/{id}', () => {
  it('first call: 202 with payloadToSign, requestId, expiresAt; payload describes the action', async () => {
    const r = await api.patch(path, { privateEnabled: true });
    expect(r.status).toBe(202);
    expect(r.json).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:[0-9a-f-]{36}$/), expiresAt: expect.any(String) });
    const payload = JSON.parse(r.json.payloadToSign);
    expect(payload).toMatchObject({
      type: 'ACTIVITY_TYPE_UPDATE_INTERNAL_ACCOUNT',
      requestId: r.json.requestId,
      organizationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestampMs: expect.stringMatching(/^[0-9]+$/),
      parameters: { internalAccountId: walletId, privateEnabled: true },
      bodyDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const ttl = Date.parse(r.json.expiresAt) - Number(payload.timestampMs);
    expect(ttl).toBe(5 * 60 * 1000);
  });

  it('payloads are never reused, even for identical bodies', async () => {
    const a = await api.patch(path, { privateEnabled: true });
    const b = await api.patch(path, { privateEnabled: true });
    expect(a.json.payloadToSign).not.toBe(b.json.payloadToSign);
    expect(a.json.requestId).not.toBe(b.json.requestId);
  });

  it('signed retry → 200 InternalAccount with the change', async () => {
    const r = await signed(api, 'PATCH', path, { privateEnabled: true, nickname: 'main' }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: walletId, type: 'EMBEDDED_WALLET', privateEnabled: true, nickname: 'main' });
  });

  it('the retry body must be byte-identical: the same JSON in another key order or spacing → 401 WALLET_SIGNATURE_BODY_MISMATCH', async () => {
    for (const retryBody of ['{"nickname":"k","privateEnabled":false}', '{"privateEnabled":false, "nickname":"k"}', '{"privateEnabled":false,"nickname":"k"}\n']) {
      const first = await api.patch(path, undefined, { raw: '{"privateEnabled":false,"nickname":"k"}', headers: { 'Content-Type': 'application/json' } });
      const r = await api.patch(path, undefined, { raw: retryBody, headers: { ...retryHeaders(first, key), 'Content-Type': 'application/json' } });
      expect(r.status, retryBody).toBe(401);
      expect(r.json.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
      // The same bytes pass (the failed attempt did not consume the request id).
      const ok = await api.patch(path, undefined, { raw: '{"privateEnabled":false,"nickname":"k"}', headers: { ...retryHeaders(first, key), 'Content-Type': 'application/json' } });
      expect(ok.status, ok.text).toBe(200);
    }
  });

  it('a different retry body → 401 WALLET_SIGNATURE_BODY_MISMATCH', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: false }, { headers: retryHeaders(first, key) });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
  });

  it('Request-Id without a stamp → 401 WALLET_SIGNATURE_MISSING', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: { 'Request-Id': first.json.requestId } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_MISSING');
  });

  it('a stamp without Request-Id → 401 REQUEST_ID_MISSING', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': stamp(first.json.payloadToSign, key) } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('REQUEST_ID_MISSING');
  });

  const malformed: [string, (payload: string) => string][] = [
    ['not base64url', () => 'not*base64'],
    ['padded base64', (p) => `${stamp(p, key)}=`],
    ['not JSON', () => Buffer.from('hello').toString('base64url')],
    ['a JSON array', () => Buffer.from('[]').toString('base64url')],
    ['missing fields', () => Buffer.from(JSON.stringify({ publicKey: key.compressed })).toString('base64url')],
    ['wrong scheme', (p) => stampWith(key.compressed, derSign(key, p), 'SIGNATURE_SCHEME_OTHER')],
    ['uncompressed key', (p) => stampWith(key.uncompressed, derSign(key, p))],
    ['key off the curve', (p) => stampWith(`02${'ff'.repeat(32)}`, derSign(key, p))],
    ['signature not hex', () => stampWith(key.compressed, 'zz')],
    ['P1363 signature instead of DER', () => stampWith(key.compressed, 'ab'.repeat(64))],
    ['huge header', () => 'a'.repeat(5000)],
  ];
  it.each(malformed)('an unparseable stamp (%s) → 401 WALLET_SIGNATURE_MALFORMED', async (_, make) => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': make(first.json.payloadToSign), 'Request-Id': first.json.requestId } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_MALFORMED');
  });

  it('a signature over other bytes → 401 WALLET_SIGNATURE_INVALID', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': stamp(`${first.json.payloadToSign} `, key), 'Request-Id': first.json.requestId } });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'SIGNATURE_MISMATCH' } });
  });

  it('a valid signature by a key without a session → 401 WALLET_SIGNATURE_INVALID', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(first, newKey()) });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'NO_ACTIVE_SESSION' } });
  });

  it("another account's session key → 401 WALLET_SIGNATURE_INVALID", async () => {
    const other = await createCustomer(api);
    const otherKey = (await otpLogin(api, other.email.id)).key;
    const first = await api.patch(path, { privateEnabled: true });
    const r = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(first, otherKey) });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('WALLET_SIGNATURE_INVALID');
  });

  it('a failed attempt does not consume the request id; a used one is refused', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const bad = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(first, newKey()) });
    expect(bad.status).toBe(401);
    const good = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(first, key) });
    expect(good.status).toBe(200);
    const again = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(first, key) });
    expect(again.status).toBe(401);
    expect(again.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { requestStatus: 'USED' } });
  });

  it('concurrent retries with one request id: exactly one succeeds', async () => {
    const first = await api.patch(path, { privateEnabled: true });
    const headers = retryHeaders(first, key);
    const answers = await Promise.all([1, 2, 3, 4].map(() => api.patch(path, { privateEnabled: true }, { headers })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(3);
  });

  it('an unknown request id, or one issued for another call → 404 REQUEST_NOT_FOUND', async () => {
    const unknown = await api.patch(path, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': 'Request:00000000-0000-0000-0000-000000000000' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('REQUEST_NOT_FOUND');
    const exportChallenge = await api.post(`/internal-accounts/${enc(walletId)}/export`, { clientPublicKey: newKey().uncompressed });
    const r = await api.patch(path, { privateEnabled: true }, { headers: retryHeaders(exportChallenge, key) });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('REQUEST_NOT_FOUND');
  });

  it('the literal sandbox-valid-signature is accepted', async () => {
    const r = await signed(api, 'PATCH', path, { nickname: 'magic' }, 'magic');
    expect(r.status).toBe(200);
    expect(r.json.nickname).toBe('magic');
  });

  it('high-S signatures are accepted (never normalised)', async () => {
    const first = await api.patch(path, { nickname: 'high-s' });
    const der = Buffer.from(derSign(key, first.json.payloadToSign), 'hex');
    const sig = p256.Signature.fromBytes(new Uint8Array(der), 'der');
    const flipped = sig.s > p256.Point.CURVE().n / 2n ? sig : new p256.Signature(sig.r, p256.Point.CURVE().n - sig.s);
    const r = await api.patch(path, { nickname: 'high-s' }, {
      headers: { 'Service-Wallet-Signature': stampWith(key.compressed, Buffer.from(flipped.toBytes('der')).toString('hex')), 'Request-Id': first.json.requestId },
    });
    expect(r.status, r.text).toBe(200);
  });

  it('an expired request id → 401 WALLET_SIGNATURE_INVALID (EXPIRED); a new challenge works', async () => {
    const local = await start();
    try {
      const w = await createCustomer(local);
      const k = (await otpLogin(local, w.email.id)).key;
      const p = `/internal-accounts/${enc(w.wallet.id)}`;
      const first = await local.patch(p, { privateEnabled: true });
      local.sandbox.advanceClock(5 * 60);
      const r = await local.patch(p, { privateEnabled: true }, { headers: retryHeaders(first, k) });
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { requestStatus: 'EXPIRED' } });
      const again = await signed(local, 'PATCH', p, { privateEnabled: true }, k);
      expect(again.status).toBe(200);
    } finally {
      await local.sandbox.close();
    }
  });

  it('validation errors on the first leg list every bad field', async () => {
    const r = await api.patch(path, { privateEnabled: 'yes', nickname: 7, color: 'red' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors.map((e: any) => [e.field, e.constraint]).sort()).toEqual([
      ['color', 'UNKNOWN_FIELD'],
      ['nickname', 'TYPE'],
      ['privateEnabled', 'TYPE'],
    ]);
    expect((await api.patch(path, {})).status).toBe(400);
  });

  it('non-wallet internal accounts update at once (no signature)', async () => {
    const w = await createCustomer(api);
    const usd = w.accounts.find((a: any) => a.type === 'INTERNAL_FIAT');
    const r = await api.patch(`/internal-accounts/${enc(usd.id)}`, { nickname: 'usd' });
    expect(r.status).toBe(200);
    expect(r.json.nickname).toBe('usd');
  });

  it('unknown account → 404 ACCOUNT_NOT_FOUND', async () => {
    const r = await api.patch('/internal-accounts/InternalAccount:nope', { nickname: 'x' });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('ACCOUNT_NOT_FOUND');
  });
});
