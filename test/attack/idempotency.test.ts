/**
 * Idempotency-Key collisions. The proxy derives the forwarded key per customer (as promised), so
 * two users of one customer share keys: a replayed/conflicting answer of another user can reach
 * Alice. Error answers (4xx) are not checked record by record.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { world, type World } from './world.js';
let w: World;
beforeAll(async () => { w = await world(); }, 30_000);
afterAll(async () => w?.close());

it('POST /cards: another user of the same customer reusing a key does not learn that user\'s card id (409 details)', async () => {
  const carol = { customerId: w.A.customerId, accountIds: [w.A.other] };
  const alice = { customerId: w.A.customerId, accountIds: [w.A.wallet] };
  const made = await w.as(carol, 'POST', '/cards', { body: { cardholderId: w.A.customerId, fundingSource: w.A.other }, headers: { 'idempotency-key': 'shared-key-1' } });
  expect(made.status).toBe(201);
  const carolsCard = made.body.id as string;
  const r = await w.as(alice, 'POST', '/cards', { body: { cardholderId: w.A.customerId, fundingSource: w.A.wallet }, headers: { 'idempotency-key': 'shared-key-1' } });
  expect(r.text).not.toContain(carolsCard);
});

it('POST /cards: Bob reusing Alice\'s key gets no replay and no conflict from her card', async () => {
  const alice = { customerId: w.A.customerId };
  const bob = { customerId: w.B.customerId };
  const made = await w.as(alice, 'POST', '/cards', { body: { cardholderId: w.A.customerId, fundingSource: w.A.wallet }, headers: { 'idempotency-key': 'shared-key-2' } });
  expect(made.status).toBe(201);
  const r = await w.as(bob, 'POST', '/cards', { body: { cardholderId: w.B.customerId, fundingSource: w.B.wallet }, headers: { 'idempotency-key': 'shared-key-2' } });
  expect(r.status).toBe(201);
  expect(r.text).not.toContain(made.body.id);
  // and Bob replaying Alice's exact body is refused before the service
  const s = await w.as(bob, 'POST', '/cards', { body: { cardholderId: w.A.customerId, fundingSource: w.A.wallet }, headers: { 'idempotency-key': 'shared-key-2' } });
  expect(s.status).toBe(403);
});
