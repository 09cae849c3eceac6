// The stored state and the operations that guard the session keys, on their own (no sandbox): the
// commit's checks (generation, logout nonce), what a damaged record reads as, the logout's pending
// ends (I8: keys kept until the service answers, for nothing else), removal of sessions and their
// keys. fast-check draws states, nonces and service answers; the oracle is written out beside each.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, type SessionKey } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';
import { keyIn, removeEnding } from '../../src/session/changes.js';
import { addEnding, createCancellers, endAll, expireSessions, finishEnding, isExpired, removeSessions, successor, type OpsContext } from '../../src/session/operations.js';
import { createServerClock } from '../../src/session/server-clock.js';
import type { SessionService } from '../../src/session/service.js';
import { ENDING_PREFIX, adoptLogout, commitState, emptyState, parseAccountState, readAll, readEnding, readSnapshot, requestLogout, writeEnding, type AccountState } from '../../src/session/state.js';
import type { Session } from '../../src/session/types.js';
import { createView } from '../../src/session/view.js';
import { createEmitter } from '../../src/session/emitter.js';

const ACCOUNT = 'InternalAccount:unit';
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await Promise.all(Array.from({ length: 6 }, () => generateSessionKey()));
});

function session(i: number, over: Partial<Session> = {}): Session {
  return {
    id: `Session:${i}`,
    accountId: ACCOUNT,
    credentialId: `AuthMethod:${i % 2}`,
    credentialType: 'EMAIL_OTP',
    publicKeyHex: keys[i]!.publicKeyHex,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + 15 * 60_000).toISOString(),
    ...over,
  };
}

/** A service that records what it was asked and answers as told. */
function service(answer: (id: string) => 'ok' | 'gone' | 'refused' | 'offline' | 'busy' = () => 'ok', listed: string[] = []) {
  const ended: Array<{ id: string; key: string; approved: boolean }> = [];
  const svc: SessionService = {
    list: async () => listed.map((id) => ({ id, accountId: ACCOUNT, type: 'EMAIL_OTP', nickname: 'x', createdAt: '', updatedAt: '', expiresAt: '' })),
    refresh: async () => {
      throw new Error('not here');
    },
    end: async (id, signer, options) => {
      const s = typeof signer === 'function' ? await signer() : signer;
      ended.push({ id, key: s.publicKeyHex, approved: options?.approved === true });
      const a = answer(id);
      if (a === 'ok') return true;
      if (a === 'gone') return false;
      if (a === 'refused') throw new WalletError('WALLET_SIGNATURE_INVALID', 'no', { status: 401 });
      if (a === 'busy') throw new WalletError('RATE_LIMITED', 'later', { status: 429 });
      throw new WalletError('NETWORK_ERROR', 'offline');
    },
  };
  return { svc, ended };
}

function context(keyStore: KeyStore, svc: SessionService, now = () => T0): OpsContext & { posted: string[] } {
  const posted: string[] = [];
  return {
    keyStore,
    service: svc,
    host: {} as never,
    view: createView(createEmitter(), () => undefined),
    channel: { start: () => undefined, post: (a) => void posted.push(a), close: () => undefined },
    clock: createServerClock(now),
    cancellers: createCancellers(),
    endRefused: () => undefined,
    refreshFailed: () => undefined,
    noSession: () => new WalletError('NOT_LOGGED_IN'),
    loggingOut: new Set(),
    posted,
  };
}

async function store(keyStore: KeyStore, sessions: Session[], current: string | null = sessions[0]?.id ?? null): Promise<AccountState> {
  for (const s of sessions) {
    const k = keys[Number(s.id.split(':')[1])]!;
    await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: s.id });
  }
  const state: AccountState = { accountId: ACCOUNT, generation: 1, current, sessions, change: 'login' };
  await keyStore.meta.put(`account:${ACCOUNT}`, state);
  return state;
}

describe('commitState: a commit happens only from what is still stored', () => {
  it('writes generation + 1 when generation and nonce are the snapshot’s; refuses otherwise (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 5 }), fc.nat({ max: 5 }), fc.option(fc.constantFrom('n1', 'n2')), fc.option(fc.constantFrom('n1', 'n2')), fc.boolean(), async (stored, seen, nonceNow, nonceSeen, ignore) => {
        const keyStore = createKeyStore({ backend: createMemoryBackend() });
        if (stored > 0) await keyStore.meta.put(`account:${ACCOUNT}`, { ...emptyState(ACCOUNT), generation: stored });
        if (nonceNow !== null) await keyStore.meta.put(`logout:${ACCOUNT}`, { nonce: nonceNow, generation: 0 });
        const from = { state: { ...emptyState(ACCOUNT), generation: seen }, logoutNonce: nonceSeen, logoutPending: false };
        const written = await commitState(keyStore.meta, from, { sessions: [], current: null, change: 'logout' }, { ignoreLogout: ignore });
        const ok = stored === seen && (ignore || nonceNow === nonceSeen);
        expect(written === undefined).toBe(!ok);
        const after = (await readSnapshot(keyStore.meta, ACCOUNT)).state.generation;
        expect(after).toBe(ok ? seen + 1 : stored);
        if (written) expect(written).toEqual({ accountId: ACCOUNT, generation: seen + 1, current: null, sessions: [], change: 'logout', under: nonceNow });
      }),
      { numRuns: 150 },
    );
  });

  it('a logout request is pending until a commit raises the generation past the one it saw', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).logoutPending).toBe(false);
    await store(keyStore, []);
    const nonce = await requestLogout(keyStore.meta, ACCOUNT);
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(snap).toMatchObject({ logoutNonce: nonce, logoutPending: true });
    expect(await requestLogout(keyStore.meta, ACCOUNT)).not.toBe(nonce);
    const next = await readSnapshot(keyStore.meta, ACCOUNT);
    await commitState(keyStore.meta, next, { sessions: [], current: null, change: 'logout' });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).logoutPending).toBe(false);
  });
});

describe('adoptLogout: a logout request that came by message (held.ts, channel.ts)', () => {
  it('is recorded unless already stored, or a state newer than what it saw holds sessions (a later login: I2) (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 4 }), fc.nat({ max: 4 }), fc.boolean(), fc.boolean(), async (stored, seen, withSessions, known) => {
        const keyStore = createKeyStore({ backend: createMemoryBackend() });
        const sessions = withSessions ? [session(1)] : [];
        await keyStore.meta.put(`account:${ACCOUNT}`, { ...emptyState(ACCOUNT), generation: stored, sessions, current: sessions[0]?.id ?? null, change: withSessions ? 'login' : 'logout' });
        if (known) await keyStore.meta.put(`logout:${ACCOUNT}`, { nonce: 'n1', generation: seen });
        const adopted = await adoptLogout(keyStore.meta, ACCOUNT, { nonce: 'n1', generation: seen });
        const expected = !known && !(stored > seen && withSessions);
        expect(adopted).toBe(expected);
        expect((await readSnapshot(keyStore.meta, ACCOUNT)).logoutNonce).toBe(expected || known ? 'n1' : null);
      }),
      { numRuns: 100 },
    );
  });
});

describe('stored records: damaged or foreign ones read as nothing', () => {
  it('account states', () => {
    const good = { accountId: ACCOUNT, generation: 3, current: 'Session:9', sessions: [], change: 'refresh' };
    expect(parseAccountState(good, ACCOUNT)).toEqual({ ...good, current: null });
    for (const bad of [null, [], { ...good, accountId: 'InternalAccount:other' }, { ...good, sessions: 'x' }, { ...good, generation: -1 }, { ...good, generation: 1.5 }, { ...good, generation: '3' }, { ...good, change: 'hack' }]) {
      expect(parseAccountState(bad, ACCOUNT)).toBeUndefined();
    }
    const withSession = { ...good, current: 'Session:1', sessions: [{ id: 'Session:1', accountId: ACCOUNT, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: `02${'ab'.repeat(32)}`, createdAt: new Date(T0).toISOString(), expiresAt: new Date(T0 + 1).toISOString() }] };
    expect(parseAccountState(withSession, ACCOUNT)?.current).toBe('Session:1');
    // A session of another account inside the record is dropped.
    expect(parseAccountState({ ...withSession, sessions: [{ ...withSession.sessions[0], accountId: 'InternalAccount:x' }] }, ACCOUNT)?.sessions).toEqual([]);
  });

  it('pending ends, and readAll naming the accounts that have some', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await keyStore.meta.put(ENDING_PREFIX + ACCOUNT, [{ id: 'Session:1', publicKeyHex: 'aa', expiresAt: 'x' }, { id: 2 }, null, 'x']);
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([{ id: 'Session:1', publicKeyHex: 'aa', expiresAt: 'x' }]);
    await keyStore.meta.put(ENDING_PREFIX + 'InternalAccount:empty', []);
    await keyStore.meta.put(ENDING_PREFIX + 'InternalAccount:odd', { id: 'x' });
    expect((await readAll(keyStore.meta)).ending).toEqual([ACCOUNT]);
    await writeEnding(keyStore.meta, ACCOUNT, []);
    expect(await keyStore.meta.get(ENDING_PREFIX + ACCOUNT)).toBeUndefined();
    await keyStore.meta.put('logout:x', 'junk');
    expect((await readSnapshot(keyStore.meta, 'x')).logoutNonce).toBeNull();
    await keyStore.meta.put('logout:y', null);
    expect(await readSnapshot(keyStore.meta, 'y')).toMatchObject({ logoutNonce: null, logoutPending: false });
  });
});

describe('endAll and pending ends (I1, I8)', () => {
  it('logout empties the state; each session is ended with its own key, no prompt; keys go only once the service answered (drawn answers)', async () => {
    const answers = ['ok', 'gone', 'refused', 'offline', 'busy'] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...answers), { minLength: 1, maxLength: 3 }), async (drawn) => {
        const keyStore = createKeyStore({ backend: createMemoryBackend() });
        const sessions = drawn.map((_, i) => session(i));
        await store(keyStore, sessions);
        const { svc, ended } = service((id) => drawn[Number(id.split(':')[1])]!);
        const ctx = context(keyStore, svc);
        await requestLogout(keyStore.meta, ACCOUNT);
        expect(await endAll(ctx, await readSnapshot(keyStore.meta, ACCOUNT))).toBe(true);
        const snap = await readSnapshot(keyStore.meta, ACCOUNT);
        expect(snap.state.sessions).toEqual([]);
        expect(snap.logoutPending).toBe(false);
        expect(ctx.posted).toEqual([ACCOUNT]);
        expect(ended.map((e) => [e.id, e.key, e.approved])).toEqual(sessions.map((s) => [s.id, s.publicKeyHex, true]));
        // Ended, or gone (404): key gone; anything else (offline, 429, a 401 that does not say it is gone): still to end, key kept.
        const retry = (a: string): boolean => a === 'offline' || a === 'busy' || a === 'refused';
        expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual(sessions.filter((_, i) => retry(drawn[i]!)).map((s) => s.id));
        for (const [i, s] of sessions.entries()) expect((await keyStore.get(s.publicKeyHex)) !== undefined).toBe(retry(drawn[i]!));
        // Back online: finished, every key gone.
        const back = service(() => 'ok');
        await finishEnding({ ...ctx, service: back.svc }, ACCOUNT);
        expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
        for (const s of sessions) expect(await keyStore.get(s.publicKeyHex)).toBeUndefined();
        expect(back.ended.map((e) => e.id)).toEqual(sessions.filter((_, i) => retry(drawn[i]!)).map((s) => s.id));
      }),
      { numRuns: 25 },
    );
  });

  it('a pending end the service cannot be asked about is dropped once past its expiry by more than an hour on a clock the service set (asked first: I6); one without its key at once', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const old = session(0, { expiresAt: new Date(T0 - 61 * 60_000).toISOString() });
    const recent = session(1, { expiresAt: new Date(T0 - 59 * 60_000).toISOString() });
    await store(keyStore, [old, recent]);
    await writeEnding(keyStore.meta, ACCOUNT, [old, recent, { id: 'Session:nokey', publicKeyHex: `03${'cd'.repeat(32)}`, expiresAt: new Date(T0 + 60_000).toISOString() }].map(({ id, publicKeyHex, expiresAt }) => ({ id, publicKeyHex, expiresAt })));
    const { svc, ended } = service(() => 'offline');
    // No server sample yet: the estimate is the local clock, which alone drops nothing (I8).
    await finishEnding(context(keyStore, svc), ACCOUNT);
    expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([old.id, recent.id]);
    ended.length = 0;
    const sampled = context(keyStore, svc);
    sampled.clock.observeServerTime(T0, T0);
    await finishEnding(sampled, ACCOUNT);
    expect(ended.map((e) => e.id)).toEqual([old.id, recent.id]);
    expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([recent.id]);
    expect(await keyStore.get(old.publicKeyHex)).toBeUndefined();
    // Reachable: ended, whatever the estimate says of its age.
    const reachable = service(() => 'ok');
    await finishEnding(context(keyStore, reachable.svc), ACCOUNT);
    expect(reachable.ended.map((e) => e.id)).toEqual([recent.id]);
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
  });

  it('the logout’s sweep ends a key a closed tab stored for a session it never committed; without sweep it is left alone', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, [session(0)]);
    const k = keys[1]!;
    await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: 'Session:orphan' });
    const other = keys[2]!;
    await keyStore.put({ publicKeyHex: other.publicKeyHex, privateKey: other.privateKey, publicKey: other.publicKey, purpose: 'session', accountId: 'InternalAccount:other', sessionId: 'Session:theirs' });
    // (The orphan's key was stored now, on the real clock: judge its age on it.)
    const plain = service(() => 'ok');
    await endAll(context(keyStore, plain.svc, Date.now), await readSnapshot(keyStore.meta, ACCOUNT));
    expect(plain.ended.map((e) => e.id)).toEqual(['Session:0']);
    const swept = service(() => 'ok');
    await endAll(context(keyStore, swept.svc, Date.now), await readSnapshot(keyStore.meta, ACCOUNT), { sweep: true });
    expect(swept.ended.map((e) => [e.id, e.key])).toEqual([['Session:orphan', k.publicKeyHex]]);
    expect(await keyStore.get(k.publicKeyHex)).toBeUndefined();
    expect(await keyStore.get(other.publicKeyHex)).toBeDefined();
  });
});

describe('removing sessions', () => {
  it('removes exactly the named ones with their keys; the longest-lasting unexpired one left becomes current', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const a = session(0, { expiresAt: new Date(T0 + 5 * 60_000).toISOString() });
    const b = session(1, { expiresAt: new Date(T0 + 10 * 60_000).toISOString() });
    const c = session(2, { expiresAt: new Date(T0 + 7 * 60_000).toISOString() });
    await store(keyStore, [a, b, c], a.id);
    const ctx = context(keyStore, service().svc);
    await removeSessions(ctx, await readSnapshot(keyStore.meta, ACCOUNT), new Set([a.id]), 'revoked');
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(snap.state).toMatchObject({ current: b.id, change: 'revoked', generation: 2 });
    expect(snap.state.sessions.map((s) => s.id)).toEqual([b.id, c.id]);
    expect(await keyStore.get(a.publicKeyHex)).toBeUndefined();
    expect(await keyStore.get(b.publicKeyHex)).toBeDefined();
    // Removing one that is not current keeps the current one.
    await removeSessions(ctx, snap, new Set([c.id]), 'evicted');
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.current).toBe(b.id);
    // Nothing named: nothing written.
    const before = await readSnapshot(keyStore.meta, ACCOUNT);
    await removeSessions(ctx, before, new Set(['Session:none']), 'expired');
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.generation).toBe(before.state.generation);
    expect(successor([a, b, c], T0 + 8 * 60_000)?.id).toBe(b.id);
    expect(successor([a, c], T0 + 8 * 60_000)).toBeUndefined();
    expect(isExpired(a, T0 + 5 * 60_000)).toBe(true);
    expect(isExpired(a, T0 + 5 * 60_000 - 1)).toBe(false);
  });

  it('a stale snapshot removes nothing and deletes no key', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, [session(0), session(1)]);
    const stale = await readSnapshot(keyStore.meta, ACCOUNT);
    await commitState(keyStore.meta, stale, { sessions: stale.state.sessions, current: stale.state.current, change: 'refresh' });
    await removeSessions(context(keyStore, service().svc), stale, new Set(['Session:0']), 'revoked');
    expect(await keyStore.get(keys[0]!.publicKeyHex)).toBeDefined();
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(2);
  });

  it('I6: expiry on the estimate is confirmed with the service; a session it still lists stays; unreachable: nothing removed', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const a = session(0);
    const b = session(1);
    await store(keyStore, [a, b]);
    const later = () => T0 + 16 * 60_000; // both past expiry on this clock
    const listsA = context(keyStore, service(() => 'ok', [a.id]).svc, later);
    expect([...(await expireSessions(listsA, await readSnapshot(keyStore.meta, ACCOUNT)))]).toEqual([b.id]);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual([a.id]);
    const offline = context(keyStore, { ...service().svc, list: () => Promise.reject(new WalletError('NETWORK_ERROR')) }, later);
    expect((await expireSessions(offline, await readSnapshot(keyStore.meta, ACCOUNT))).size).toBe(0);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(1);
    const fresh = context(keyStore, service(() => 'ok', []).svc);
    expect((await expireSessions(fresh, await readSnapshot(keyStore.meta, ACCOUNT))).size).toBe(0);
  });
});

describe('cancellers', () => {
  it('abort exactly the operations of the account started under another nonce', () => {
    const c = createCancellers();
    const a = c.track('A', 'n1');
    const b = c.track('A', null);
    const other = c.track('B', 'n0');
    expect(c.accounts().sort()).toEqual(['A', 'B']);
    c.check('A', 'n1');
    expect([a.signal.aborted, b.signal.aborted, other.signal.aborted]).toEqual([false, true, false]);
    expect(b.signal.reason).toMatchObject({ code: 'NOT_LOGGED_IN' });
    a.done();
    b.done();
    expect(c.accounts()).toEqual(['B']);
    c.check('A', 'n2');
    expect(a.signal.aborted).toBe(false);
  });
});

describe('what the mutation run found undefended (test/session/MUTATION.md)', () => {
  it('readAll: the last account, the 0.1 layout, damaged account records, only ending: arrays count', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    expect(await readAll(keyStore.meta)).toEqual({ states: [], lastAccountId: undefined, oldLayout: false, ending: [] });
    await keyStore.meta.put('last-account', { accountId: ACCOUNT });
    await keyStore.meta.put(`account:${ACCOUNT}`, { ...emptyState(ACCOUNT), generation: 0 });
    await keyStore.meta.put('account:InternalAccount:damaged', { accountId: 'InternalAccount:damaged', generation: 'x' });
    await keyStore.meta.put('other:list', [1, 2]);
    const all = await readAll(keyStore.meta);
    expect(all.lastAccountId).toBe(ACCOUNT);
    expect(all.states.map((s) => s.accountId)).toEqual([ACCOUNT]);
    expect(all.ending).toEqual([]);
    expect(all.oldLayout).toBe(false);
    await keyStore.meta.put('last-account', { accountId: 7 });
    expect((await readAll(keyStore.meta)).lastAccountId).toBeUndefined();
    for (const old of ['session:Session:1', 'current:InternalAccount:1']) {
      const k = createKeyStore({ backend: createMemoryBackend() });
      await k.meta.put(old, {});
      expect((await readAll(k.meta)).oldLayout).toBe(true);
    }
  });

  it('pending ends need an id, a key and an expiry; generation 0 is a valid state', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const e = { id: 'Session:1', publicKeyHex: 'aa', expiresAt: 'x' };
    await keyStore.meta.put(ENDING_PREFIX + ACCOUNT, [e, { ...e, id: 1 }, { ...e, publicKeyHex: 1 }, { ...e, expiresAt: 1 }]);
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([e]);
    expect(parseAccountState({ ...emptyState(ACCOUNT), generation: 0 }, ACCOUNT)?.generation).toBe(0);
  });

  it('cancellers: an account stays tracked while one of its calls is', () => {
    const c = createCancellers();
    const a = c.track('A', null);
    const b = c.track('A', null);
    a.done();
    expect(c.accounts()).toEqual(['A']);
    a.done();
    expect(c.accounts()).toEqual(['A']);
    b.done();
    expect(c.accounts()).toEqual([]);
    // A call that finished late (its set was dropped) does not drop a newer call's entry.
    const d = c.track('A', null);
    a.done();
    expect(c.accounts()).toEqual(['A']);
    d.done();
  });

  it('the longest-lasting unexpired session succeeds, whatever the order; removing another keeps the current', async () => {
    const a = session(0, { expiresAt: new Date(T0 + 5 * 60_000).toISOString() });
    const b = session(1, { expiresAt: new Date(T0 + 10 * 60_000).toISOString() });
    const c = session(2, { expiresAt: new Date(T0 + 7 * 60_000).toISOString() });
    expect(successor([c, a, b], T0)?.id).toBe(b.id);
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, [a, b, c], c.id);
    await removeSessions(context(keyStore, service().svc), await readSnapshot(keyStore.meta, ACCOUNT), new Set([a.id]), 'revoked');
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.current).toBe(c.id);
  });

  it('a logout here is the user’s; one committed for another tab is other-tab', async () => {
    for (const mine of [true, false]) {
      const keyStore = createKeyStore({ backend: createMemoryBackend() });
      await store(keyStore, [session(0)]);
      const ctx = context(keyStore, service().svc);
      const events = createEmitter<{ 'logged-out': { accountId: string; reason: string } }>();
      const seen: string[] = [];
      events.on('logged-out', (e) => seen.push(e.reason));
      const view = createView(events as never, () => undefined);
      view.apply((await readSnapshot(keyStore.meta, ACCOUNT)).state, { silent: true });
      const loggingOut = new Set(mine ? [ACCOUNT] : []);
      await endAll({ ...ctx, view, loggingOut }, await readSnapshot(keyStore.meta, ACCOUNT));
      expect(seen).toEqual([mine ? 'user' : 'other-tab']);
    }
  });

  it('endAll: nothing held and no logout pending writes nothing (false); a stale nonce does not stop the logout', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, []);
    const { svc } = service();
    expect(await endAll(context(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT))).toBe(false);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.generation).toBe(1);
    await store(keyStore, [session(0)]);
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    await requestLogout(keyStore.meta, ACCOUNT); // another tab asks again after this snapshot
    expect(await endAll(context(keyStore, svc), snap)).toBe(true);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
  });

  it('the service’s answer decides whether a pending end is done: 404 yes, every other 4xx, 5xx and no answer no', async () => {
    for (const [status, done] of [[400, false], [401, false], [403, false], [404, true], [408, false], [429, false], [499, false], [500, false], [503, false], [undefined, false]] as const) {
      const keyStore = createKeyStore({ backend: createMemoryBackend() });
      await store(keyStore, [session(0)]);
      const svc: SessionService = {
        ...service().svc,
        end: async () => {
          throw new WalletError('X', 'answer', status === undefined ? {} : { status });
        },
      };
      await endAll(context(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT));
      expect([status, (await readEnding(keyStore.meta, ACCOUNT)).length]).toEqual([status, done ? 0 : 1]);
      // A thrown non-WalletError is no answer either.
      const odd = { ...svc, end: () => Promise.reject(new Error('boom')) };
      await finishEnding(context(keyStore, odd), ACCOUNT);
      expect((await readEnding(keyStore.meta, ACCOUNT)).length).toBe(done ? 0 : 1);
    }
  });

  it('a pending end exactly at its grace limit is still asked for; pending ends are not listed twice', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const s = session(0, { expiresAt: new Date(T0 - 60 * 60_000).toISOString() });
    await store(keyStore, [s]);
    const { svc, ended } = service(() => 'offline');
    const ctx = context(keyStore, svc);
    await endAll(ctx, await readSnapshot(keyStore.meta, ACCOUNT));
    await endAll(ctx, { ...(await readSnapshot(keyStore.meta, ACCOUNT)), logoutPending: true });
    expect(ended.map((e) => e.id)).toEqual([s.id, s.id]);
    expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([s.id]);
  });

  it('the sweep ends only keys of the account that name a session (a login’s key not yet bound is left)', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, []);
    const unbound = keys[3]!;
    await keyStore.put({ publicKeyHex: unbound.publicKeyHex, privateKey: unbound.privateKey, publicKey: unbound.publicKey, purpose: 'session', accountId: ACCOUNT });
    const { svc, ended } = service();
    await endAll(context(keyStore, svc, Date.now), await readSnapshot(keyStore.meta, ACCOUNT), { sweep: true });
    expect(ended).toEqual([]);
    expect(await keyStore.get(unbound.publicKeyHex)).toBeDefined();
  });

  it('no session expired on the estimate: the service is not asked', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    await store(keyStore, [session(0)]);
    let asked = 0;
    const svc = { ...service().svc, list: async () => (asked++, []) };
    expect((await expireSessions(context(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT))).size).toBe(0);
    expect(asked).toBe(0);
  });
});

describe('keyIn: the key of a session about to sign (refresh, sign out other devices)', () => {
  it('expired and confirmed: SESSION_EXPIRED, removed; expired on the estimate only: the key; missing: KEY_EVICTED, removed', async () => {
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const [a, b, c] = [session(0), session(1), session(2)];
    await store(keyStore, [a, b, c]);
    const later = () => T0 + 16 * 60_000;
    const listsB = context(keyStore, service(() => 'ok', [b.id]).svc, later);
    await expect(keyIn(listsB, await readSnapshot(keyStore.meta, ACCOUNT), a)).rejects.toMatchObject({ code: 'SESSION_EXPIRED' });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).not.toContain(a.id);
    expect((await keyIn(listsB, await readSnapshot(keyStore.meta, ACCOUNT), b)).publicKeyHex).toBe(b.publicKeyHex);
    await keyStore.delete(c.publicKeyHex);
    const now = context(keyStore, service().svc);
    await expect(keyIn(now, await readSnapshot(keyStore.meta, ACCOUNT), c)).rejects.toMatchObject({ code: 'KEY_EVICTED' });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual([b.id]);
    // removeEnding takes exactly the named one off the pending ends.
    await addEnding(now, ACCOUNT, [a, b].map(({ id, publicKeyHex, expiresAt }) => ({ id, publicKeyHex, expiresAt })));
    await addEnding(now, ACCOUNT, [{ id: a.id, publicKeyHex: a.publicKeyHex, expiresAt: a.expiresAt }]);
    expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([a.id, b.id]);
    await removeEnding(now, ACCOUNT, 'Session:none');
    await removeEnding(now, ACCOUNT, a.id);
    expect((await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([b.id]);
  });
});
