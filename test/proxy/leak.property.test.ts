/**
 * Property: whatever a signed-in user sends through the proxy, nothing of the other customer comes
 * back, and every call that reaches the service is scoped to the sender. Two customers (Alice and
 * Bob, test/proxy/parties.ts) on one real sandbox, in process; Alice has paid Bob, so the service
 * holds records that name both. fast-check picks, per request: the sender (either, in any order),
 * their `accountIds` narrowing (changed between requests), a route of the table, placeholder ids
 * from both customers (or unknown ones), declared query parameters with ids from both, extra and
 * repeated parameters named after the spec's list filters in any case, body fields with ids of both
 * at declared and undeclared places, and an `Idempotency-Key` from a pool both share.
 *
 * Oracle, per request (invariants of src/proxy/scope.ts):
 * - S1: the forwarded query holds only the route's declared parameters, each once.
 * - S2: a forwarded list call carries the sender's owning filter (their customer; an account of theirs
 *   within their narrowing).
 * - S3: no id the route declares (path, query, body) names the other customer in a forwarded call.
 * - S4: no answer holds any of the other customer's ids, email or name that the request did not
 *   carry (except what the sender already knew: from the transfer, the payee's account and the
 *   payer's wallet; and whatever the sender itself wrote into the service in a forwarded request).
 * - S6: a forwarded Idempotency-Key is never the browser's key.
 * - S11: a request naming the other's id in its path answers exactly (status and body) as the same
 *   request naming an unknown id of that kind, and neither is forwarded.
 * - S12: a narrowed user's forwarded write names no customer without an account, and every account
 *   it names (path, body) is within the narrowing.
 * - never a 500.
 * A second property (no sandbox) checks S14: an app-added rule that names no id and says no scope
 * is refused at creation, naming it; with an id placeholder it is scoped by that placeholder.
 * LEAK_RUNS (default 1 000 sequences of 10 requests = 10 000 requests) sets the size, LEAK_SEED
 * fixes fast-check's seed (the mutation run does, so that a mutant's fate does not depend on luck).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, DEFAULT_ALLOW, type AllowRule, type ProxyHandler } from '../../src/proxy/index.js';
import { compileRules, type IdKind } from '../../src/proxy/routes.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, SANDBOX_VALID_SIGNATURE } from '../../src/sandbox/index.js';
import type { Api } from '../sandbox/helpers/http.js';
import { secretsOf, startParties, type Party } from './parties.js';

const TRANSACTION_READ: AllowRule = { method: 'GET', pattern: '/transactions/{transactionId}', answer: 'transaction' };
/** Where a request body names an account (S12's oracle reads them). */
const BODY_ACCOUNTS = [['accountId'], ['internalAccountId'], ['fundingSource'], ['source', 'accountId']] as const;
const ALLOW = [...DEFAULT_ALLOW, TRANSACTION_READ];
const RULES = compileRules(ALLOW);
const RUNS = Number(process.env.LEAK_RUNS ?? 1000);
const PER_RUN = 10;

/** Query parameter names of the spec's list filters (§4.2–§4.6), and a few ids' names. */
const FILTER_NAMES = ['customerId', 'platformCustomerId', 'currency', 'startDate', 'endDate', 'status', 'type', 'senderAccountIdentifier', 'limit', 'cursor', 'accountId', 'fundingSourceId', 'cardholderId', 'agentId'];
const PLAIN_VALUES: Record<string, string[]> = {
  currency: ['USDC', 'USD'],
  startDate: ['2020-01-01T00:00:00Z'],
  endDate: ['2099-01-01T00:00:00Z'],
  status: ['COMPLETED', 'PENDING'],
  type: ['INCOMING', 'OUTGOING'],
  limit: ['1', '100'],
  cursor: ['0', 'x'],
};

let api: Api;
let alice: Party;
let bob: Party;
let proxy: ProxyHandler;
const parties: Record<'alice' | 'bob', Party> = {} as never;
/** What each was given by the transfer: the payee's account (Alice) and the payer's wallet (Bob's incoming record). */
const learned: Record<'alice' | 'bob', string[]> = { alice: [], bob: [] };
/** The sender of the request in flight and their narrowing (read by currentUser). */
let current: { who: 'alice' | 'bob'; accountIds?: string[] } = { who: 'alice' };
const forwarded: { marker: string | null; url: string; method: string; body: string; idempotencyKey: string | null }[] = [];

beforeAll(async () => {
  ({ api, alice, bob } = await startParties());
  parties.alice = alice;
  parties.bob = bob;
  // Alice pays Bob: the service now holds Alice's OUTGOING and Bob's INCOMING records of it.
  const quote = await api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: alice.walletId },
    destination: { destinationType: 'ACCOUNT', accountId: bob.usdcId },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 7,
  });
  expect(quote.status, quote.text).toBe(201);
  const paid = await api.post(`/quotes/${encodeURIComponent(quote.json.id)}/execute`, undefined, { headers: { 'Service-Wallet-Signature': SANDBOX_VALID_SIGNATURE, 'Idempotency-Key': 'pay-bob' } });
  expect(paid.status, paid.text).toBe(200);
  learned.alice.push(bob.usdcId);
  learned.bob.push(alice.walletId);
  proxy = createProxy({
    baseUrl: api.url,
    clientId: DEFAULT_CLIENT_ID,
    clientSecret: DEFAULT_CLIENT_SECRET,
    allow: ALLOW,
    logger: false,
    currentUser: () => ({ customerId: parties[current.who].customerId, ...(current.accountIds === undefined ? {} : { accountIds: current.accountIds }) }),
    fetch: (input, init) => {
      const headers = new Headers(init.headers);
      forwarded.push({
        marker: headers.get('request-id'),
        url: input,
        method: String(init.method),
        body: init.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : '',
        idempotencyKey: headers.get('idempotency-key'),
      });
      return fetch(input, init);
    },
  });
}, 60_000);
afterAll(() => api?.sandbox.close());

const other = (who: 'alice' | 'bob'): 'alice' | 'bob' => (who === 'alice' ? 'bob' : 'alice');

/** Ids of one kind a party has (an unknown id stands for "neither"). */
function idsOf(p: Party, kind: IdKind): string[] {
  switch (kind) {
    case 'customerId':
      return [p.customerId];
    case 'accountId':
    case 'fundingSourceId':
      return [p.walletId, p.usdcId];
    case 'credentialId':
      return [p.credentialId];
    case 'sessionId':
      return [p.sessionId];
    case 'delegatedKeyId':
      return [p.delegatedKeyId];
    case 'quoteId':
      return [p.quoteId];
    case 'cardId':
      return [p.cardId];
    case 'transactionId':
      return [p.transactionId];
  }
}
const UNKNOWN: Record<IdKind, string> = {
  customerId: 'Customer:00000000-0000-4000-8000-000000000000',
  accountId: 'InternalAccount:00000000-0000-4000-8000-000000000000',
  fundingSourceId: 'InternalAccount:00000000-0000-4000-8000-000000000001',
  credentialId: 'AuthMethod:00000000-0000-4000-8000-000000000000',
  sessionId: 'Session:00000000-0000-4000-8000-000000000000',
  delegatedKeyId: 'DelegatedKey:00000000-0000-4000-8000-000000000000',
  quoteId: 'Quote:00000000-0000-4000-8000-000000000000',
  cardId: 'Card:00000000-0000-4000-8000-000000000000',
  transactionId: 'Transaction:00000000-0000-4000-8000-000000000000',
};

/** A choice between the parties' ids (and an unknown one), resolved once the parties exist. */
interface IdPick {
  readonly party: 'me' | 'them' | 'none';
  readonly index: number;
}
/** `me`: the sender's own id (most picks, so that many requests reach the service), `them`: the other's. */
const idPick = fc.record({ party: fc.constantFrom<'me' | 'them' | 'none'>('me', 'me', 'me', 'them', 'them', 'none'), index: fc.nat(3) });
function resolve(kind: IdKind, pick: IdPick): string {
  if (pick.party === 'none') return UNKNOWN[kind];
  const ids = idsOf(parties[pick.party === 'me' ? current.who : other(current.who)], kind);
  return ids[pick.index % ids.length] as string;
}

const caseOf = fc.constantFrom<(name: string) => string>(
  (n) => n,
  (n) => n,
  (n) => n.toLowerCase(),
  (n) => n.toUpperCase(),
  (n) => n[0]!.toUpperCase() + n.slice(1),
);

const step = fc.record({
  who: fc.constantFrom<'alice' | 'bob'>('alice', 'bob'),
  narrowing: fc.constantFrom<'none' | 'wallet' | 'usdc' | 'both' | 'empty'>('none', 'none', 'wallet', 'usdc', 'both', 'empty'),
  route: fc.nat(RULES.length - 1),
  params: fc.array(idPick, { minLength: 2, maxLength: 2 }),
  declared: fc.array(fc.record({ slot: fc.nat(10), pick: idPick, plain: fc.nat(3) }), { maxLength: 3 }),
  extra: fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(fc.record({ name: fc.constantFrom(...FILTER_NAMES), cased: caseOf, pick: idPick, kind: fc.constantFrom<IdKind>('customerId', 'accountId') }), { minLength: 1, maxLength: 2 }) },
  ),
  repeat: fc.nat(9).map((n) => n < 1),
  bodyIds: fc.array(fc.record({ slot: fc.nat(10), pick: idPick }), { maxLength: 3 }),
  bodyExtra: fc.option(fc.record({ name: fc.constantFrom('customerId', 'accountId', 'cardholderId', 'cardId', 'platformCustomerId', 'nickname', 'currency'), pick: idPick, kind: fc.constantFrom<IdKind>('customerId', 'accountId', 'cardId') }), { nil: undefined, freq: 6 }),
  idempotencyKey: fc.option(fc.constantFrom('k-1', 'k-2', 'pay-bob'), { nil: undefined }),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** A body the route accepts when the ids are right, so that some requests do reach the service. */
function baseBody(pattern: string, method: string, p: Party): Record<string, unknown> | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined;
  switch (pattern) {
    case '/auth/credentials':
      return { type: 'SMS_OTP', accountId: p.walletId };
    case '/auth/delegated-keys':
      return { cardId: p.cardId, internalAccountId: p.walletId, nickname: 'k' };
    case '/quotes':
      return { source: { sourceType: 'ACCOUNT', accountId: p.walletId }, destination: { destinationType: 'ACCOUNT', accountId: p.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 };
    case '/cards':
      return { cardholderId: p.customerId, fundingSource: p.walletId };
    case '/customers/{customerId}':
      return { fullName: p.fullName };
    case '/internal-accounts/{accountId}':
      return { nickname: 'n' };
    case '/auth/sessions/{sessionId}/refresh':
    case '/internal-accounts/{accountId}/export':
      return { clientPublicKey: '02' + 'ab'.repeat(32) };
    default:
      return {};
  }
}

function setPath(body: Record<string, unknown>, path: readonly string[], value: string): void {
  let node = body;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    node = (node[key] = typeof next === 'object' && next !== null ? { ...(next as object) } : {}) as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

let marker = 0;
let sent = 0;
let foreignChecks = 0;
let narrowedWrites = 0;
const statuses = new Map<number, number>();

async function run(s: Step): Promise<void> {
  const me = parties[s.who];
  const them = parties[other(s.who)];
  current = {
    who: s.who,
    ...(s.narrowing === 'none' ? {} : { accountIds: { wallet: [me.walletId], usdc: [me.usdcId], both: [me.walletId, me.usdcId], empty: [] }[s.narrowing] }),
  };
  const allowed = current.accountIds ?? [me.walletId, me.usdcId];
  const rule = RULES[s.route]!;
  let i = 0;
  const path = rule.parts.map((part) => (typeof part === 'string' ? part : encodeURIComponent(resolve(part.name as IdKind, s.params[i++ % 2]!)).replace(/%3A/g, ':'))).join('/');
  const query: [string, string][] = [];
  const declared = [...rule.query];
  for (const d of s.declared) {
    if (declared.length === 0) break;
    const [name, kind] = declared[d.slot % declared.length]!;
    if (query.some(([n]) => n === name)) continue;
    const plain = PLAIN_VALUES[name];
    query.push([name, kind === null ? (plain?.[d.plain % plain.length] ?? '1') : resolve(kind, d.pick)]);
  }
  for (const x of s.extra) query.push([x.cased(x.name), resolve(x.kind, x.pick)]);
  if (s.repeat && query.length > 0) query.push(query[0]!);
  const body = baseBody(rule.pattern, rule.method, me);
  if (body !== undefined) {
    for (const b of s.bodyIds) {
      if (rule.body.length === 0) break;
      const [fieldPath, kind] = rule.body[b.slot % rule.body.length]!;
      setPath(body, fieldPath, resolve(kind, b.pick));
    }
    if (s.bodyExtra !== undefined) body[s.bodyExtra.name] = resolve(s.bodyExtra.kind, s.bodyExtra.pick);
  }
  const search = query.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
  const url = `http://app.test/${path}${search === '' ? '' : '?' + search}`;
  const id = `Request:leak-${++marker}`;
  const headers: Record<string, string> = { 'request-id': id };
  if (s.idempotencyKey !== undefined) headers['idempotency-key'] = s.idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const requestText = `${url} ${body === undefined ? '' : JSON.stringify(body)}`;
  const before = forwarded.length;
  const response = await proxy(new Request(url, { method: rule.method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
  const text = await response.text();
  // S11: the other's id in the path answers as an unknown one (same status, same body), neither forwarded.
  const placeholder = rule.parts.find((part): part is { name: string } => typeof part !== 'string');
  if (placeholder !== undefined && s.params[0]!.party === 'them') {
    const kind = placeholder.name as IdKind;
    const theirId = encodeURIComponent(resolve(kind, s.params[0]!)).replace(/%3A/g, ':');
    const unknownUrl = url.replace(theirId, encodeURIComponent(UNKNOWN[kind]).replace(/%3A/g, ':'));
    const unknownId = `Request:leak-${++marker}`;
    const again = await proxy(new Request(unknownUrl, { method: rule.method, headers: { ...headers, 'request-id': unknownId }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
    const label = `${s.who} ${rule.method} ${url} vs ${unknownUrl}`;
    expect([response.status, text], label).toEqual([again.status, await again.text()]);
    expect(forwarded.slice(before).filter((f) => f.marker === id || f.marker === unknownId), label).toEqual([]);
    foreignChecks++;
  }
  sent++;
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const label = `${s.who} ${rule.method} ${url} ${body === undefined ? '' : JSON.stringify(body)} → ${response.status} ${text.slice(0, 300)}`;

  expect(response.status, label).not.toBe(500);
  // S4: nothing of the other customer that the request did not carry (decoded or encoded).
  const decodedRequest = decodeURIComponent(requestText);
  for (const secret of secretsOf(them)) {
    if (learned[s.who].includes(secret) || decodedRequest.includes(secret)) continue;
    expect(text.includes(secret), `${label}\nleaks ${secret}`).toBe(false);
  }

  const calls = forwarded.slice(before).filter((f) => f.marker === id);
  expect(calls.length, label).toBeLessThanOrEqual(1);
  const call = calls[0];
  if (call === undefined) return;
  // What the sender wrote into the service (a nickname holding Bob's card id…) is theirs to read back.
  for (const secret of secretsOf(them)) if (decodedRequest.includes(secret) && !learned[s.who].includes(secret)) learned[s.who].push(secret);
  const sentUrl = new URL(call.url);
  // S1: only declared parameters, each once.
  const names = [...sentUrl.searchParams.keys()];
  expect(new Set(names).size, label).toBe(names.length);
  for (const name of names) expect(rule.query.has(name), `${label}\nforwarded ${name}`).toBe(true);
  // S2: the owning filter of a list is the sender's.
  if (rule.scope.kind === 'customerFilter') expect(sentUrl.searchParams.get(rule.scope.name), label).toBe(me.customerId);
  if (rule.scope.kind === 'accountFilter') {
    const present = rule.scope.names.filter((n) => sentUrl.searchParams.has(n));
    expect(present.length, label).toBeGreaterThan(0);
    for (const n of present) expect(allowed, label).toContain(sentUrl.searchParams.get(n));
  }
  // S3: no declared id names the other customer.
  const theirs = new Set(secretsOf(them));
  for (const seg of sentUrl.pathname.split('/')) expect(theirs.has(decodeURIComponent(seg)), label).toBe(false);
  for (const [name, value] of sentUrl.searchParams) if (rule.query.get(name)) expect(theirs.has(value), label).toBe(false);
  if (call.body !== '') {
    const sentBody = JSON.parse(call.body) as Record<string, unknown>;
    for (const [fieldPath] of rule.body) {
      let value: unknown = sentBody;
      for (const key of fieldPath) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
      if (typeof value === 'string') expect(theirs.has(value), `${label}\n${fieldPath.join('.')}`).toBe(false);
    }
  }
  // S6: the browser's key never reaches the service as it is.
  if (s.idempotencyKey !== undefined) expect(call.idempotencyKey, label).not.toBe(s.idempotencyKey);
  // S12: a narrowed user writes only through the accounts of the narrowing.
  if (current.accountIds !== undefined && rule.method !== 'GET') {
    narrowedWrites++;
    expect(rule.pattern, label).not.toBe('/customers/{customerId}');
    const named: string[] = [];
    rule.parts.forEach((part, n) => {
      if (typeof part !== 'string' && (part.name === 'accountId' || part.name === 'fundingSourceId')) named.push(decodeURIComponent(sentUrl.pathname.split('/').slice(-rule.parts.length)[n] ?? ''));
    });
    if (call.body !== '') {
      const sentBody = JSON.parse(call.body) as Record<string, unknown>;
      // A customer-level source only beside an account of the narrowing (checked below).
      const source = sentBody.source as Record<string, unknown> | undefined;
      if (source?.customerId !== undefined) expect(typeof source.accountId, label).toBe('string');
      for (const fieldPath of BODY_ACCOUNTS) {
        let value: unknown = sentBody;
        for (const key of fieldPath) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
        if (typeof value === 'string') named.push(value);
      }
    }
    for (const account of named) expect(allowed, `${label}\nwrites to ${account}`).toContain(account);
  }
}

describe('leak property (S1–S4, S6 of src/proxy/scope.ts)', () => {
  it(`${RUNS} × ${PER_RUN} random requests of Alice and Bob: no answer holds the other's data; every forwarded call is scoped to its sender`, async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: PER_RUN, maxLength: PER_RUN }), async (steps) => {
        for (const s of steps) await run(s);
      }),
      { numRuns: RUNS, ...(process.env.LEAK_SEED === undefined ? {} : { seed: Number(process.env.LEAK_SEED) }) },
    );
    expect(sent).toBeGreaterThanOrEqual(RUNS * PER_RUN);
    const reached = forwarded.filter((f) => f.marker?.startsWith('Request:leak-')).length;
    console.info(
      `leak property: ${sent} requests, ${reached} forwarded, ${forwarded.length - reached} lookups, ${foreignChecks} foreign-vs-unknown pairs, ${narrowedWrites} narrowed writes forwarded, ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(foreignChecks).toBeGreaterThan(0);
    // The property must exercise forwarding too, not only refusals.
    expect(reached).toBeGreaterThan(sent / 10);
  }, 600_000);
});

describe('S14: app-added routes name their scope', () => {
  const literal = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
  const plain = fc.stringMatching(/^(id|name|slug|ref)$/).map((n) => `{${n}}`);
  const idPlaceholder = fc.constantFrom('accountId', 'cardId', 'quoteId', 'customerId', 'transactionId').map((n) => `{${n}}`);
  const method = fc.constantFrom<AllowRule['method']>('GET', 'POST', 'PATCH', 'DELETE');
  it('a rule with no id placeholder and no scope is refused naming it; scope none opens it; an id placeholder scopes it', () => {
    fc.assert(
      fc.property(method, fc.array(fc.oneof(literal, plain), { minLength: 1, maxLength: 4 }), fc.option(idPlaceholder, { nil: undefined }), fc.nat(4), (m, segments, id, at) => {
        const parts = [...segments];
        if (id !== undefined) parts.splice(at % (parts.length + 1), 0, id);
        const pattern = '/' + parts.join('/');
        if (new Set(parts.filter((p) => p.startsWith('{'))).size !== parts.filter((p) => p.startsWith('{')).length) return;
        const make = (rule: AllowRule) => createProxy({ baseUrl: 'https://service.test', clientId: 'c', clientSecret: 's', logger: false, currentUser: () => null, allow: [...DEFAULT_ALLOW, rule] });
        if (id === undefined) {
          expect(() => make({ method: m, pattern })).toThrow(`allow[${DEFAULT_ALLOW.length}].scope must be given for ${m} ${pattern}`);
          expect(compileRules([{ method: m, pattern, scope: 'none' }])[0]?.scope).toEqual({ kind: 'none' });
        } else {
          expect(compileRules([{ method: m, pattern }])[0]?.scope).toEqual({ kind: 'path', name: id.slice(1, -1) });
          expect(typeof make({ method: m, pattern })).toBe('function');
        }
      }),
      { numRuns: 500 },
    );
  });
});
