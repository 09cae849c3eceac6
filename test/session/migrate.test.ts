// migrateOldLayout (migrate.ts) judged by generated stores of version 0.1's layout: `session:<id>`
// records (valid, with foreign fields, or broken one field at a time), `current:<account>` records
// (naming a session of the account, of another account, none, or not a string), account states of
// the new layout already there, and unrelated records whose names only look alike. The oracle is
// written from the promise (sessions survive the upgrade, the current one stays current, the old
// records go, nothing else is touched), from what the generator knows of each record, never by
// parsing them the way the code does. A real in-memory metadata store; no sandbox.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migrateOldLayout } from '../../src/session/migrate.js';
import type { Session } from '../../src/session/types.js';
import { newKeyStore } from './ops-fixture.js';

const ACCOUNTS = ['InternalAccount:a', 'InternalAccount:b', 'InternalAccount:c'];
const HEX = fc.stringMatching(/^0[23][0-9a-f]{64}$/);
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** A session record as 0.1 stored it, and whether it is readable (what the oracle knows of it). */
interface OldSession {
  value: unknown;
  /** The session it should become; undefined when the record is unreadable. */
  session: Session | undefined;
}

const validSession = fc
  .record({
    n: fc.integer({ min: 0, max: 5 }),
    account: fc.constantFrom(...ACCOUNTS),
    credential: fc.constantFrom('AuthMethod:1', 'AuthMethod:2'),
    type: fc.constantFrom('EMAIL_OTP', 'PASSKEY', 'OAUTH'),
    hex: HEX,
    legacy: fc.boolean(),
  })
  .map(({ n, account, credential, type, hex, legacy }): Session => ({
    id: `Session:${account.slice(-1)}${n}`,
    accountId: account,
    credentialId: credential,
    credentialType: type as Session['credentialType'],
    publicKeyHex: hex,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + 900_000).toISOString(),
    ...(legacy && { legacy: true }),
  }));

/** Breaks one field of a valid record (each makes it unreadable). */
const BREAKS: Array<(s: Record<string, unknown>) => unknown> = [
  (s) => ({ ...s, id: 7 }),
  (s) => ({ ...s, accountId: null }),
  (s) => ({ ...s, credentialId: undefined }),
  (s) => ({ ...s, credentialType: 'TELEPATHY' }),
  (s) => ({ ...s, publicKeyHex: 'zz' }),
  (s) => ({ ...s, expiresAt: 'soon' }),
  () => 'a string',
  () => null,
  () => [1, 2],
];

const oldSession: fc.Arbitrary<OldSession> = fc.oneof(
  { weight: 5, arbitrary: validSession.map((s) => ({ value: s, session: s })) },
  // Foreign fields stay behind.
  { weight: 1, arbitrary: validSession.map((s) => ({ value: { ...s, foreign: 'x', legacyNote: 1, sessionId: s.id }, session: s })) },
  { weight: 2, arbitrary: fc.tuple(validSession, fc.integer({ min: 0, max: BREAKS.length - 1 })).map(([s, b]) => ({ value: BREAKS[b]!(s as unknown as Record<string, unknown>), session: undefined })) },
);

/** What `current:<account>` holds: a session id (maybe of another account, maybe unknown), or junk. */
const currentValue = fc.oneof(
  fc.record({ sessionId: fc.constantFrom(...ACCOUNTS.flatMap((a) => [0, 1, 2, 3, 4, 5].map((n) => `Session:${a.slice(-1)}${n}`))) }),
  fc.record({ sessionId: fc.constantFrom(7, null, ['Session:a0']) }),
  fc.constantFrom(null, 'Session:a0', 3, ['Session:a0']),
);

// A session record's name: any tag (0.1 used the session id; the value's id is what counts), or one
// that looks like an account id, as a `current:` name ends.
const tag = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...ACCOUNTS));

const store = fc.array(fc.tuple(tag, oldSession), { maxLength: 7 }).chain((sessions) => {
  const valid = sessions.flatMap(([, old]) => (old.session ? [old.session] : []));
  const ids = valid.length === 0 ? ['Session:none'] : valid.map((x) => x.id);
  const held = valid.length === 0 ? ACCOUNTS : valid.map((x) => x.accountId);
  // A `current:` record: mostly naming a session of its own account; sometimes a session of the
  // store for any account (maybe another's); junk for an account that has sessions; a whole session
  // record (a `current:` record is never a session, whatever it holds).
  const current = fc.oneof(
    { weight: valid.length === 0 ? 0 : 3, arbitrary: fc.constantFrom(...(valid.length === 0 ? [undefined] : valid)).map((x) => [x!.accountId, { sessionId: x!.id }] as [string, unknown]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ACCOUNTS, 'InternalAccount:none'), fc.constantFrom(...ids).map((sessionId): unknown => ({ sessionId }))) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...held), currentValue as fc.Arbitrary<unknown>) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ACCOUNTS), validSession as fc.Arbitrary<unknown>) },
  );
  return fc.record({
    sessions: fc.constant(sessions),
    currents: fc.array(current, { maxLength: 4 }),
    existing: fc.subarray(ACCOUNTS),
    // Names that look like the old ones but are not (no colon, other case, the prefix later on).
    others: fc.subarray(['session', 'current', 'Session:x', 'sessions:1', 'currents:a', 'x-session:1', 'x-current:a', 'last-account', 'logout:InternalAccount:a']),
  });
});

type Store = typeof store extends fc.Arbitrary<infer T> ? T : never;

async function seeded(s: Store) {
  const keyStore = newKeyStore();
  const meta = keyStore.meta;
  for (const [tag, old] of s.sessions) await meta.put(`session:${tag}`, old.value);
  for (const [account, value] of s.currents) await meta.put(`current:${account}`, value);
  for (const account of s.existing) await meta.put(`account:${account}`, { accountId: account, generation: 9, current: null, sessions: [], change: 'logout', mark: 'kept' });
  for (const name of s.others) await meta.put(name, { other: name });
  return meta;
}

/** The oracle: the store after the migration, as a map name → value. */
function expected(s: Store, before: Map<string, unknown>): Map<string, unknown> {
  const after = new Map(before);
  // What the store holds (a later put under the same name replaced an earlier one).
  const oldNames = [...before.keys()].filter((n) => /^(session|current):/.test(n));
  if (oldNames.length === 0) return after;
  const lastSession = new Map<string, OldSession>();
  for (const [tag, old] of s.sessions) lastSession.set(`session:${tag}`, old);
  const lastCurrent = new Map<string, unknown>();
  for (const [account, value] of s.currents) lastCurrent.set(account, value);
  const byAccount = new Map<string, Session[]>();
  // In the store's listing order.
  for (const name of before.keys()) {
    const session = lastSession.get(name)?.session;
    if (name.startsWith('session:') && session) byAccount.set(session.accountId, [...(byAccount.get(session.accountId) ?? []), session]);
  }
  for (const [account, sessions] of byAccount) {
    if (s.existing.includes(account)) continue;
    const named = lastCurrent.get(account) as { sessionId?: unknown } | undefined;
    const pick = sessions.find((x) => typeof named === 'object' && named !== null && x.id === named.sessionId);
    after.set(`account:${account}`, { accountId: account, generation: 1, current: (pick ?? sessions[0]!).id, sessions, change: 'login' });
  }
  for (const name of oldNames) after.delete(name);
  return after;
}

describe('migrateOldLayout: the layout of version 0.1 converted once', () => {
  it('sessions survive per account, the named current one stays current, states of the new layout are kept, the old records go, nothing else changes', async () => {
    await fc.assert(
      fc.asyncProperty(store, async (s) => {
        const meta = await seeded(s);
        const before = new Map(await meta.list());
        await migrateOldLayout(meta);
        const after = new Map(await meta.list());
        expect(after).toEqual(expected(s, before));
        // Ran again: nothing left to convert, nothing changes.
        await migrateOldLayout(meta);
        expect(new Map(await meta.list())).toEqual(after);
      }),
      { numRuns: 150 },
    );
  });

  it('a store with only look-alike names is not touched (no list written, nothing deleted)', async () => {
    const meta = newKeyStore().meta;
    await meta.put('sessions:1', { id: 'Session:1' });
    await meta.put('x-current:a', { sessionId: 'Session:1' });
    const writes: string[] = [];
    const spy = { ...meta, list: () => meta.list(), get: meta.get, put: async (n: string, v: unknown) => void writes.push(`put ${n}`), delete: async (n: string) => void writes.push(`delete ${n}`) };
    await migrateOldLayout(spy);
    expect(writes).toEqual([]);
  });

  it('a session record is never read as a current pointer, even named after an account and carrying a sessionId', async () => {
    const meta = newKeyStore().meta;
    const [a, b] = fc.sample(validSession, { numRuns: 2, seed: 11 }).map((x, i) => ({ ...x, id: `Session:${i}`, accountId: 'InternalAccount:a' }));
    await meta.put('session:x', a);
    // 'session:' and 'current:' have the same length: the name's tail is an account id.
    await meta.put('session:InternalAccount:a', { ...b, sessionId: b!.id });
    await migrateOldLayout(meta);
    expect(await meta.get('account:InternalAccount:a')).toEqual({ accountId: 'InternalAccount:a', generation: 1, current: 'Session:0', sessions: [a, b], change: 'login' });
  });

  it('an account whose current record names no session of it: its first session becomes current', async () => {
    const meta = newKeyStore().meta;
    const [a, b] = fc.sample(validSession, { numRuns: 2, seed: 7 }).map((x, i) => ({ ...x, id: `Session:${i}`, accountId: 'InternalAccount:a' }));
    await meta.put('session:1', a);
    await meta.put('session:2', b);
    await meta.put('current:InternalAccount:a', { sessionId: 'Session:9' });
    await migrateOldLayout(meta);
    expect(await meta.get('account:InternalAccount:a')).toEqual({ accountId: 'InternalAccount:a', generation: 1, current: 'Session:0', sessions: [a, b], change: 'login' });
    expect(await meta.get('current:InternalAccount:a')).toBeUndefined();
  });
});
