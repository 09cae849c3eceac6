/**
 * S9 of src/proxy/scope.ts: a 4xx answer passes only ids that are the user's. The service is a stub
 * whose 409 names a card funded by an account outside Alice's narrowing (as a shared Idempotency-Key
 * made the sandbox do before S6 took the narrowing into the key).
 */
import { expect, it } from 'vitest';
import { createProxy, type ProxyLogEntry } from '../../src/proxy/index.js';

const CUSTOMER = 'Customer:11111111-1111-4111-8111-111111111111';
const WALLET = 'InternalAccount:22222222-2222-4222-8222-222222222222';
const OTHER = 'InternalAccount:33333333-3333-4333-8333-333333333333';
const MINE = 'Card:44444444-4444-4444-8444-444444444444';
const THEIRS = 'Card:55555555-5555-4555-8555-555555555555';

function setup(details: Record<string, unknown>, reason: string) {
  const entries: ProxyLogEntry[] = [];
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const proxy = createProxy({
    baseUrl: 'https://service.test',
    clientId: 'c',
    clientSecret: 's',
    logger: (_line, entry) => entries.push(entry),
    currentUser: () => ({ customerId: CUSTOMER, accountIds: [WALLET] }),
    fetch: async (input) => {
      const url = new URL(String(input));
      if (url.pathname === '/internal-account') return json(200, { data: [{ id: WALLET, customerId: CUSTOMER }, { id: OTHER, customerId: CUSTOMER }], hasMore: false });
      if (url.pathname === `/cards/${MINE}`) return json(200, { id: MINE, fundingSource: WALLET });
      if (url.pathname === `/cards/${THEIRS}`) return json(200, { id: THEIRS, fundingSource: OTHER });
      if (url.pathname === '/cards') return json(409, { status: 409, code: 'CONFLICT', reason, details });
      return json(404, { code: 'NOT_FOUND', reason: 'no' });
    },
  });
  const post = () =>
    proxy(new Request('http://app.test/cards', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k' }, body: JSON.stringify({ cardholderId: CUSTOMER, fundingSource: WALLET }) }));
  return { post, entries };
}

it('a 409 naming a card outside the narrowing: the id is removed from details and masked in reason, logged DETAILS_WITHHELD', async () => {
  const { post, entries } = setup({ cardId: THEIRS, cause: 'IDEMPOTENCY_KEY_REUSED', nested: { ids: [THEIRS, MINE] } }, `Key already used for ${THEIRS}`);
  const r = await post();
  const text = await r.text();
  expect(r.status).toBe(409);
  expect(text).not.toContain(THEIRS);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ code: 'CONFLICT', reason: 'Key already used for (withheld)', details: { cause: 'IDEMPOTENCY_KEY_REUSED', nested: { ids: [MINE] } } });
  expect(body.details.cardId).toBeUndefined();
  expect(entries.at(-1)).toMatchObject({ status: 409, code: 'DETAILS_WITHHELD' });
});

it("a 409 naming only the user's own card passes unchanged", async () => {
  const { post, entries } = setup({ cardId: MINE }, `Key already used for ${MINE}`);
  const r = await post();
  expect(r.status).toBe(409);
  expect(await r.json()).toMatchObject({ reason: `Key already used for ${MINE}`, details: { cardId: MINE } });
  expect(entries.at(-1)?.code).toBeUndefined();
});
