import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, retryHeaders, type Wallet } from './helpers/flows.js';
import { newKey, type TestKey } from './helpers/keys.js';

const PATH = '/auth/delegated-keys';

let api: Api;
let alice: Wallet;
let bob: Wallet;
let aliceKey: TestKey;

async function issueCard(w: Wallet): Promise<any> {
  const r = await api.post('/cards', { cardholderId: w.customer.id, fundingSource: w.wallet.id }, { headers: { 'Idempotency-Key': randomUUID() } });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

const body = (card: any, w: Wallet, nickname = 'card signer') => ({ cardId: card.id, internalAccountId: w.wallet.id, nickname });

/** All three legs with `key` (leg 3 with `leg3Key`); each answer is returned, failures included. */
async function create(b: unknown, key: TestKey, leg3Key: TestKey = key): Promise<{ leg1: Answer; leg2: Answer; leg3: Answer }> {
  const leg1 = await api.post(PATH, b);
  expect(leg1.status, leg1.text).toBe(202);
  const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
  expect(leg2.status, leg2.text).toBe(202);
  const leg3 = await api.post(PATH, b, { headers: retryHeaders(leg2, leg3Key) });
  return { leg1, leg2, leg3 };
}

interface Holder {
  w: Wallet;
  key: TestKey;
  card: any;
}

/** A new customer logged in with a card on its wallet (one ACTIVE key is allowed per funding source). */
async function fresh(): Promise<Holder> {
  const w = await createCustomer(api);
  const key = (await otpLogin(api, w.email.id)).key;
  return { w, key, card: await issueCard(w) };
}

async function revoke(id: string): Promise<Answer> {
  return api.delete(`${PATH}/${enc(id)}`);
}

beforeAll(async () => {
  api = await start();
  alice = await createCustomer(api);
  bob = await createCustomer(api);
  aliceKey = (await otpLogin(api, alice.email.id)).key;
});
afterAll(() => api.sandbox.close());

describe('POST /auth/delegated-keys (three legs)', () => {
  it('leg 1 → 202, leg 2 → a second 202 with a new payload and request id, leg 3 → 201 ACTIVE DelegatedKey', async () => {
    const { w, key, card } = await fresh();
    const { leg1, leg2, leg3 } = await create(body(card, w), key);
    expect(leg1.json).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) });
    expect(leg2.json).toEqual({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) });
    expect(leg2.json.requestId).not.toBe(leg1.json.requestId);
    expect(leg2.json.payloadToSign).not.toBe(leg1.json.payloadToSign);
    const p1 = JSON.parse(leg1.json.payloadToSign);
    const p2 = JSON.parse(leg2.json.payloadToSign);
    expect(p1).toMatchObject({ type: 'ACTIVITY_TYPE_CREATE_DELEGATED_KEY', parameters: { cardId: card.id, internalAccountId: w.wallet.id, nickname: 'card signer' } });
    expect(p2.type).toBe('ACTIVITY_TYPE_CREATE_DELEGATED_KEY_POLICY');
    expect(leg3.status, leg3.text).toBe(201);
    expect(leg3.json).toEqual({
      id: expect.stringMatching(/^DelegatedKey:[0-9a-f-]{36}$/),
      cardId: card.id,
      fundingSourceId: w.wallet.id,
      accountId: w.wallet.id,
      publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/),
      nickname: 'card signer',
      status: 'ACTIVE',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(p1.parameters.delegatedKeyId).toBe(leg3.json.id);
    expect(p1.parameters.publicKey).toBe(leg3.json.publicKey);
    const read = await api.get(`${PATH}/${enc(leg3.json.id)}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(leg3.json);
  });

  it('the key is PENDING between leg 1 and leg 3', async () => {
    const { w, key, card } = await fresh();
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const id = JSON.parse(leg1.json.payloadToSign).parameters.delegatedKeyId;
    expect((await api.get(`${PATH}/${enc(id)}`)).json.status).toBe('PENDING');
    const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
    expect(leg2.status).toBe(202);
    expect((await api.get(`${PATH}/${enc(id)}`)).json.status).toBe('PENDING');
    const leg3 = await api.post(PATH, b, { headers: retryHeaders(leg2, key) });
    expect(leg3.status).toBe(201);
    expect((await api.get(`${PATH}/${enc(id)}`)).json.status).toBe('ACTIVE');
  });

  it('a second ACTIVE key for the same funding source (even through another card) → 409 CONFLICT; after revoking, a new one is allowed', async () => {
    const { w, key, card } = await fresh();
    const first = await create(body(card, w), key);
    expect(first.leg3.status).toBe(201);
    const again = await api.post(PATH, body(card, w, 'second'));
    expect([again.status, again.json.code]).toEqual([409, 'CONFLICT']);
    expect(again.json.details).toMatchObject({ cause: 'DELEGATED_KEY_ALREADY_ACTIVE', delegatedKeyId: first.leg3.json.id });
    const otherCard = await issueCard(w);
    const viaOtherCard = await api.post(PATH, body(otherCard, w));
    expect([viaOtherCard.status, viaOtherCard.json.code]).toEqual([409, 'CONFLICT']);
    const revoked = await revoke(first.leg3.json.id);
    expect(revoked.status).toBe(200);
    const second = await create(body(card, w, 'second'), key);
    expect(second.leg3.status).toBe(201);
    expect(second.leg3.json.publicKey).not.toBe(first.leg3.json.publicKey);
  });

  it('an abandoned PENDING key does not block; it stays listed as PENDING', async () => {
    const { w, key, card } = await fresh();
    const abandoned = await api.post(PATH, body(card, w, 'abandoned'));
    expect(abandoned.status).toBe(202);
    const abandonedId = JSON.parse(abandoned.json.payloadToSign).parameters.delegatedKeyId;
    const done = await create(body(card, w), key);
    expect(done.leg3.status, done.leg3.text).toBe(201);
    const list = await api.get(`${PATH}?fundingSourceId=${enc(w.wallet.id)}`);
    expect(list.json.data.map((k: any) => [k.id, k.status])).toEqual([
      [done.leg3.json.id, 'ACTIVE'],
      [abandonedId, 'PENDING'],
    ]);
  });

  it('a PENDING key completed after another became ACTIVE → 409 CONFLICT at leg 3', async () => {
    const { w, key, card } = await fresh();
    const b = body(card, w, 'slow');
    const leg1 = await api.post(PATH, b);
    const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
    expect(leg2.status).toBe(202);
    expect((await create(body(card, w, 'fast'), key)).leg3.status).toBe(201);
    const leg3 = await api.post(PATH, b, { headers: retryHeaders(leg2, key) });
    expect([leg3.status, leg3.json.code, leg3.json.details?.cause]).toEqual([409, 'CONFLICT', 'DELEGATED_KEY_ALREADY_ACTIVE']);
  });

  it('a PENDING key revoked before leg 2 → 409 CONFLICT (DELEGATED_KEY_NOT_PENDING)', async () => {
    const { w, key, card } = await fresh();
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const id = JSON.parse(leg1.json.payloadToSign).parameters.delegatedKeyId;
    expect((await revoke(id)).json.status).toBe('REVOKED');
    const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
    expect([leg2.status, leg2.json.code, leg2.json.details?.cause]).toEqual([409, 'CONFLICT', 'DELEGATED_KEY_NOT_PENDING']);
  });

  it('body changed between legs → 401 WALLET_SIGNATURE_BODY_MISMATCH (leg 2 and leg 3)', async () => {
    const { w, key, card } = await fresh();
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const bad2 = await api.post(PATH, { ...b, nickname: 'changed' }, { headers: retryHeaders(leg1, key) });
    expect([bad2.status, bad2.json.code]).toEqual([401, 'WALLET_SIGNATURE_BODY_MISMATCH']);
    const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
    expect(leg2.status).toBe(202);
    const bad3 = await api.post(PATH, { ...b, nickname: 'changed' }, { headers: retryHeaders(leg2, key) });
    expect([bad3.status, bad3.json.code]).toEqual([401, 'WALLET_SIGNATURE_BODY_MISMATCH']);
    const leg3 = await api.post(PATH, b, { headers: retryHeaders(leg2, key) });
    expect(leg3.status).toBe(201);
  });

  it('leg 3 must be signed with the same key as leg 2 (another session of the wallet → 401 WALLET_SIGNATURE_INVALID)', async () => {
    const { w, key, card } = await fresh();
    const secondSession = (await otpLogin(api, w.email.id)).key;
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const leg2 = await api.post(PATH, b, { headers: retryHeaders(leg1, key) });
    const other = await api.post(PATH, b, { headers: retryHeaders(leg2, secondSession) });
    expect([other.status, other.json.code, other.json.details?.cause]).toEqual([401, 'WALLET_SIGNATURE_INVALID', 'NOT_THE_SAME_KEY']);
    expect((await api.post(PATH, b, { headers: retryHeaders(leg2, key) })).status).toBe(201);
  });

  it('signature rules: missing, malformed, no Request-Id, a key without a session of this wallet', async () => {
    const { w, card } = await fresh();
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const headers = retryHeaders(leg1, aliceKey);
    const missing = await api.post(PATH, b, { headers: { 'Request-Id': leg1.json.requestId } });
    expect([missing.status, missing.json.code]).toEqual([401, 'WALLET_SIGNATURE_MISSING']);
    const noId = await api.post(PATH, b, { headers: { 'Service-Wallet-Signature': headers['Service-Wallet-Signature'] as string } });
    expect([noId.status, noId.json.code]).toEqual([401, 'REQUEST_ID_MISSING']);
    const malformed = await api.post(PATH, b, { headers: { 'Service-Wallet-Signature': '%%%', 'Request-Id': leg1.json.requestId } });
    expect([malformed.status, malformed.json.code]).toEqual([401, 'WALLET_SIGNATURE_MALFORMED']);
    const stranger = await api.post(PATH, b, { headers: retryHeaders(leg1, newKey()) });
    expect([stranger.status, stranger.json.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    // aliceKey is a live session, but of another wallet.
    const otherWallet = await api.post(PATH, b, { headers });
    expect([otherWallet.status, otherWallet.json.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
  });

  it('sandbox-valid-signature works on legs 2 and 3', async () => {
    const { w, card } = await fresh();
    const b = body(card, w);
    const leg1 = await api.post(PATH, b);
    const magic = (r: Answer) => ({ 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': r.json.requestId });
    const leg2 = await api.post(PATH, b, { headers: magic(leg1) });
    expect(leg2.status).toBe(202);
    const leg3 = await api.post(PATH, b, { headers: magic(leg2) });
    expect(leg3.status).toBe(201);
  });

  it('input: every bad field listed; unknown card → 404 NOT_FOUND; unknown account → 404 ACCOUNT_NOT_FOUND; wrong account → 400', async () => {
    const bad = await api.post(PATH, { cardId: 1, nickname: '', extra: true });
    expect([bad.status, bad.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect(bad.json.details.errors.map((e: any) => e.field).sort()).toEqual(['cardId', 'extra', 'internalAccountId', 'nickname']);
    const card = await issueCard(alice);
    const noCard = await api.post(PATH, { ...body(card, alice), cardId: 'Card:nope' });
    expect([noCard.status, noCard.json.code]).toEqual([404, 'NOT_FOUND']);
    const noAccount = await api.post(PATH, { ...body(card, alice), internalAccountId: 'InternalAccount:nope' });
    expect([noAccount.status, noAccount.json.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const notFunding = await api.post(PATH, body(card, bob));
    expect([notFunding.status, notFunding.json.code]).toEqual([400, 'INVALID_INPUT']);
    const fiat = alice.accounts.find((a: any) => a.type === 'INTERNAL_FIAT');
    const notWallet = await api.post(PATH, { ...body(card, alice), internalAccountId: fiat.id });
    expect([notWallet.status, notWallet.json.code]).toEqual([400, 'INVALID_INPUT']);
    const none = await api.post(PATH);
    expect(none.status).toBe(400);
  });
});

describe('GET and DELETE /auth/delegated-keys', () => {
  it('list needs accountId or fundingSourceId (else 400 naming both); filters combine; PENDING and REVOKED are listed', async () => {
    const none = await api.get(PATH);
    expect([none.status, none.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect(none.json.details.errors.map((e: any) => e.field).sort()).toEqual(['accountId', 'fundingSourceId']);
    const card = await issueCard(alice);
    const b = body(card, alice);
    const pending = await api.post(PATH, b);
    const revoked = await create(b, aliceKey);
    await revoke(revoked.leg3.json.id);
    const active = await create(b, aliceKey);
    const ids = [active.leg3.json.id, revoked.leg3.json.id, JSON.parse(pending.json.payloadToSign).parameters.delegatedKeyId];
    const byAccount = await api.get(`${PATH}?accountId=${enc(alice.wallet.id)}`);
    expect(byAccount.status).toBe(200);
    expect(byAccount.json).toEqual({ data: expect.any(Array), hasMore: false, totalCount: 3 });
    expect(byAccount.json.data.map((k: any) => [k.id, k.status])).toEqual([
      [ids[0], 'ACTIVE'],
      [ids[1], 'REVOKED'],
      [ids[2], 'PENDING'],
    ]);
    for (const k of byAccount.json.data) {
      expect(Object.keys(k).sort()).toEqual(['accountId', 'cardId', 'createdAt', 'fundingSourceId', 'id', 'nickname', 'publicKey', 'status', 'updatedAt']);
    }
    const byFunding = await api.get(`${PATH}?fundingSourceId=${enc(alice.wallet.id)}`);
    expect(byFunding.json.data.map((k: any) => k.id)).toEqual(ids);
    const both = await api.get(`${PATH}?accountId=${enc(alice.wallet.id)}&fundingSourceId=${enc(bob.wallet.id)}`);
    expect(both.json.data).toEqual([]);
    const page = await api.get(`${PATH}?accountId=${enc(alice.wallet.id)}&limit=1`);
    expect(page.json.data).toHaveLength(1);
    expect(page.json.hasMore).toBe(true);
    await revoke(ids[0]);
  });

  it('DELETE → 200 REVOKED (platform credentials only, idempotent); unknown → 404 NOT_FOUND', async () => {
    const { w, key, card } = await fresh();
    const made = await create(body(card, w), key);
    const id = made.leg3.json.id;
    const anon = await api.delete(`${PATH}/${enc(id)}`, { auth: false });
    expect(anon.status).toBe(401);
    const r = await revoke(id);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id, status: 'REVOKED' });
    expect((await api.get(`${PATH}/${enc(id)}`)).json.status).toBe('REVOKED');
    const again = await revoke(id);
    expect([again.status, again.json.status]).toEqual([200, 'REVOKED']);
    const missing = await revoke('DelegatedKey:nope');
    expect([missing.status, missing.json.code]).toEqual([404, 'NOT_FOUND']);
    expect((await api.get(`${PATH}/DelegatedKey:nope`)).status).toBe(404);
  });
});

describe('garbage never breaks delegated keys', () => {
  it('a valid body with one field replaced by random JSON, random signature headers, random list queries: 4xx with a code or a success, never 5xx', async () => {
    const card = await issueCard(bob);
    const headerText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_:=+/ .{}"'.split('')), maxLength: 80 });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.jsonValue({ maxDepth: 3 }), fc.option(headerText), fc.option(headerText), headerText, async (pick, value, sig, requestId, q) => {
        const base: Record<string, unknown> = body(card, bob);
        const names = Object.keys(base);
        base[names[pick % names.length] as string] = value;
        const headers: Record<string, string> = {};
        if (sig !== null) headers['Service-Wallet-Signature'] = sig;
        if (requestId !== null) headers['Request-Id'] = requestId;
        const r = await api.post(PATH, base, { headers });
        expect(r.status, r.text).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code).toBe('string');
        const list = await api.get(`${PATH}?${pick % 2 === 0 ? 'accountId' : 'fundingSourceId'}=${enc(q)}&limit=${enc(q)}`);
        expect(list.status, list.text).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
