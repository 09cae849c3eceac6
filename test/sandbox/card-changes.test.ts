// Cards listed and changed (spec §3.4, §4.6; src/sandbox/routes/card-changes.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Api, enc, start } from './helpers/http.js';
import { createCustomer, type Wallet } from './helpers/flows.js';

let api: Api;
let holder: Wallet;
beforeAll(async () => {
  api = await start();
  holder = await createCustomer(api, { currencies: ['USD', 'USDC'] });
});
afterAll(() => api.sandbox.close());

async function issue(w: Wallet, fundingSource: string = w.wallet.id): Promise<any> {
  const r = await api.post('/cards', { cardholderId: w.customer.id, fundingSource }, { headers: { 'Idempotency-Key': randomUUID() } });
  expect(r.status, r.text).toBe(201);
  return (await api.get(`/cards/${enc(r.json.id)}`)).json; // provisioned: ACTIVE
}
const patch = (card: any, body: unknown): Promise<Answer> => api.patch(`/cards/${enc(card.id)}`, body);
const codeOf = (a: Answer) => [a.status, a.json?.code];

describe('GET /cards', () => {
  it('lists with the cardholder, funding-source and status filters, paginated', async () => {
    const other = await createCustomer(api);
    const [a, b] = [await issue(holder), await issue(holder)];
    await issue(other);
    expect((await patch(b, { status: 'FROZEN' })).status).toBe(200);
    const mine = await api.get(`/cards?cardholderId=${enc(holder.customer.id)}`);
    expect(mine.status).toBe(200);
    expect(mine.json.data.map((c: any) => c.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(mine.json.data.every((c: any) => c.cardholderId === holder.customer.id)).toBe(true);
    const frozen = await api.get(`/cards?cardholderId=${enc(holder.customer.id)}&status=FROZEN`);
    expect(frozen.json.data.map((c: any) => c.id)).toEqual([b.id]);
    const page = await api.get(`/cards?fundingSource=${enc(holder.wallet.id)}&limit=1`);
    expect(page.json).toMatchObject({ hasMore: true, nextCursor: expect.any(String), totalCount: expect.any(Number) });
    expect(codeOf(await api.get('/cards?status=MELTED'))).toEqual([400, 'INVALID_INPUT']);
  });
});

describe('PATCH /cards/{id}', () => {
  it('freeze, unfreeze, close (CLOSED_BY_PLATFORM, funding source detached); then 409 CARD_ALREADY_CLOSED / CARD_NOT_MUTABLE', async () => {
    const card = await issue(holder);
    expect((await patch(card, { status: 'FROZEN' })).json.status).toBe('FROZEN');
    expect((await patch(card, { status: 'ACTIVE' })).json.status).toBe('ACTIVE');
    const closed = await patch(card, { status: 'CLOSED' });
    expect(closed.json).toMatchObject({ status: 'CLOSED', statusReason: 'CLOSED_BY_PLATFORM' });
    expect(closed.json.fundingSource).toBeUndefined();
    expect(codeOf(await patch(card, { status: 'CLOSED' }))).toEqual([409, 'CARD_ALREADY_CLOSED']);
    expect(codeOf(await patch(card, { status: 'ACTIVE' }))).toEqual([409, 'CARD_NOT_MUTABLE']);
    expect(codeOf(await patch(card, { maxSpendPerDay: 100 }))).toEqual([409, 'CARD_NOT_MUTABLE']);
    expect((await api.get(`/cards/${enc(card.id)}`)).json.status).toBe('CLOSED');
  });

  it('any other transition → 409 INVALID_STATE_TRANSITION (ACTIVE → ACTIVE too)', async () => {
    const card = await issue(holder);
    expect(codeOf(await patch(card, { status: 'ACTIVE' }))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    await patch(card, { status: 'FROZEN' });
    expect(codeOf(await patch(card, { status: 'FROZEN' }))).toEqual([409, 'INVALID_STATE_TRANSITION']);
  });

  it('limits set and cleared with null; bad bodies → 400 INVALID_INPUT listing the fields', async () => {
    const card = await issue(holder);
    const set = await patch(card, { maxSpendPerTransaction: 500, maxSpendPerDay: 2000, maxTransactionsPerDay: 3 });
    expect(set.json).toMatchObject({ maxSpendPerTransaction: 500, maxSpendPerDay: 2000, maxTransactionsPerDay: 3 });
    const cleared = await patch(card, { maxSpendPerDay: null });
    expect(cleared.json.maxSpendPerDay).toBeUndefined();
    expect(cleared.json.maxSpendPerTransaction).toBe(500);
    const bad = await patch(card, { maxSpendPerDay: 0, status: 'MELTED', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.json.details.errors.map((e: any) => e.field).sort()).toEqual(['colour', 'maxSpendPerDay', 'status']);
    expect(codeOf(await patch(card, {}))).toEqual([400, 'INVALID_INPUT']);
    const closing = await patch(card, { status: 'CLOSED', maxSpendPerDay: 10 });
    expect(closing.status).toBe(400);
    expect(closing.json.details.errors[0]).toMatchObject({ field: 'maxSpendPerDay', constraint: 'CONFLICT' });
  });

  it("fundingSource: the cardholder's account in the card's currency, never with a status change; unknown card 404", async () => {
    const card = await issue(holder);
    const usd = holder.accounts.find((a: any) => a.balance.currency.code === 'USD');
    const usdc = holder.accounts.find((a: any) => a.balance.currency.code === 'USDC' && a.type !== 'EMBEDDED_WALLET');
    const other = await createCustomer(api);
    expect(codeOf(await patch(card, { fundingSource: usd.id }))).toEqual([400, 'INVALID_INPUT']);
    expect(codeOf(await patch(card, { fundingSource: other.wallet.id }))).toEqual([400, 'INVALID_INPUT']);
    expect(codeOf(await patch(card, { fundingSource: usdc.id, status: 'FROZEN' }))).toEqual([400, 'INVALID_INPUT']);
    const moved = await patch(card, { fundingSource: usdc.id });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.fundingSource).toBe(usdc.id);
    expect(codeOf(await api.patch('/cards/Card:nope', { status: 'FROZEN' }))).toEqual([404, 'NOT_FOUND']);
  });
});
