/**
 * Alice (customer A) against Bob's (customer B) records, through every route, with query, path,
 * body, header and method tricks. Secure behaviour: a refusal (never 2xx), nothing of Bob's that
 * the request did not already name comes back, and Bob's records are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from './world.js';
let w: World;
const bob: Record<string, string> = {};
beforeAll(async () => {
  w = await world();
  await w.svc('POST', `/sandbox/internal-accounts/${w.B.other}/fund`, { amount: 500 });
  const card = await w.svc('POST', '/cards', { cardholderId: w.B.customerId, fundingSource: w.B.other }, { 'idempotency-key': 'bob-card' });
  bob.card = card.body.id;
  const quote = await w.svc('POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: w.B.other },
    destination: { destinationType: 'ACCOUNT', accountId: w.B.wallet },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10,
  });
  bob.quote = quote.body.id;
  const creds = await w.svc('GET', `/auth/credentials?accountId=${w.B.wallet}`);
  bob.credential = creds.body.data[0].id;
  const tx = await w.svc('GET', `/transactions?customerId=${w.B.customerId}`);
  bob.transaction = tx.body.data[0].id;
  bob.email = 'bob-co@example.com';
  for (const [k, v] of Object.entries(bob)) if (typeof v !== 'string') throw new Error(`setup ${k}: ${JSON.stringify(v)}`);
}, 30_000);
afterAll(async () => w?.close());

const alice = () => ({ customerId: w.A.customerId });
const e = (s: string) => encodeURIComponent(s);

type Case = [name: string, method: string, path: () => string, body?: (() => unknown) | undefined, headers?: Record<string, string>];
const cases: Case[] = [
  ['list accounts of B', 'GET', () => `/internal-account?customerId=${w.B.customerId}`],
  ['list accounts wrong-case param', 'GET', () => `/internal-account?CustomerId=${w.B.customerId}`],
  ['list accounts duplicated param (A then B)', 'GET', () => `/internal-account?customerId=${w.A.customerId}&customerId=${w.B.customerId}`],
  ['list accounts duplicated param (B then A)', 'GET', () => `/internal-account?customerId=${w.B.customerId}&customerId=${w.A.customerId}`],
  ['list accounts encoded param name', 'GET', () => `/internal-account?customer%49d=${w.B.customerId}`],
  ['list accounts param smuggled in value', 'GET', () => `/internal-account?customerId=${e(w.A.customerId + '&customerId=' + w.B.customerId)}`],
  ['list accounts ;-separated', 'GET', () => `/internal-account?customerId=${w.A.customerId};customerId=${w.B.customerId}`],
  ['list accounts array-style', 'GET', () => `/internal-account?customerId[]=${w.B.customerId}`],
  ['list accounts empty customerId', 'GET', () => `/internal-account?customerId=`],
  ['list accounts with platformCustomerId', 'GET', () => `/internal-account?platformCustomerId=atk-bob-co`],
  ['transactions of B', 'GET', () => `/transactions?customerId=${w.B.customerId}`],
  ['transactions senderAccountIdentifier=B', 'GET', () => `/transactions?senderAccountIdentifier=${w.B.other}`],
  ['transactions platformCustomerId=B', 'GET', () => `/transactions?platformCustomerId=atk-bob-co`],
  ['credentials list without filter', 'GET', () => `/auth/credentials`],
  ['credentials list of B', 'GET', () => `/auth/credentials?accountId=${w.B.wallet}`],
  ['sessions list of B', 'GET', () => `/auth/sessions?accountId=${w.B.wallet}`],
  ['delegated keys list mixed filters', 'GET', () => `/auth/delegated-keys?accountId=${w.A.wallet}&fundingSourceId=${w.B.other}`],
  ['delegated keys list no filter', 'GET', () => `/auth/delegated-keys?limit=5`],
  ['customer B', 'GET', () => `/customers/${w.B.customerId}`],
  ['customer B %3A', 'GET', () => `/customers/${e(w.B.customerId)}`],
  ['customer B lower-case prefix', 'GET', () => `/customers/${w.B.customerId.replace('Customer', 'customer')}`],
  ['customer B upper-case uuid', 'GET', () => `/customers/Customer:${w.B.customerId.split(':')[1]!.toUpperCase()}`],
  ['customer B trailing slash', 'GET', () => `/customers/${w.B.customerId}/`],
  ['customer B double slash', 'GET', () => `//customers/${w.B.customerId}`],
  ['customer B via dot segment', 'GET', () => `/customers/${w.A.customerId}/../${w.B.customerId}`],
  ['customer B via encoded dot segment', 'GET', () => `/customers/${w.A.customerId}/%2e%2e/${w.B.customerId}`],
  ['customer B via encoded slash', 'GET', () => `/customers/${w.A.customerId}%2F..%2F${w.B.customerId}`],
  ['customer B with ;param', 'GET', () => `/customers/${w.A.customerId};${w.B.customerId}`],
  ['customer B path case', 'GET', () => `/Customers/${w.B.customerId}`],
  ['customer B unicode', 'GET', () => `/customers/${w.B.customerId.replace('C', '\uFF23')}`],
  ['patch customer B', 'PATCH', () => `/customers/${w.B.customerId}`, () => ({ fullName: 'pwned' })],
  ['patch customer A with override to B', 'PATCH', () => `/customers/${w.A.customerId}`, () => ({ fullName: 'x', customerId: w.B.customerId })],
  ['patch account B', 'PATCH', () => `/internal-accounts/${w.B.wallet}`, () => ({ privateEnabled: true })],
  ['export account B', 'POST', () => `/internal-accounts/${w.B.wallet}/export`, () => ({ clientPublicKey: '04' + '11'.repeat(64) })],
  ['quote from B', 'POST', () => '/quotes', () => ({ source: { sourceType: 'ACCOUNT', accountId: w.B.other }, destination: { destinationType: 'ACCOUNT', accountId: w.A.wallet }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 })],
  ['quote source array', 'POST', () => '/quotes', () => ({ source: [{ sourceType: 'ACCOUNT', accountId: w.B.other }], destination: { destinationType: 'ACCOUNT', accountId: w.A.wallet }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 })],
  ['quote source with customerId B', 'POST', () => '/quotes', () => ({ source: { sourceType: 'ACCOUNT', accountId: w.A.other, customerId: w.B.customerId }, destination: { destinationType: 'ACCOUNT', accountId: w.A.wallet }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 })],
  ['quote duplicated nested key', 'POST', () => '/quotes', () => `{"source":{"sourceType":"ACCOUNT","accountId":"${w.A.other}","accountId":"${w.B.other}"},"destination":{"destinationType":"ACCOUNT","accountId":"${w.A.wallet}"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":1}`],
  ['quote duplicated key via escape', 'POST', () => '/quotes', () => `{"source":{"sourceType":"ACCOUNT","accountId":"${w.A.other}","account\\u0049d":"${w.B.other}"},"destination":{"destinationType":"ACCOUNT","accountId":"${w.A.wallet}"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":1}`],
  ['quote __proto__ source', 'POST', () => '/quotes', () => `{"source":{"sourceType":"ACCOUNT","__proto__":{"accountId":"${w.B.other}"}},"destination":{"destinationType":"ACCOUNT","accountId":"${w.A.wallet}"},"lockedCurrencySide":"SENDING","lockedCurrencyAmount":1}`],
  ['get quote B', 'GET', () => `/quotes/${bob.quote}`],
  ['execute quote B', 'POST', () => `/quotes/${bob.quote}/execute`, () => ({})],
  ['get card B', 'GET', () => `/cards/${bob.card}`],
  ['card for B cardholder', 'POST', () => '/cards', () => ({ cardholderId: w.B.customerId, fundingSource: w.A.other }), { 'idempotency-key': 'c1' }],
  ['card on B funding', 'POST', () => '/cards', () => ({ cardholderId: w.B.customerId, fundingSource: w.B.other }), { 'idempotency-key': 'bob-card' }],
  ['card fundingSource nested', 'POST', () => '/cards', () => ({ cardholderId: w.A.customerId, fundingSource: { id: w.B.other } }), { 'idempotency-key': 'c2' }],
  ['card without fundingSource', 'POST', () => '/cards', () => ({ cardholderId: w.B.customerId }), { 'idempotency-key': 'c3' }],
  ['credential on B wallet', 'POST', () => '/auth/credentials', () => ({ type: 'EMAIL_OTP', accountId: w.B.wallet })],
  ['credential with extra customerId', 'POST', () => '/auth/credentials', () => ({ type: 'EMAIL_OTP', accountId: w.A.wallet, customerId: w.B.customerId })],
  ['challenge B credential', 'POST', () => `/auth/credentials/${bob.credential}/challenge`, () => ({})],
  ['verify B credential', 'POST', () => `/auth/credentials/${bob.credential}/verify`, () => ({ type: 'EMAIL_OTP', encryptedOtpBundle: 'x' })],
  ['delete B credential', 'DELETE', () => `/auth/credentials/${bob.credential}`],
  ['delegated key on B card', 'POST', () => '/auth/delegated-keys', () => ({ internalAccountId: w.A.wallet, cardId: bob.card, nickname: 'x' })],
  ['delegated key on B wallet', 'POST', () => '/auth/delegated-keys', () => ({ internalAccountId: w.B.wallet, cardId: bob.card, nickname: 'x' })],
  ['account id in customer slot', 'GET', () => `/customers/${w.B.wallet}`],
  ['card id in quote slot', 'GET', () => `/quotes/${bob.card}`],
  ['transaction id in card slot', 'GET', () => `/cards/${bob.transaction}`],
  ['quote id in delegated-key slot', 'GET', () => `/auth/delegated-keys/${bob.quote}`],
  ['B account as funding source filter', 'GET', () => `/auth/delegated-keys?fundingSourceId=${w.B.other}`],
  ['HEAD customer B', 'HEAD', () => `/customers/${w.B.customerId}`],
  ['OPTIONS customer B', 'OPTIONS', () => `/customers/${w.B.customerId}`],
  ['PUT customer B', 'PUT', () => `/customers/${w.B.customerId}`, () => ({ fullName: 'pwned' })],
  ['method override header', 'GET', () => `/customers/${w.B.customerId}`, undefined, { 'x-http-method-override': 'GET' }],
  ['text/plain body', 'POST', () => '/quotes', () => ({ source: { sourceType: 'ACCOUNT', accountId: w.B.other } }), { 'content-type': 'text/plain' }],
];

describe('Alice against Bob', () => {
  for (const [name, method, path, body, headers] of cases) {
    it(`${method} ${name}: refused, nothing of Bob's comes back`, async () => {
      const b = body?.();
      const p = path();
      const r = await w.as(alice(), method, p, { ...(b === undefined ? {} : { body: b }), ...(headers ? { headers } : {}) });
      expect(r.status, r.text).toBeGreaterThanOrEqual(400);
      const named = p + (typeof b === 'string' ? b : JSON.stringify(b ?? ''));
      for (const secret of [w.B.customerId, w.B.wallet, w.B.other, ...Object.values(bob)]) {
        if (!named.includes(secret)) expect(r.text, `${secret} leaked`).not.toContain(secret);
      }
    });
  }
  it('cursor taken from Bob\'s list does not page Alice into Bob\'s records', async () => {
    const bl = await w.svc('GET', `/transactions?customerId=${w.B.customerId}&limit=1`);
    const ba = await w.svc('GET', `/internal-account?customerId=${w.B.customerId}&limit=1`);
    for (const [route, cursor] of [['/transactions', bl.body.nextCursor], ['/internal-account', ba.body.nextCursor]] as const) {
      if (typeof cursor !== 'string') continue;
      const r = await w.as(alice(), 'GET', `${route}?cursor=${cursor}`);
      for (const secret of [w.B.customerId, w.B.wallet, w.B.other, bob.transaction!]) expect(r.text).not.toContain(secret);
    }
  });
  it('huge body is refused with 413', async () => {
    const r = await w.as(alice(), 'PATCH', `/customers/${w.A.customerId}`, { body: JSON.stringify({ fullName: 'a'.repeat(2 * 1024 * 1024) }) });
    expect(r.status).toBe(413);
  });
  it('Bob\'s records are unchanged after all of the above', async () => {
    const c = await w.svc('GET', `/customers/${w.B.customerId}`);
    expect(c.body.fullName).toBe('bob-co');
    const creds = await w.svc('GET', `/auth/credentials?accountId=${w.B.wallet}`);
    expect(creds.body.data.map((x: any) => x.id)).toContain(bob.credential);
    const q = await w.svc('GET', `/quotes/${bob.quote}`);
    expect(q.body.status).toBe('PENDING');
  });
});
