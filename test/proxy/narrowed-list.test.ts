/** Focused tests of narrowedList (S8), checkErrorAnswer (S9) and idempotencyKeys (S6): pure functions, pages and ownership scripted. */
import { describe, expect, it } from 'vitest';
import { narrowedList } from '../../src/proxy/narrowed-list.js';
import { DETAILS_WITHHELD, type Outcome } from '../../src/proxy/outcome.js';
import type { CompiledRule } from '../../src/proxy/routes.js';
import { checkErrorAnswer } from '../../src/proxy/error-answer.js';
import { idempotencyKeys } from '../../src/proxy/idempotency-key.js';
import { checkAnswer } from '../../src/proxy/scope.js';
import type { CurrentUser, Ownership } from '../../src/proxy/ownership.js';

const rule = (...names: string[]) => ({ query: new Map(names.map((n) => [n, null])) }) as unknown as CompiledRule;
const both = rule('limit', 'cursor');
const ok = (body: unknown, code?: string): Outcome => ({
  response: new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200, headers: { 'x-page': 'yes' } }),
  path: '/p',
  ...(code === undefined ? {} : { code }),
});
const recs = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${from + i}` }));

/** Serves `pages` in order and records each query it was asked with. */
function script(pages: (() => Outcome)[]) {
  const asked: string[] = [];
  const page = async (q: URLSearchParams) => {
    asked.push(q.toString());
    const next = pages[asked.length - 1];
    if (next === undefined) throw new Error('no more pages scripted');
    return next();
  };
  return { asked, page };
}
const run = (query: string, pages: (() => Outcome)[], r = both) => {
  const s = script(pages);
  return { s, out: narrowedList('/p', new URLSearchParams(query), r, s.page) };
};
const json = async (o: Outcome) => ({ status: o.response.status, code: o.code, body: (await o.response.json()) as Record<string, unknown> });

describe('S8 narrowedList: cursor and limit validation', () => {
  const bad = async (query: string) => {
    const { s, out } = run(query, []);
    const o = await json(await out);
    expect(s.asked).toEqual([]);
    return o;
  };
  it.each(['x', 'n', 'n01', 'nx1', 'n1x', 'xn1', 'n1234567890', 'n1a', 'N1'])('S8: cursor %s not issued by the proxy is INVALID_INPUT', async (c) => {
    const o = await bad(`cursor=${c}`);
    expect(o.code).toBe('INVALID_INPUT');
    expect(o.body.reason).toBe('The cursor was not issued by this proxy for this list.');
  });
  it.each(['0', '101', '1.5', '-1', 'abc', '1e1', ' 5', '5 ', '+5', '0x10', '', '12a'])('S8: limit %j outside 1..100 or not digits is INVALID_INPUT', async (l) => {
    const o = await bad(`limit=${encodeURIComponent(l)}`);
    expect(o.code).toBe('INVALID_INPUT');
    expect(o.body.reason).toBe('The limit must be an integer from 1 to 100.');
  });
  it.each([['1', 1], ['100', 100], ['007', 7]])('S8: limit %s is accepted and pages that many records', async (l, n) => {
    const { out } = run(`limit=${l}`, [() => ok({ data: recs(0, 150), hasMore: false })]);
    const o = await json(await out);
    expect(o.status).toBe(200);
    expect((o.body.data as unknown[]).length).toBe(n);
  });
  it('S8: cursors n0 and n123456789 are accepted', async () => {
    for (const c of ['n0', 'n123456789']) {
      const { out } = run(`cursor=${c}`, [() => ok({ data: recs(0, 3), hasMore: false })]);
      expect((await out).response.status).toBe(200);
    }
  });
});

describe('S8 narrowedList: paging', () => {
  it('S8: the default limit is 20, nextCursor is n<end>, the service query drops cursor/limit and asks 100', async () => {
    const { s, out } = run('foo=bar&cursor=n5&limit=7', [() => ok({ data: recs(0, 30), hasMore: false, nextCursor: 'svc', totalCount: 999, extra: 'kept' })]);
    const o = await json(await out);
    expect(s.asked).toEqual(['foo=bar&limit=100']);
    expect(o.body).toEqual({ extra: 'kept', data: recs(5, 7), hasMore: true, nextCursor: 'n12', totalCount: 30 });
    expect((await out).response.headers.get('x-page')).toBe('yes');
    const d = await json(await run('', [() => ok({ data: recs(0, 30), hasMore: false })]).out);
    expect(d.body).toEqual({ data: recs(0, 20), hasMore: true, nextCursor: 'n20' });
  });
  it('S8: the last page has hasMore false and no nextCursor; no totalCount when the service sent none', async () => {
    const o = await json(await run('cursor=n20&limit=10', [() => ok({ data: recs(0, 30), hasMore: false })]).out);
    expect(o.body).toEqual({ data: recs(20, 10), hasMore: false });
    const past = await json(await run('cursor=n50', [() => ok({ data: recs(0, 30), hasMore: false, totalCount: 1 })]).out);
    expect(past.body).toEqual({ data: [], hasMore: false, totalCount: 30 });
  });
  it('S8: without a limit rule the service query has no limit', async () => {
    const { s, out } = run('limit=5', [() => ok({ data: recs(0, 2), hasMore: false })], rule('cursor'));
    await out;
    expect(s.asked).toEqual(['']);
  });
  it('S8: follows the service cursor across pages and joins them; totalCount counted if any page had one', async () => {
    const { s, out } = run('limit=100', [
      () => ok({ data: recs(0, 2), hasMore: true, nextCursor: 'c1', totalCount: 5 }),
      () => ok({ data: recs(2, 2), hasMore: true, nextCursor: 'c2' }),
      () => ok({ data: recs(4, 1), hasMore: false, tail: 1 }),
    ]);
    const o = await json(await out);
    expect(s.asked).toEqual(['limit=100', 'limit=100&cursor=c1', 'limit=100&cursor=c2']);
    expect(o.body).toEqual({ tail: 1, data: recs(0, 5), hasMore: false, totalCount: 5 });
  });
  it('S8: hasMore other than true ends the reading', async () => {
    const { s, out } = run('', [() => ok({ data: recs(0, 1), hasMore: 'yes', nextCursor: 'c' })]);
    expect((await json(await out)).body).toEqual({ data: recs(0, 1), hasMore: false });
    expect(s.asked.length).toBe(1);
  });
  it('S8: reads at most 10 pages, then ANSWER_WITHHELD (never cut silently)', async () => {
    const pages = Array.from({ length: 11 }, (_, i) => () => ok({ data: recs(i, 1), hasMore: true, nextCursor: `c${i}` }));
    const { s, out } = run('', pages);
    const o = await json(await out);
    expect(s.asked.length).toBe(10);
    expect(o.code).toBe('ANSWER_WITHHELD');
    expect(o.body.reason).toBe("The list has more than 1000 records; it cannot be narrowed to the user's accounts.");
    expect((await out).detail).toBe('narrowed list too long');
  });
  it('S8: exactly 10 pages is fine', async () => {
    const pages = Array.from({ length: 10 }, (_, i) => () => ok({ data: recs(i, 1), hasMore: i < 9, nextCursor: `c${i}` }));
    const o = await json(await run('', pages).out);
    expect(o.status).toBe(200);
    expect((o.body.data as unknown[]).length).toBe(10);
  });
  it.each([
    ['no nextCursor', { hasMore: true }, both],
    ['a non-string nextCursor', { hasMore: true, nextCursor: 5 }, both],
    ['an empty nextCursor', { hasMore: true, nextCursor: '' }, both],
    ['no cursor rule', { hasMore: true, nextCursor: 'c' }, rule('limit')],
  ])('S8: more pages with %s is ANSWER_WITHHELD', async (_n, extra, r) => {
    const { s, out } = run('', [() => ok({ data: recs(0, 1), ...extra })], r);
    const o = await json(await out);
    expect(s.asked.length).toBe(1);
    expect(o.code).toBe('ANSWER_WITHHELD');
    expect(o.body.reason).toBe('The service list has more pages than the proxy can read; it was withheld.');
    expect((await out).detail).toBe('narrowed list not pageable');
  });
});

describe('S8 narrowedList: what a page answered', () => {
  it('S8: a refused page or a non-200 page is returned as it is', async () => {
    const refused: Outcome = { response: new Response('{}', { status: 200 }), path: '/p', code: 'FORBIDDEN' };
    expect(await run('', [() => refused]).out).toBe(refused);
    const notOk: Outcome = { response: new Response('{}', { status: 404 }), path: '/p' };
    expect(await run('', [() => notOk]).out).toBe(notOk);
    const withheld: Outcome = { response: new Response('{}', { status: 400 }), path: '/p', code: DETAILS_WITHHELD };
    expect(await run('', [() => withheld]).out).toBe(withheld);
  });
  it('S8: a 200 page whose code is DETAILS_WITHHELD is read like any page', async () => {
    const o = await json(await run('', [() => ok({ data: recs(0, 1), hasMore: false }, DETAILS_WITHHELD)]).out);
    expect(o.body).toEqual({ data: recs(0, 1), hasMore: false });
    expect(o.code).toBeUndefined();
  });
  it('S8: a non-JSON page is ANSWER_WITHHELD', async () => {
    const o = await json(await run('', [() => ok('not json')]).out);
    expect(o.code).toBe('ANSWER_WITHHELD');
    expect(o.body.reason).toBe('The service answer is not JSON; it was withheld.');
  });
  it.each([['null', null], ['an array', [1]], ['a number', 3], ['a string', 'x'], ['no data', { hasMore: false }], ['data not a list', { data: {} }]])(
    'S8: a page that is %s is ANSWER_WITHHELD',
    async (_n, body) => {
      const o = await json(await run('', [() => ok(JSON.stringify(body))]).out);
      expect(o.code).toBe('ANSWER_WITHHELD');
      expect(o.body.reason).toBe('The service answer is not a list; it was withheld.');
    },
  );
});

// ---------------------------------------------------------------- S9 checkErrorAnswer
const user = { customerId: 'Customer:me', accountIds: ['InternalAccount:mine'] } as unknown as CurrentUser;
/** Ownership that owns exactly `owned` (kind:id pairs) and records each lookup. */
function owning(owned: string[]) {
  const lookups: string[] = [];
  const ownership = {
    checkIds: async (_u: CurrentUser, ids: Record<string, string>) => {
      const [[kind, id]] = Object.entries(ids) as [[string, string]];
      lookups.push(`${kind}=${id}`);
      if (!owned.includes(`${kind}=${id}`)) throw new Error('not theirs');
    },
  } as unknown as Ownership;
  return { lookups, ownership };
}
const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const check = async (status: number, body: unknown, owned: string[] = [], named: Record<string, unknown> = {}) => {
  const o = owning(owned);
  const payload = enc(body);
  const r = await checkErrorAnswer(status, payload, user, named as never, o.ownership);
  const text = new TextDecoder().decode(r.payload);
  return { ...r, same: r.payload === payload, text, value: (() => { try { return JSON.parse(text); } catch { return undefined; } })(), lookups: o.lookups };
};
const leaky = { code: 'X', details: { cardId: 'Card:other' } };

describe('S9 checkErrorAnswer', () => {
  it.each([399, 500, 200])('S9: status %i is not checked (only 4xx)', async (s) => {
    const r = await check(s, leaky);
    expect(r).toMatchObject({ same: true, redacted: false, lookups: [] });
  });
  it.each([400, 404, 499])('S9: status %i is checked', async (s) => {
    const r = await check(s, leaky);
    expect(r.redacted).toBe(true);
    expect(r.value).toEqual({ code: 'X', details: {} });
  });
  it.each([['empty', ''], ['not JSON', '{oops Card:other'], ['null', 'null'], ['an array', '["Card:other"]'], ['a string', '"Card:other"'], ['a number', '4']])(
    'S9: a %s payload passes unchanged',
    async (_n, text) => {
      const r = await check(400, text);
      expect(r).toMatchObject({ same: true, redacted: false, text, lookups: [] });
    },
  );
  it("S9: the user's customer, accounts and the request's named ids are kept without a lookup", async () => {
    const body = { details: { customerId: 'Customer:me', accountId: 'InternalAccount:mine', cardId: 'Card:named', quoteId: 'Quote:q', n: 5 } };
    const r = await check(400, body, [], { cardId: 'Card:named', quoteId: 'Quote:q', count: 3 });
    expect(r).toMatchObject({ same: true, redacted: false, lookups: [] });
  });
  it('S9: a named id that is not a string does not make the text keep-able', async () => {
    const r = await check(400, { details: { id: '3' } }, [], { cardId: 3 });
    expect(r.value).toEqual({ details: {} });
    expect(r.redacted).toBe(true);
  });
  it('S9: an id is looked up by its prefix kind, the verdict cached per id', async () => {
    const r = await check(400, { details: { a: 'Card:c1', b: 'Card:c1', c: ['Transaction:t1', 'Card:c2'] } }, ['cardId=Card:c1', 'transactionId=Transaction:t1']);
    expect(r.lookups).toEqual(['cardId=Card:c1', 'transactionId=Transaction:t1', 'cardId=Card:c2']);
    expect(r.value).toEqual({ details: { a: 'Card:c1', b: 'Card:c1', c: ['Transaction:t1'] } });
    expect(r.redacted).toBe(true);
  });
  it('S9: a rejected verdict is cached too (one lookup per id)', async () => {
    const r = await check(400, { details: ['Card:x', 'Card:x'], message: 'Card:x' });
    expect(r.lookups).toEqual(['cardId=Card:x']);
    expect(r.value).toEqual({ details: [], message: '(withheld)' });
  });
  it('S9: the prefix wins over the field name; an unknown prefix falls back to the field name', async () => {
    const r = await check(400, { details: { cardId: 'Quote:q1', quoteId: 'Zebra:z1' } }, ['quoteId=Quote:q1', 'quoteId=Zebra:z1']);
    expect(r.lookups).toEqual(['quoteId=Quote:q1', 'quoteId=Zebra:z1']);
    expect(r).toMatchObject({ same: true, redacted: false });
  });
  it('S9: a bare (unprefixed) value of an id field is looked up by the field kind', async () => {
    const r = await check(400, { details: { cardId: 'abc', accountId: 'def' } }, ['cardId=abc']);
    expect(r.lookups).toEqual(['cardId=abc', 'accountId=def']);
    expect(r.value).toEqual({ details: { cardId: 'abc' } });
  });
  it('S9: an id of no known kind, or a bare value of an id-named field with no kind, is removed ("ids" is not an id field) without a lookup', async () => {
    const r = await check(400, { details: { note: 'Zebra:z', widgetId: 'w1', ids: 'x', other: 'plain text', idx: 'y' } });
    expect(r.lookups).toEqual([]);
    expect(r.value).toEqual({ details: { ids: 'x', other: 'plain text', idx: 'y' } });
    expect(r.redacted).toBe(true);
  });
  it('S9: field names ending Id/Ids or starting id are id fields; others are not', async () => {
    const r = await check(400, { details: { id: 'a', cardIds: 'b', myid: 'keep', Identity: 'keep2', xIdy: 'keep3' } });
    expect(r.value).toEqual({ details: { myid: 'keep', Identity: 'keep2', xIdy: 'keep3' } });
  });
  it('S9: a text holding several ids is kept only if every id is theirs', async () => {
    const r = await check(400, { details: { a: 'Card:c1 and Card:c2', b: 'Card:c1 only' } }, ['cardId=Card:c1']);
    expect(r.value).toEqual({ details: { b: 'Card:c1 only' } });
  });
  it('S9: a list item removed redacts; nested objects are scrubbed; numbers and null pass', async () => {
    const r = await check(400, { details: { list: [{ cardId: 'Card:o', n: 1, z: null }, 2, true] } });
    expect(r.value).toEqual({ details: { list: [{ n: 1, z: null }, 2, true] } });
    expect(r.redacted).toBe(true);
  });
  it('S9: without details, reason and message are masked per id, other fields untouched', async () => {
    const r = await check(409, { code: 'C', reason: 'Card:o clashes with Card:o and Card:c1', message: 'Quote:z', other: 'Card:o', n: 1 }, ['cardId=Card:c1']);
    expect(r.value).toEqual({ code: 'C', reason: '(withheld) clashes with (withheld) and Card:c1', message: '(withheld)', other: 'Card:o', n: 1 });
    expect(r.redacted).toBe(true);
  });
  it('S9: a non-string reason is left alone; nothing to remove returns the very same payload', async () => {
    const r = await check(400, { reason: 5, message: 'Card:c1', details: { cardId: 'Card:c1' } }, ['cardId=Card:c1']);
    expect(r).toMatchObject({ same: true, redacted: false });
  });
});

describe('S9 checkErrorAnswer: more edges', () => {
  it('S9: the type prefix is read only at the start of a bare value (aCard:x in quoteId is looked up as a quote)', async () => {
    const r = await check(400, { details: { quoteId: 'aCard:x' } }, ['quoteId=aCard:x']);
    expect(r.lookups).toEqual(['quoteId=aCard:x']);
    expect(r).toMatchObject({ same: true, redacted: false });
  });
  it('S9: a reason with no id in it leaves the very same payload', async () => {
    const r = await check(400, { reason: 'Stryker was here, no ids', message: 'plain' });
    expect(r).toMatchObject({ same: true, redacted: false, lookups: [] });
  });
  it('S9: removing only a list item is a redaction', async () => {
    const r = await check(400, { details: ['Card:o', 'fine'] });
    expect(r.redacted).toBe(true);
    expect(r.value).toEqual({ details: ['fine'] });
  });
});

// ---------------------------------------------------------------- S6 idempotencyKeys

describe('S6 idempotencyKeys', () => {
  const key = idempotencyKeys('secret');
  it('S6: a narrowed user gets a different key than the wide user; the accounts are a set (order, duplicates ignored)', async () => {
    const wide = await key({ customerId: 'Customer:c' }, 'k');
    const a = await key({ customerId: 'Customer:c', accountIds: ['A:1'] }, 'k');
    const b = await key({ customerId: 'Customer:c', accountIds: ['A:2'] }, 'k');
    const ab = await key({ customerId: 'Customer:c', accountIds: ['A:1', 'A:2'] }, 'k');
    const ba = await key({ customerId: 'Customer:c', accountIds: ['A:2', 'A:1', 'A:2'] }, 'k');
    const none = await key({ customerId: 'Customer:c', accountIds: [] }, 'k');
    expect(new Set([wide, a, b, ab, none]).size).toBe(5);
    expect(ba).toBe(ab);
    expect(wide).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('S8 checkAnswer: a narrowed list', () => {
  it("S8: records outside the narrowing are dropped; no totalCount is invented when the service sent none", async () => {
    const r = { answer: 'card', list: true } as unknown as CompiledRule;
    const ownership = {
      judge: async (_u: CurrentUser, owner: unknown) => (owner === 'me' ? 'mine' : 'narrowed'),
      ownersOf: (_kind: string, rec: { o: string }) => rec.o,
    } as unknown as Ownership;
    const run2 = async (body: unknown) => {
      const out = await checkAnswer(r, 200, enc(body), user, ownership);
      return JSON.parse(new TextDecoder().decode(out as Uint8Array));
    };
    expect(await run2({ data: [{ o: 'me' }, { o: 'x' }], hasMore: false })).toEqual({ data: [{ o: 'me' }], hasMore: false });
    expect(await run2({ data: [{ o: 'me' }, { o: 'x' }], totalCount: 2 })).toEqual({ data: [{ o: 'me' }], totalCount: 1 });
  });
});
