// What the stored account state and logout record read as (state.ts), on their own (no sandbox):
// which stored values are account states and what is kept of them, which logouts are pending after
// any sequence of logout requests and commits (including commits that ignore the logout nonce and
// records older than the `under` field), and what `readAll` takes for the last account.
// fast-check draws records and operation sequences; each oracle is written from the doc comments of
// state.ts (AccountState, Snapshot, commitState), not from its code.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyStore, createMemoryBackend, type MetadataStore } from '../../src/keys/index.js';
import { commitState, parseAccountState, readAll, readSnapshot, requestLogout, type Change, type Snapshot } from '../../src/session/state.js';
import type { Session } from '../../src/session/types.js';

const ACCOUNT = 'InternalAccount:records';
const OTHER = 'InternalAccount:other';
const CHANGES: Change[] = ['login', 'refresh', 'logout', 'expired', 'revoked', 'evicted'];

function session(i: number, accountId = ACCOUNT): Session {
  return {
    id: `Session:${i}`,
    accountId,
    credentialId: 'AuthMethod:1',
    credentialType: 'EMAIL_OTP',
    publicKeyHex: '02' + i.toString(16).padStart(64, '0'),
    createdAt: '2030-01-01T00:00:00.000Z',
    expiresAt: '2030-01-01T00:15:00.000Z',
  };
}

function meta(): MetadataStore {
  return createKeyStore({ backend: createMemoryBackend() }).meta;
}

describe('parseAccountState: which stored values are account states', () => {
  const badGeneration = fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', null);
  const arb = fc.record({
    accountId: fc.constantFrom(ACCOUNT, OTHER),
    sessionsArray: fc.boolean(),
    own: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 4 }),
    foreign: fc.uniqueArray(fc.integer({ min: 10, max: 12 }), { maxLength: 2 }),
    damaged: fc.boolean(),
    generation: fc.oneof(fc.nat({ max: 1000 }), badGeneration),
    change: fc.constantFrom<unknown>(...CHANGES, 'bogus', 3),
    current: fc.oneof(fc.constantFrom<unknown>(null, undefined, 5, 'Session:404', 'Session:11'), fc.integer({ min: 0, max: 9 }).map((i) => `Session:${i}`)),
    under: fc.constantFrom<unknown>('nonce-a', null, undefined, 7, { nonce: 'x' }),
  });

  it('a value is a state iff its account, sessions, generation and change are valid; only its own complete sessions and a listed current are kept', () => {
    fc.assert(
      fc.property(arb, (c) => {
        const sessions: unknown[] = [...c.own.map((i) => session(i)), ...c.foreign.map((i) => session(i, OTHER))];
        if (c.damaged) sessions.push({ id: 'Session:damaged', accountId: ACCOUNT }, 'not a session');
        const value: Record<string, unknown> = { accountId: c.accountId, sessions: c.sessionsArray ? sessions : {}, generation: c.generation, change: c.change, current: c.current };
        if (c.under !== undefined) value.under = c.under;
        const parsed = parseAccountState(value, ACCOUNT);
        const valid = c.accountId === ACCOUNT && c.sessionsArray && typeof c.generation === 'number' && Number.isSafeInteger(c.generation) && c.generation >= 0 && CHANGES.includes(c.change as Change);
        if (!valid) {
          expect(parsed).toBeUndefined();
          return;
        }
        const ids = c.own.map((i) => `Session:${i}`);
        expect(parsed!.sessions.map((s) => s.id)).toEqual(ids);
        expect(parsed!.generation).toBe(c.generation);
        expect(parsed!.change).toBe(c.change);
        expect(parsed!.current).toBe(typeof c.current === 'string' && ids.includes(c.current) ? c.current : null);
        // `under`: the nonce the writing commit read, null (none), or absent (an older record).
        if (typeof c.under === 'string' || c.under === null) expect(parsed!.under).toBe(c.under);
        else expect('under' in parsed!).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

/**
 * A sequence of operations on one account: snapshots taken (kept by index), logout requests, commits
 * from a kept snapshot (any change, with or without ignoreLogout).
 */
type Op = { kind: 'snap' } | { kind: 'logout' } | { kind: 'commit'; from: number; change: Change; ignoreLogout: boolean };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'snap' }),
  fc.constant<Op>({ kind: 'logout' }),
  fc.record({ kind: fc.constant('commit' as const), from: fc.nat({ max: 7 }), change: fc.constantFrom(...CHANGES), ignoreLogout: fc.boolean() }),
);

describe('readSnapshot and commitState: which logouts are pending', () => {
  it('a logout stays pending until a commit made under its nonce lands (a logout commit carries out every logout so far); commits from a stale generation or nonce are refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const store = meta();
        // The model: the generation, the latest nonce requested, and the nonce the last commit carried.
        let generation = 0;
        let nonce: string | null = null;
        let carried: string | null | undefined; // undefined: nothing committed yet
        const snaps: Array<{ snap: Snapshot; generation: number; nonce: string | null }> = [];
        for (const op of ops) {
          if (op.kind === 'snap') {
            snaps.push({ snap: await readSnapshot(store, ACCOUNT), generation, nonce });
          } else if (op.kind === 'logout') {
            nonce = await requestLogout(store, ACCOUNT);
          } else {
            const from = snaps[op.from % Math.max(1, snaps.length)];
            if (!from) continue;
            const wrote = await commitState(store, from.snap, { current: null, sessions: [], change: op.change }, { ignoreLogout: op.ignoreLogout });
            const accepted = from.generation === generation && (op.ignoreLogout || from.nonce === nonce);
            expect(wrote !== undefined).toBe(accepted);
            if (accepted) {
              generation += 1;
              carried = op.change === 'logout' ? nonce : from.nonce;
              expect(wrote!.generation).toBe(generation);
              expect(wrote!.under).toBe(carried);
            }
          }
          const now = await readSnapshot(store, ACCOUNT);
          expect(now.state.generation).toBe(generation);
          expect(now.logoutNonce).toBe(nonce);
          expect(now.logoutPending).toBe(nonce !== null && carried !== nonce);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a record older than `under` is judged by the generation the logout saw alone', async () => {
    for (const [seen, stored, pending] of [[2, 3, false], [3, 3, true], [4, 3, true]] as const) {
      const store = meta();
      await store.put(`account:${ACCOUNT}`, { accountId: ACCOUNT, generation: stored, current: null, sessions: [], change: 'refresh' });
      await store.put(`logout:${ACCOUNT}`, { nonce: 'n-1', generation: seen });
      const snap = await readSnapshot(store, ACCOUNT);
      expect(snap.state.under).toBeUndefined();
      expect(snap.logoutNonce).toBe('n-1');
      expect(snap.logoutPending).toBe(pending);
    }
  });

  it('a damaged logout record gives no nonce, and no seen generation', async () => {
    const cases: Array<[unknown, string | null, boolean]> = [
      [{ nonce: 5, generation: 9 }, null, true], // no nonce, but a generation seen at or after the state's
      [{ nonce: 'n-1', generation: '9' }, 'n-1', false], // the nonce, carried by the state; the generation unreadable
      [{ nonce: 'n-1', generation: 9 }, 'n-1', true],
      [null, null, false],
      ['n-1', null, false],
    ];
    for (const [record, nonce, pending] of cases) {
      const store = meta();
      await store.put(`account:${ACCOUNT}`, { accountId: ACCOUNT, generation: 3, current: null, sessions: [], change: 'logout', under: 'n-1' });
      await store.put(`logout:${ACCOUNT}`, record);
      const snap = await readSnapshot(store, ACCOUNT);
      expect([record, snap.logoutNonce, snap.logoutPending]).toEqual([record, nonce, pending]);
    }
  });
});

describe('readAll: the last account', () => {
  it('is taken from the `last-account` record only, and only when it names an account', async () => {
    const lastArb = fc.constantFrom<unknown>({ accountId: ACCOUNT }, { accountId: 5 }, 'InternalAccount:x', null, undefined);
    await fc.assert(
      fc.asyncProperty(lastArb, fc.boolean(), async (last, others) => {
        const store = meta();
        if (last !== undefined) await store.put('last-account', last);
        if (others) {
          // Records around it that carry an accountId of their own: an old-layout session, a
          // logout, an empty ending list, a foreign record.
          await store.put(`logout:${OTHER}`, { nonce: 'n', generation: 0, accountId: OTHER });
          await store.put(`ending:${OTHER}`, []);
          await store.put('session:Session:old', session(1, OTHER));
          await store.put('zz-foreign', { accountId: OTHER });
        }
        const all = await readAll(store);
        expect(all.lastAccountId).toBe(typeof last === 'object' && last !== null && typeof (last as { accountId: unknown }).accountId === 'string' ? ACCOUNT : undefined);
        expect(all.oldLayout).toBe(others);
        expect(all.ending).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
