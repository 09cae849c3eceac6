/**
 * Alice and Carol are users of one customer A; Alice is narrowed to A's wallet, Carol's account is
 * A.other. Alice must not read or change Carol's account, cards, quotes or transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from './world.js';
let w: World;
const carol: Record<string, string> = {};
beforeAll(async () => {
  w = await world(['USDC']);
  await w.svc('POST', `/sandbox/internal-accounts/${w.A.other}/fund`, { amount: 500 });
  carol.card = (await w.svc('POST', '/cards', { cardholderId: w.A.customerId, fundingSource: w.A.other }, { 'idempotency-key': 'carol-card' })).body.id;
  carol.quote = (
    await w.svc('POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: w.A.other },
      destination: { destinationType: 'ACCOUNT', accountId: w.B.other },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10,
    })
  ).body.id;
  carol.transaction = (await w.svc('GET', `/transactions?customerId=${w.A.customerId}`)).body.data[0].id;
  for (const [k, v] of Object.entries(carol)) if (typeof v !== 'string') throw new Error(`setup ${k}`);
}, 30_000);
afterAll(async () => w?.close());

const alice = () => ({ customerId: w.A.customerId, accountIds: [w.A.wallet] });

type Case = [name: string, method: string, path: () => string, body?: () => unknown, headers?: Record<string, string>];
const cases: Case[] = [
  ['patch Carol account', 'PATCH', () => `/internal-accounts/${w.A.other}`, () => ({ privateEnabled: true })],
  ['export Carol account', 'POST', () => `/internal-accounts/${w.A.other}/export`, () => ({ clientPublicKey: '04' + '11'.repeat(64) })],
  ['quote from Carol account', 'POST', () => '/quotes', () => ({ source: { sourceType: 'ACCOUNT', accountId: w.A.other }, destination: { destinationType: 'ACCOUNT', accountId: w.B.other }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1, immediatelyExecute: true })],
  ['get Carol quote', 'GET', () => `/quotes/${carol.quote}`],
  ['execute Carol quote', 'POST', () => `/quotes/${carol.quote}/execute`, () => ({})],
  ['get Carol card', 'GET', () => `/cards/${carol.card}`],
  ['card on Carol account', 'POST', () => '/cards', () => ({ cardholderId: w.A.customerId, fundingSource: w.A.other }), { 'idempotency-key': 'x1' }],
  ['delegated key on Carol card', 'POST', () => '/auth/delegated-keys', () => ({ internalAccountId: w.A.wallet, cardId: carol.card, nickname: 'x' })],
  ['transactions senderAccountIdentifier=Carol', 'GET', () => `/transactions?senderAccountIdentifier=${w.A.other}`],
  ['credentials of Carol account', 'GET', () => `/auth/credentials?accountId=${w.A.other}`],
  ['delegated keys of Carol funding', 'GET', () => `/auth/delegated-keys?fundingSourceId=${w.A.other}`],
];

describe('narrowed Alice against Carol (same customer)', () => {
  for (const [name, method, path, body, headers] of cases) {
    it(`${method} ${name}: refused`, async () => {
      const b = body?.();
      const p = path();
      const r = await w.as(alice(), method, p, { ...(b === undefined ? {} : { body: b }), ...(headers ? { headers } : {}) });
      expect(r.status, r.text).toBeGreaterThanOrEqual(400);
      const named = p + JSON.stringify(b ?? '');
      for (const secret of [w.A.other, ...Object.values(carol)]) if (!named.includes(secret)) expect(r.text).not.toContain(secret);
    });
  }
  it('Carol\'s quote is still PENDING and her account untouched', async () => {
    expect((await w.svc('GET', `/quotes/${carol.quote}`)).body.status).toBe('PENDING');
    const acc = (await w.svc('GET', `/internal-account?customerId=${w.A.customerId}`)).body.data.find((a: any) => a.id === w.A.other);
    expect(acc.balance.amount).toBe(500);
  });
  it('narrowing takes effect on the next request although the card fact is cached', async () => {
    const wide = await w.as({ customerId: w.A.customerId }, 'GET', `/cards/${carol.card}`);
    expect(wide.status).toBe(200);
    const narrow = await w.as(alice(), 'GET', `/cards/${carol.card}`);
    // S11: outside the narrowing answers as an unknown card.
    expect(narrow.status).toBe(404);
  });
  it('a card moved to Carol\'s account after its owner was cached is no longer Alice\'s', async () => {
    const made = await w.svc('POST', '/cards', { cardholderId: w.A.customerId, fundingSource: w.A.wallet }, { 'idempotency-key': 'alice-card' });
    const id = made.body.id as string;
    expect((await w.as(alice(), 'GET', `/cards/${id}`)).status).toBe(200);
    const moved = await w.svc('PATCH', `/cards/${id}`, { fundingSource: w.A.other });
    expect(moved.status, moved.text).toBe(200);
    const r = await w.as(alice(), 'GET', `/cards/${id}`);
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    const before = w.seen.length;
    const k = await w.as(alice(), 'POST', '/auth/delegated-keys', { body: { internalAccountId: w.A.wallet, cardId: id, nickname: 'x' } });
    console.log('moved card: GET', r.status, r.body?.code, '; delegated key', k.status, k.body?.code);
    expect(k.status === 200 || k.status === 201 || k.status === 202, k.text).toBe(false);
    // The proxy itself must refuse (the card is no longer funded by Alice's account): nothing forwarded.
    expect(w.seen.slice(before).filter((l) => l.startsWith('POST ') && l.includes('/auth/delegated-keys'))).toEqual([]);
    expect(k.status).toBe(404);
  });
});
