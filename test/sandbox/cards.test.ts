import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, type Wallet } from './helpers/flows.js';

let api: Api;
let alice: Wallet;
let bob: Wallet;

function issue(body: unknown, key: string | null = randomUUID()) {
  return api.post('/cards', body, key === null ? {} : { headers: { 'Idempotency-Key': key } });
}

const cardBody = (w: Wallet, extra: Record<string, unknown> = {}) => ({ cardholderId: w.customer.id, fundingSource: w.wallet.id, ...extra });

async function setKyc(w: Wallet, kycStatus: string): Promise<void> {
  const r = await api.post(`/sandbox/customers/${enc(w.customer.id)}/kyc`, { kycStatus });
  expect(r.status, r.text).toBe(200);
}

beforeAll(async () => {
  api = await start();
  alice = await createCustomer(api);
  bob = await createCustomer(api);
});
afterAll(() => api.sandbox.close());

describe('POST /cards', () => {
  it('→ 201 PROCESSING; the next read shows ACTIVE', async () => {
    const r = await issue(cardBody(alice));
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({
      id: expect.stringMatching(/^Card:[0-9a-f-]{36}$/),
      cardholderId: alice.customer.id,
      fundingSource: alice.wallet.id,
      currency: 'USDC',
      status: 'PROCESSING',
      last4: expect.stringMatching(/^[0-9]{4}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const read = await api.get(`/cards/${enc(r.json.id)}`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: r.json.id, status: 'ACTIVE' });
    expect(JSON.stringify(read.json)).not.toMatch(/reveal|panEmbedUrl/i);
  });

  it('limits are positive integers and are echoed', async () => {
    const r = await issue(cardBody(alice, { maxSpendPerTransaction: 5000, maxSpendPerDay: 20000, maxTransactionsPerDay: 10 }));
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ maxSpendPerTransaction: 5000, maxSpendPerDay: 20000, maxTransactionsPerDay: 10 });
  });

  it('Idempotency-Key is required: absent → 400 INVALID_INPUT naming the header; malformed → 400', async () => {
    const none = await issue(cardBody(alice), null);
    expect([none.status, none.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect(none.json.details.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key', constraint: 'REQUIRED' })]);
    const long = await issue(cardBody(alice), 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.json.details.errors[0]).toMatchObject({ field: 'Idempotency-Key', constraint: 'FORMAT' });
  });

  it('the same key and body → the same card (201, no second card); the same key with another body → 409 CONFLICT', async () => {
    const key = randomUUID();
    const first = await issue(cardBody(bob), key);
    const second = await issue(cardBody(bob), key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json.id).toBe(first.json.id);
    expect(second.json.status).toBe('ACTIVE');
    const changed = await issue(cardBody(bob, { maxSpendPerDay: 1 }), key);
    expect([changed.status, changed.json.code]).toEqual([409, 'CONFLICT']);
  });

  it('every bad field is listed in details.errors[]', async () => {
    const r = await issue({ cardholderId: 7, maxSpendPerTransaction: 0, maxSpendPerDay: -5, maxTransactionsPerDay: 1.5, colour: 'red' });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect(r.json.details.errors.map((e: any) => [e.field, e.constraint]).sort()).toEqual([
      ['cardholderId', 'TYPE'],
      ['colour', 'UNKNOWN_FIELD'],
      ['fundingSource', 'REQUIRED'],
      ['maxSpendPerDay', 'RANGE'],
      ['maxSpendPerTransaction', 'RANGE'],
      ['maxTransactionsPerDay', 'TYPE'],
    ]);
    const notObject = await api.post('/cards', undefined, { raw: '[1]', headers: { 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' } });
    expect(notObject.status).toBe(400);
    const noBody = await issue(undefined);
    expect(noBody.status).toBe(400);
  });

  it('unknown cardholder → 404 CUSTOMER_NOT_FOUND; unknown funding source → 404 ACCOUNT_NOT_FOUND; another customer’s account → 400', async () => {
    const holder = await issue({ cardholderId: 'Customer:nope', fundingSource: alice.wallet.id });
    expect([holder.status, holder.json.code]).toEqual([404, 'CUSTOMER_NOT_FOUND']);
    const account = await issue({ cardholderId: alice.customer.id, fundingSource: 'InternalAccount:nope' });
    expect([account.status, account.json.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const foreign = await issue({ cardholderId: alice.customer.id, fundingSource: bob.wallet.id });
    expect([foreign.status, foreign.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect(foreign.json.details.errors[0].field).toBe('fundingSource');
  });

  it('cardholder KYC not APPROVED → 400 CARDHOLDER_KYC_NOT_APPROVED; the failed key is not recorded', async () => {
    const carol = await createCustomer(api);
    const key = randomUUID();
    for (const status of ['PENDING', 'REJECTED']) {
      await setKyc(carol, status);
      const r = await issue(cardBody(carol), key);
      expect([r.status, r.json.code]).toEqual([400, 'CARDHOLDER_KYC_NOT_APPROVED']);
    }
    await setKyc(carol, 'APPROVED');
    const ok = await issue(cardBody(carol), key);
    expect(ok.status, ok.text).toBe(201);
  });

  it('an ordinary (non-wallet) account of the cardholder can fund a card in its currency', async () => {
    const usd = alice.accounts.find((a: any) => a.type === 'INTERNAL_FIAT');
    const r = await issue({ cardholderId: alice.customer.id, fundingSource: usd.id });
    expect(r.status).toBe(201);
    expect(r.json.currency).toBe('USD');
  });
});

describe('GET /cards/{id}', () => {
  it('unknown card → 404 NOT_FOUND; GET /cards/{id} needs platform credentials', async () => {
    const r = await api.get('/cards/Card:00000000-0000-0000-0000-000000000000');
    expect([r.status, r.json.code]).toEqual([404, 'NOT_FOUND']);
    const card = await issue(cardBody(alice));
    const anon = await api.get(`/cards/${enc(card.json.id)}`, { auth: false });
    expect(anon.status).toBe(401);
  });
});

describe('garbage never breaks cards', () => {
  it('a valid body with one field replaced by random JSON, random keys: 4xx with a code or a success, never 5xx', async () => {
    const keyText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_:=+/ .{}"'.split('')), maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.jsonValue({ maxDepth: 3 }), keyText, async (pick, value, key) => {
        const base: Record<string, unknown> = cardBody(alice, { maxSpendPerTransaction: 1, maxSpendPerDay: 2, maxTransactionsPerDay: 3 });
        const names = Object.keys(base);
        base[names[pick % names.length] as string] = value;
        const r = await api.post('/cards', base, { headers: { 'Idempotency-Key': key } });
        expect(r.status, r.text).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code).toBe('string');
        const read = await api.get(`/cards/${enc(`Card:${JSON.stringify(value)}`)}`);
        expect(read.status).toBe(404);
      }),
      { numRuns: 150 },
    );
  }, 180_000); // 300 requests: about 3 s idle, past the default 30 s on a machine loaded 15 times over
});
