import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, type Wallet } from './helpers/flows.js';
import { stamp, type TestKey } from './helpers/keys.js';

let api: Api;
let alice: Wallet;
let bob: Wallet;
let aliceKey: TestKey;
/** Transaction ids by name, in creation order: F1 F2 F3 OUT IN F4. */
const tx: Record<string, string> = {};
let quoteId: string;

async function fund(accountId: string, amount: number): Promise<string> {
  const r = await api.post(`/sandbox/internal-accounts/${enc(accountId)}/fund`, { amount });
  expect(r.status, r.text).toBe(200);
  return r.json.transactionId;
}

async function advance(seconds: number): Promise<void> {
  expect((await api.post('/sandbox/clock/advance', { seconds })).status).toBe(200);
}

async function ids(query: string): Promise<string[]> {
  const r = await api.get(`/transactions${query}`);
  expect(r.status, r.text).toBe(200);
  return r.json.data.map((t: any) => t.id);
}

async function createdAt(id: string): Promise<string> {
  return (await api.get(`/transactions/${enc(id)}`)).json.createdAt;
}

const usd = (w: Wallet) => w.accounts.find((a: any) => a.balance.currency.code === 'USD');

beforeAll(async () => {
  api = await start();
  alice = await createCustomer(api);
  bob = await createCustomer(api);
  aliceKey = (await otpLogin(api, alice.email.id)).key;
  tx.F1 = await fund(alice.wallet.id, 100);
  await advance(10);
  tx.F2 = await fund(usd(alice).id, 50);
  await advance(10);
  tx.F3 = await fund(bob.wallet.id, 7);
  await advance(10);
  const quote = await api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: alice.wallet.id },
    destination: { destinationType: 'ACCOUNT', accountId: bob.wallet.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 30,
  });
  quoteId = quote.json.id;
  const payload = quote.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign;
  const executed = await api.post(`/quotes/${enc(quoteId)}/execute`, undefined, { headers: { 'Service-Wallet-Signature': stamp(payload, aliceKey) } });
  expect(executed.status, executed.text).toBe(200);
  const settled = await api.get(`/quotes/${enc(quoteId)}`);
  tx.OUT = settled.json.transactionId;
  const incoming = await api.get(`/transactions?customerId=${enc(bob.customer.id)}&type=INCOMING&senderAccountIdentifier=${enc(alice.wallet.id)}`);
  tx.IN = incoming.json.data[0].id;
  await advance(10);
  tx.F4 = await fund(alice.wallet.id, 1);
});
afterAll(() => api.sandbox.close());

describe('GET /transactions/{id}', () => {
  it('a sandbox funding: INCOMING CREDIT COMPLETED, no source', async () => {
    const r = await api.get(`/transactions/${enc(tx.F1 as string)}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: tx.F1,
      status: 'COMPLETED',
      type: 'INCOMING',
      direction: 'CREDIT',
      destination: { accountId: alice.wallet.id, currency: 'USDC' },
      sentAmount: { amount: 100, currency: { code: 'USDC', decimals: 6 } },
      receivedAmount: { amount: 100, currency: { code: 'USDC', decimals: 6 } },
      customerId: alice.customer.id,
      platformCustomerId: alice.customer.platformCustomerId,
      settledAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(r.json.source).toBeUndefined();
    expect(r.json.accountId).toBeUndefined();
  });

  it('a transfer: the sender’s OUTGOING and the receiver’s INCOMING, both COMPLETED with the quote id', async () => {
    const out = (await api.get(`/transactions/${enc(tx.OUT as string)}`)).json;
    const inc = (await api.get(`/transactions/${enc(tx.IN as string)}`)).json;
    expect(out).toMatchObject({ type: 'OUTGOING', direction: 'DEBIT', status: 'COMPLETED', customerId: alice.customer.id, quoteId });
    expect(inc).toMatchObject({ type: 'INCOMING', direction: 'CREDIT', status: 'COMPLETED', customerId: bob.customer.id, quoteId });
    expect(inc.source).toEqual({ accountId: alice.wallet.id, currency: 'USDC' });
    expect(inc.destination).toEqual({ accountId: bob.wallet.id, currency: 'USDC' });
  });

  it('unknown id → 404 TRANSACTION_NOT_FOUND', async () => {
    const r = await api.get('/transactions/Transaction:00000000-0000-0000-0000-000000000000');
    expect([r.status, r.json.code]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
  });
});

describe('GET /transactions', () => {
  it('list shape of spec §2.1, newest first', async () => {
    const r = await api.get('/transactions');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: expect.any(Array), hasMore: false, totalCount: 6 });
    expect(r.json.data.map((t: any) => t.id)).toEqual([tx.F4, tx.IN, tx.OUT, tx.F3, tx.F2, tx.F1]);
    const times = r.json.data.map((t: any) => Date.parse(t.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('filters: customerId, platformCustomerId, type, status, senderAccountIdentifier, and their combination', async () => {
    expect(await ids(`?customerId=${enc(alice.customer.id)}`)).toEqual([tx.F4, tx.OUT, tx.F2, tx.F1]);
    expect(await ids(`?platformCustomerId=${enc(bob.customer.platformCustomerId)}`)).toEqual([tx.IN, tx.F3]);
    expect(await ids('?type=OUTGOING')).toEqual([tx.OUT]);
    expect(await ids(`?type=INCOMING&customerId=${enc(alice.customer.id)}`)).toEqual([tx.F4, tx.F2, tx.F1]);
    expect(await ids('?status=COMPLETED')).toHaveLength(6);
    expect(await ids('?status=PROCESSING')).toEqual([]);
    expect(await ids('?status=FAILED')).toEqual([]);
    expect(await ids(`?senderAccountIdentifier=${enc(alice.wallet.id)}`)).toEqual([tx.IN, tx.OUT]);
    expect(await ids(`?senderAccountIdentifier=${enc(alice.wallet.id)}&customerId=${enc(bob.customer.id)}`)).toEqual([tx.IN]);
    expect(await ids('?customerId=Customer:unknown')).toEqual([]);
  });

  it('startDate / endDate (inclusive, any zone offset)', async () => {
    const f2 = await createdAt(tx.F2 as string);
    const out = await createdAt(tx.OUT as string);
    expect(await ids(`?startDate=${enc(f2)}&endDate=${enc(out)}`)).toEqual([tx.IN, tx.OUT, tx.F3, tx.F2]);
    expect(await ids(`?startDate=${enc(out)}`)).toEqual([tx.F4, tx.IN, tx.OUT]);
    expect(await ids(`?endDate=${enc(f2)}`)).toEqual([tx.F2, tx.F1]);
    // The same instant written with an offset.
    const d = new Date(Date.parse(f2) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await ids(`?endDate=${enc(d)}`)).toEqual([tx.F2, tx.F1]);
  });

  it('cursor pagination walks every item once; the last page has no nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await api.get(`/transactions?limit=4${cursor === undefined ? '' : `&cursor=${enc(cursor)}`}`);
      expect(r.status).toBe(200);
      expect(r.json.totalCount).toBe(6);
      seen.push(...r.json.data.map((t: any) => t.id));
      cursor = r.json.nextCursor;
      expect(r.json.hasMore).toBe(cursor !== undefined);
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(2);
    expect(seen).toEqual([tx.F4, tx.IN, tx.OUT, tx.F3, tx.F2, tx.F1]);
  });

  it('a cursor stays correct when newer transactions arrive', async () => {
    const carol = await createCustomer(api);
    const made = [];
    for (let i = 0; i < 3; i += 1) made.push(await fund(carol.wallet.id, i + 1));
    const first = await api.get(`/transactions?customerId=${enc(carol.customer.id)}&limit=1`);
    expect(first.json.data.map((t: any) => t.id)).toEqual([made[2]]);
    await fund(carol.wallet.id, 99);
    const next = await api.get(`/transactions?customerId=${enc(carol.customer.id)}&limit=5&cursor=${enc(first.json.nextCursor)}`);
    expect(next.json.data.map((t: any) => t.id)).toEqual([made[1], made[0]]);
    expect(next.json.hasMore).toBe(false);
  });

  it('limit defaults to 20, accepts 100, and anything outside 1–100 → 400 INVALID_INPUT', async () => {
    const dave = await createCustomer(api);
    for (let i = 0; i < 21; i += 1) await fund(dave.wallet.id, 1);
    const page = await api.get(`/transactions?customerId=${enc(dave.customer.id)}`);
    expect(page.json.data).toHaveLength(20);
    expect(page.json.hasMore).toBe(true);
    expect(page.json.totalCount).toBe(21);
    expect((await api.get(`/transactions?customerId=${enc(dave.customer.id)}&limit=100`)).json.data).toHaveLength(21);
    for (const limit of ['0', '101', '-1', 'abc', '1.5', '']) {
      const r = await api.get(`/transactions?limit=${limit}`);
      expect(r.status, limit).toBe(400);
      expect(r.json.code).toBe('INVALID_INPUT');
      expect(r.json.details.errors).toEqual([expect.objectContaining({ field: 'limit', constraint: 'RANGE' })]);
    }
  });

  it('every bad parameter is reported at once; startDate after endDate and unknown cursors → 400', async () => {
    const r = await api.get('/transactions?status=DONE&type=SIDEWAYS&startDate=yesterday&endDate=2025-01-01&limit=0');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors.map((e: any) => e.field).sort()).toEqual(['endDate', 'limit', 'startDate', 'status', 'type']);
    const reversed = await api.get(`/transactions?startDate=${enc('2025-10-13T00:00:01Z')}&endDate=${enc('2025-10-13T00:00:00Z')}`);
    expect(reversed.status).toBe(400);
    expect(reversed.json.details.errors[0]).toMatchObject({ field: 'startDate', constraint: 'RANGE' });
    const cursor = await api.get('/transactions?cursor=bm90LWEtY3Vyc29y');
    expect([cursor.status, cursor.json.code]).toEqual([400, 'INVALID_INPUT']);
    for (const date of ['2025-02-30T00:00:00Z', '2025-13-01T00:00:00Z', '2025-01-01T25:00:00Z', '2025-01-01', '1735689600000']) {
      const r2 = await api.get(`/transactions?startDate=${enc(date)}`);
      expect(r2.status, date).toBe(400);
      expect(r2.json.details.errors[0]).toMatchObject({ field: 'startDate', constraint: 'FORMAT' });
    }
    const empty = await api.get('/transactions?customerId=');
    expect(empty.status).toBe(400);
  });

  it('needs platform credentials', async () => {
    const r = await api.get('/transactions', { auth: false });
    expect([r.status, r.json.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('garbage never breaks the transaction list', () => {
  it('random values for every query parameter: 200 or 400 with a code, never 5xx', async () => {
    const names = ['customerId', 'platformCustomerId', 'startDate', 'endDate', 'status', 'type', 'senderAccountIdentifier', 'limit', 'cursor'];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), fc.string({ maxLength: 40 }), { maxKeys: 5 }), async (params) => {
        const r = await api.get(`/transactions?${new URLSearchParams(params).toString()}`);
        expect(r.status, r.text).toBeLessThan(500);
        if (r.status !== 200) expect([r.status, typeof r.json?.code]).toEqual([400, 'string']);
      }),
      { numRuns: 200 },
    );
  });
});
