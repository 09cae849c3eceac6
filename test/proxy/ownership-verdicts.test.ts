/**
 * The verdicts of src/proxy/ownership.ts, read through its exported `ownership()` with a scripted
 * service: `judge` on each kind of owner list (none, a customer, an account inside or outside
 * `accountIds`, mixed), `ownersOf` keeping a card's funding account per card only, `checkIds` for a
 * narrowed user's record owned by the customer and one of their accounts, and the account a
 * credential or session was found under.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_OWNERS } from '../../src/proxy/index.js';
import { ownership, type CurrentUser } from '../../src/proxy/ownership.js';
import type { ServiceAnswer, ServiceClient } from '../../src/proxy/service.js';

const A = 'Customer:a';
const B = 'Customer:b';
const A1 = 'IA:a1';
const A2 = 'IA:a2';
const B1 = 'IA:b1';

/** A service with customer A's two accounts (A1 a wallet, A2 not), B's one, and records read by path. */
function scripted(records: Record<string, unknown> = {}, lists: Record<string, unknown[]> = {}) {
  const calls: string[] = [];
  const service: ServiceClient = {
    call: async (method, path, options): Promise<ServiceAnswer> => {
      const query = new URLSearchParams(options?.query);
      calls.push(`${method} ${path}?${query}`);
      if (path === '/internal-account') {
        const all = [
          { id: A1, customerId: A, type: 'EMBEDDED_WALLET' },
          { id: A2, customerId: A, type: 'INTERNAL_FIAT' },
          { id: B1, customerId: B, type: 'EMBEDDED_WALLET' },
        ];
        return { status: 200, body: { data: all.filter((a) => a.customerId === query.get('customerId')), hasMore: false } };
      }
      const listed = lists[`${path}?${query.get('accountId')}`];
      if (listed !== undefined) return { status: 200, body: { data: listed } };
      const record = records[path];
      return record === undefined ? { status: 404, body: { code: 'NOT_FOUND', reason: 'x' } } : { status: 200, body: record };
    },
  };
  return { service, calls };
}

const whole: CurrentUser = { customerId: A };
const narrowed: CurrentUser = { customerId: A, accountIds: [A1] };

describe('judge', () => {
  it('no owners (none given, or an empty list) is no verdict, never "mine"', async () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(await judged.judge(whole, undefined)).toBeUndefined();
    expect(await judged.judge(whole, [])).toBeUndefined();
  });

  it('a customer owner: the user\'s own customer is theirs, narrowed or not; another customer is foreign', async () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(await judged.judge(whole, [{ customerId: A }])).toBe('mine');
    expect(await judged.judge(narrowed, [{ customerId: A }])).toBe('mine');
    expect(await judged.judge(whole, [{ customerId: B }])).toBe('foreign');
  });

  it('an account owner: in accountIds (or no accountIds) mine; the customer\'s other account narrowed; another customer\'s foreign', async () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(await judged.judge(whole, [{ accountId: A2 }])).toBe('mine');
    expect(await judged.judge(narrowed, [{ accountId: A1 }])).toBe('mine');
    expect(await judged.judge(narrowed, [{ accountId: A2 }])).toBe('narrowed');
    expect(await judged.judge(whole, [{ accountId: B1 }])).toBe('foreign');
  });

  it('several owners: any foreign one makes the record foreign, whatever its place; else any narrowed one narrows it', async () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(await judged.judge(narrowed, [{ accountId: A2 }, { customerId: B }])).toBe('foreign');
    expect(await judged.judge(narrowed, [{ customerId: A }, { accountId: A2 }, { accountId: A1 }])).toBe('narrowed');
    expect(await judged.judge(narrowed, [{ accountId: A1 }, { accountId: B1 }])).toBe('foreign');
    expect(await judged.judge(narrowed, [{ customerId: A }, { accountId: A1 }])).toBe('mine');
  });
});

describe('ownersOf: a card\'s funding account is remembered for that card only', () => {
  it('a closed card seen funded before is judged by that account; one never seen funded by its cardholder', async () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(judged.ownersOf('card', { id: 'card-1', fundingSource: A1 })).toEqual([{ accountId: A1 }]);
    expect(judged.ownersOf('card', { id: 'card-1', status: 'CLOSED', cardholderId: A })).toEqual([{ accountId: A1 }]);
    expect(judged.ownersOf('card', { id: 'card-2', status: 'CLOSED', cardholderId: A })).toEqual([{ customerId: A }]);
  });

  it('a record of another kind with the same id (ids are opaque) neither leaves nor reads a card\'s fact', () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(judged.ownersOf('quote', { id: 'x-1', source: { accountId: A1 } })).toEqual([{ accountId: A1 }]);
    expect(judged.ownersOf('card', { id: 'x-1', status: 'CLOSED', cardholderId: A })).toEqual([{ customerId: A }]);
    expect(judged.ownersOf('card', { id: 'x-2', fundingSource: A1 })).toEqual([{ accountId: A1 }]);
    expect(judged.ownersOf('quote', { id: 'x-2', source: { customerId: A } })).toEqual([{ customerId: A }]);
  });

  it('a card record without an id is judged by its own fields only (no fact under a missing id)', () => {
    const judged = ownership(scripted().service, DEFAULT_OWNERS);
    expect(judged.ownersOf('card', { fundingSource: A1 })).toEqual([{ accountId: A1 }]);
    expect(judged.ownersOf('card', { status: 'CLOSED', cardholderId: A })).toEqual([{ customerId: A }]);
    expect(judged.ownersOf('card', { id: 'undefined', status: 'CLOSED', cardholderId: A })).toEqual([{ customerId: A }]);
  });
});

describe('checkIds', () => {
  it('a narrowed user owns a record the customer and one of their accounts own (a transaction on their account)', async () => {
    const { service } = scripted({
      '/transactions/tx-1': { id: 'tx-1', customerId: A, type: 'OUTGOING', source: { accountId: A1 } },
      '/transactions/tx-2': { id: 'tx-2', customerId: A, type: 'OUTGOING', source: { accountId: A2 } },
      '/transactions/tx-3': { id: 'tx-3', customerId: A, type: 'INCOMING', destination: {} },
    });
    const judged = ownership(service, DEFAULT_OWNERS);
    await expect(judged.checkIds(narrowed, { transactionId: 'tx-1' })).resolves.toEqual({ account: undefined });
    await expect(judged.checkIds(narrowed, { transactionId: 'tx-2' })).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    // Owned by the customer alone: not a narrowed user's (S12), the whole customer's.
    await expect(judged.checkIds(narrowed, { transactionId: 'tx-3' })).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    await expect(judged.checkIds(whole, { transactionId: 'tx-3' })).resolves.toEqual({ account: undefined });
    await expect(judged.checkIds({ ...narrowed, customerAccess: 'write' }, { transactionId: 'tx-3' })).resolves.toEqual({ account: undefined });
  });

  it('the look-ups are GETs: the customer\'s accounts (once, cached), then each record at its path', async () => {
    const { service, calls } = scripted({ '/quotes/q-1': { id: 'q-1', source: { accountId: A1 } } });
    const judged = ownership(service, DEFAULT_OWNERS);
    await judged.checkIds(whole, { accountId: A1, quoteId: 'q-1' });
    expect(calls).toEqual([`GET /internal-account?customerId=${encodeURIComponent(A)}&limit=100`, 'GET /quotes/q-1?']);
  });

  it('a credential or session acts for the wallet account it was listed under; the request\'s account otherwise', async () => {
    const { service } = scripted({}, { [`/auth/credentials?${A1}`]: [{ id: 'cred-1' }], [`/auth/sessions?${A1}`]: [{ id: 'sess-1' }] });
    const judged = ownership(service, DEFAULT_OWNERS);
    expect(await judged.checkIds(whole, { credentialId: 'cred-1' })).toEqual({ account: A1 });
    expect(await judged.checkIds(whole, { sessionId: 'sess-1' })).toEqual({ account: A1 });
    expect(await judged.checkIds(whole, { accountId: A2 })).toEqual({ account: A2 });
    await expect(judged.checkIds(whole, { sessionId: 'sess-9' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    // A session learnt from an answer (S13) acts for the account it was judged by.
    judged.learn('session', 'sess-2', A2);
    expect(await judged.checkIds(whole, { sessionId: 'sess-2' })).toEqual({ account: A2 });
    await expect(judged.checkIds(narrowed, { sessionId: 'sess-2' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});
