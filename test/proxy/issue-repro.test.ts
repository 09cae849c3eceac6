/**
 * The reproductions of issue 23, as a new user would try them: Alice and Bob on the sandbox, the
 * README's `createProxy({ currentUser })`, requests as Alice. Each now answers 400/403/404 or only
 * Alice's data (the invariants are in src/proxy/scope.ts; the leak property picks cases at random).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, type ProxyHandler } from '../../src/proxy/index.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, SANDBOX_VALID_SIGNATURE } from '../../src/sandbox/index.js';
import type { Api } from '../sandbox/helpers/http.js';
import { secretsOf, startParties, type Party } from './parties.js';

let api: Api;
let alice: Party;
let bob: Party;
let proxy: ProxyHandler;
let user: { customerId: string; accountIds?: string[] };
const lines: string[] = [];

async function quote(from: Party, to: string, amount: number): Promise<string> {
  const answer = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: from.walletId }, destination: { destinationType: 'ACCOUNT', accountId: to }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount });
  expect(answer.status, answer.text).toBe(201);
  return answer.json.id;
}

beforeAll(async () => {
  ({ api, alice, bob } = await startParties());
  // Alice pays Bob (issue point 3), and Bob executes a quote and makes a card with keys of his own (point 5).
  const paid = await api.post(`/quotes/${encodeURIComponent(await quote(alice, bob.usdcId, 3))}/execute`, undefined, { headers: { 'Service-Wallet-Signature': SANDBOX_VALID_SIGNATURE } });
  expect(paid.status, paid.text).toBe(200);
  const bobsPay = await api.post(`/quotes/${encodeURIComponent(await quote(bob, bob.usdcId, 2))}/execute`, undefined, { headers: { 'Service-Wallet-Signature': SANDBOX_VALID_SIGNATURE, 'Idempotency-Key': 'bobs-execute-key' } });
  expect(bobsPay.status, bobsPay.text).toBe(200);
  user = { customerId: alice.customerId };
  proxy = createProxy({
    baseUrl: api.url,
    clientId: DEFAULT_CLIENT_ID,
    clientSecret: DEFAULT_CLIENT_SECRET,
    currentUser: () => user,
    logger: (line) => lines.push(line),
  });
}, 60_000);
afterAll(() => api?.sandbox.close());

const e = encodeURIComponent;
async function asAlice(path: string, init: RequestInit = {}): Promise<{ status: number; text: string; json: any }> {
  const response = await proxy(new Request(`http://app.test${path}`, init));
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  for (const secret of secretsOf(bob)) if (secret !== bob.usdcId) expect(text, `${path} leaks ${secret}`).not.toContain(secret);
  return { status: response.status, text, json };
}

describe('issue 23, point by point', () => {
  it('1. /internal-account with filters the route ignores (accountId, fundingSourceId, senderAccountIdentifier, CustomerId) → 400', async () => {
    for (const query of [`accountId=${e(alice.walletId)}&limit=100`, `fundingSourceId=${e(alice.walletId)}`, `senderAccountIdentifier=${e(alice.walletId)}`, `CustomerId=${e(bob.customerId)}&accountId=${e(alice.walletId)}`]) {
      const answer = await asAlice(`/internal-account?${query}`);
      expect([answer.status, answer.json.code], query).toEqual([400, 'INVALID_INPUT']);
    }
    const mine = await asAlice('/internal-account?limit=100');
    expect(mine.status).toBe(200);
    expect(mine.json.data.map((a: { id: string }) => a.id).sort()).toEqual([alice.walletId, alice.usdcId].sort());
  });

  it('2. /transactions?accountId=… → 400; with platformCustomerId → 400', async () => {
    expect((await asAlice(`/transactions?accountId=${e(alice.walletId)}&limit=100`)).status).toBe(400);
    expect((await asAlice(`/transactions?customerId=${e(alice.customerId)}&platformCustomerId=x`)).status).toBe(400);
  });

  it("3. /transactions?senderAccountIdentifier=<Alice's wallet> → Alice's records only (not Bob's INCOMING record of her transfer)", async () => {
    const answer = await asAlice(`/transactions?senderAccountIdentifier=${e(alice.walletId)}`);
    expect(answer.status).toBe(200);
    expect(answer.json.data.length).toBeGreaterThan(0);
    for (const t of answer.json.data) expect(t.customerId).toBe(alice.customerId);
  });

  it('4. accountIds narrowing: per request, also on the account list and on cards by their funding account', async () => {
    user = { customerId: alice.customerId, accountIds: [alice.usdcId] };
    const narrowed = await asAlice('/internal-account');
    expect(narrowed.json.data.map((a: { id: string }) => a.id)).toEqual([alice.usdcId]);
    expect(narrowed.text).not.toContain(alice.walletId);
    expect((await asAlice(`/cards/${e(alice.cardId)}`)).status).toBe(404); // funded by the wallet
    // Another user of the same customer, not narrowed, right after: the cache holds no narrowed view.
    user = { customerId: alice.customerId };
    expect((await asAlice('/internal-account')).json.data).toHaveLength(2);
    expect((await asAlice(`/cards/${e(alice.cardId)}`)).status).toBe(200);
    user = { customerId: alice.customerId, accountIds: [alice.usdcId] };
    expect((await asAlice(`/cards/${e(alice.cardId)}`)).status).toBe(404);
    user = { customerId: alice.customerId };
  });

  it("5. Bob's Idempotency-Keys cannot reach Bob's card or quote", async () => {
    const bobsCard = await api.post('/cards', { cardholderId: bob.customerId, fundingSource: bob.usdcId }, { headers: { 'Idempotency-Key': 'bobs-card-key' } });
    expect([201, 400, 409]).toContain(bobsCard.status);
    const card = await asAlice('/cards', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'bobs-card-key' }, body: JSON.stringify({ cardholderId: alice.customerId, fundingSource: alice.usdcId }) });
    expect(card.status, card.text).not.toBe(409);
    const mine = await quote(alice, alice.usdcId, 1);
    const executed = await asAlice(`/quotes/${e(mine)}/execute`, { method: 'POST', headers: { 'service-wallet-signature': SANDBOX_VALID_SIGNATURE, 'idempotency-key': 'bobs-execute-key' } });
    expect(executed.status, executed.text).toBe(200);
    expect(executed.json.id).toBe(mine);
  });

  it('6. the card owner is read from the spec\'s fundingSource, and refusals are logged with their code', async () => {
    expect((await asAlice(`/cards/${e(alice.cardId)}`)).status).toBe(200);
    // S11: Bob's card answers as an unknown one.
    expect((await asAlice(`/cards/${e(bob.cardId)}`)).status).toBe(404);
    expect(lines.at(-1)).toMatch(/^proxy GET \/cards\/Card:\S+ 404 \d+ms NOT_FOUND$/);
    expect((await asAlice(`/customers/${e(bob.customerId)}`)).status).toBe(403);
    expect(lines.at(-1)).toMatch(/ 403 \d+ms FORBIDDEN$/);
  });
});
