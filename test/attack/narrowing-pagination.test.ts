/**
 * accountIds narrowing vs list pagination: records outside the narrowing are dropped from `data[]`,
 * but `nextCursor` (the sandbox's cursor is base64url of the last id on the page), `hasMore` and
 * `totalCount` still describe them. A narrowed user learns ids and counts of another user's accounts
 * and transactions in the same customer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { b64, world, type World } from './world.js';
let w: World;
beforeAll(async () => {
  w = await world();
  await w.svc('POST', `/sandbox/internal-accounts/${w.A.wallet}/fund`, { amount: 100 });
  await w.svc('POST', `/sandbox/internal-accounts/${w.A.other}/fund`, { amount: 7 });
  await w.svc('POST', `/sandbox/internal-accounts/${w.A.other}/fund`, { amount: 8 });
}, 30_000);
afterAll(async () => w?.close());

const alice = () => ({ customerId: w.A.customerId, accountIds: [w.A.wallet] });

function exposed(r: { text: string; body: any }, secrets: string[]): string[] {
  const cursor = typeof r.body?.nextCursor === 'string' ? b64(r.body.nextCursor) : '';
  return secrets.filter((s) => r.text.includes(s) || cursor.includes(s));
}

it('GET /internal-account?limit=1: the page of a narrowed-out account does not reveal its id via nextCursor', async () => {
  const r = await w.as(alice(), 'GET', '/internal-account?limit=1');
  expect(r.status).toBe(200);
  // S8: the proxy pages the narrowed list itself: the first page holds Alice's account, nothing after it.
  expect(r.body.data.map((a: any) => a.id)).toEqual([w.A.wallet]);
  expect(r.body.hasMore).toBe(false);
  expect(exposed(r, [w.A.other])).toEqual([]);
});

it('GET /transactions?limit=1: nextCursor does not reveal the id of a narrowed-out transaction', async () => {
  const all = await w.svc('GET', `/transactions?customerId=${encodeURIComponent(w.A.customerId)}`);
  const foreign = (all.body.data as any[]).filter((t) => t.destination?.accountId === w.A.other).map((t) => t.id as string);
  expect(foreign.length).toBe(2);
  const r = await w.as(alice(), 'GET', '/transactions?limit=1');
  expect(r.status).toBe(200);
  expect(exposed(r, foreign)).toEqual([]);
});

it('GET /transactions: totalCount counts only what the narrowed user may see', async () => {
  const r = await w.as(alice(), 'GET', '/transactions?limit=1');
  expect(r.status).toBe(200);
  // Alice's wallet has exactly one transaction; the other 2 belong to an account outside her narrowing.
  expect(r.body.totalCount).toBe(1);
});

it('following the leaked cursor enumerates the other user\'s transactions page by page', async () => {
  let cursor: string | undefined;
  const learned = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const r = await w.as(alice(), 'GET', `/transactions?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    if (r.status !== 200 || typeof r.body.nextCursor !== 'string') break;
    learned.add(b64(r.body.nextCursor));
    cursor = r.body.nextCursor;
  }
  const all = await w.svc('GET', `/transactions?customerId=${encodeURIComponent(w.A.customerId)}`);
  const foreign = (all.body.data as any[]).filter((t) => t.destination?.accountId === w.A.other).map((t) => t.id as string);
  expect(foreign.filter((id) => learned.has(id))).toEqual([]);
});

it('S8: a user narrowed to both accounts pages every record with the proxy\'s own cursor; a service cursor is refused', async () => {
  const both = { customerId: w.A.customerId, accountIds: [w.A.wallet, w.A.other] };
  const all = await w.svc('GET', `/transactions?customerId=${encodeURIComponent(w.A.customerId)}`);
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    const r = await w.as(both, 'GET', `/transactions?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.totalCount).toBe(all.body.data.length);
    seen.push(...r.body.data.map((t: any) => t.id));
    if (r.body.hasMore !== true) break;
    cursor = r.body.nextCursor;
    expect(cursor).toMatch(/^n[0-9]+$/);
  }
  expect(seen.sort()).toEqual((all.body.data as any[]).map((t) => t.id).sort());
  const service = await w.svc('GET', `/transactions?customerId=${encodeURIComponent(w.A.customerId)}&limit=1`);
  const r = await w.as(alice(), 'GET', `/transactions?limit=1&cursor=${service.body.nextCursor}`);
  expect(r.status).toBe(400);
});
