// changes.ts, a login's side, on its own (no sandbox): `addSession` (a login's commit: I8 replaces
// the session held for the same credential and makes it a pending end; a logout requested since the
// login's ticket wins: the new session is ended with its own key, no prompt, NOT_LOGGED_IN),
// `establish` (the service's answer → Session → adopt; a session the login cannot keep is ended, I5),
// `adopt` (its checks) and `sessionFromAnswer`. fast-check draws the stored sessions and their
// credentials, the ticket (none, fresh, stale), a stale snapshot and the service's answer to the undo;
// the oracle is written out beside each property. Real keys (WebCrypto), an in-memory key store.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';
import { addSession, adopt, establish, removeEnding, sessionFromAnswer, type AdoptDeps } from '../../src/session/changes.js';
import { ENDING_PREFIX, LAST_ACCOUNT, readEnding, readSnapshot, requestLogout, writeEnding, type Snapshot } from '../../src/session/state.js';
import type { LoginTicket, Session } from '../../src/session/types.js';
import { CREDENTIAL_TYPES, type CredentialType } from '../../src/types.js';
import { faulty, scriptedService, type Answer } from './changes-fixture.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, makeKeys, newKeyStore, runIn, sessionOf, storeState } from './ops-fixture.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(8);
});

/** Whether the service's answer to an end leaves nothing to do (endWith: done, or 404: the session is gone). */
const settles = (a: Answer): boolean => a === 'ok' || a === 'gone' || a === 'notFound';
const ANSWERS: Answer[] = ['ok', 'gone', 'refused', 'notFound', 'loginRequired', 'forbidden', 'offline', 'busy', 'server'];

const ticketOf = (logoutNonce: string | null, accountId = ACCOUNT): LoginTicket => ({ accountId, logoutNonce, signal: new AbortController().signal });

describe('addSession: a login commits, replacing the session of the same credential (I8); a logout since its ticket wins', () => {
  it('drawn stored sessions × credential × ticket × stale snapshot × the undo’s answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4]),
        fc.array(fc.constantFrom('A', 'B', 'C'), { minLength: 5, maxLength: 5 }),
        fc.nat({ max: 5 }),
        fc.constantFrom('A', 'B', 'C', 'D'),
        fc.option(fc.nat({ max: 4 }), { nil: undefined }),
        fc.constantFrom<'none' | 'fresh' | 'stale'>('none', 'fresh', 'stale'),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(...ANSWERS),
        async (held, creds, cur, cred, sameIdAs, ticketKind, earlierLogout, staleGeneration, lateLogout, endAnswer) => {
          const keyStore = newKeyStore();
          const stored = held.map((i) => sessionOf(keys, i, { credentialId: `AuthMethod:${creds[i]}` }));
          const current = stored[cur]?.id ?? null;
          await storeState(keyStore, keys, stored, { current });
          if (earlierLogout) await requestLogout(keyStore.meta, ACCOUNT);
          // A same-id answer (a session adopted again) keeps its id, with the new key.
          const id = sameIdAs !== undefined && held.includes(sameIdAs) ? `Session:${sameIdAs}` : 'Session:5';
          const made: Session = { ...sessionOf(keys, 5, { credentialId: `AuthMethod:${cred}` }), id };
          const key = keys[5]!;
          // The login's ticket, taken when it started; 'stale': a logout requested after that.
          const ticket = ticketKind === 'none' ? undefined : ticketOf((await readSnapshot(keyStore.meta, ACCOUNT)).logoutNonce);
          if (ticketKind === 'stale') await requestLogout(keyStore.meta, ACCOUNT);
          // The snapshot the section reads (after all that); a stale one: a commit landed since.
          const snap = await readSnapshot(keyStore.meta, ACCOUNT);
          let from: Snapshot = snap;
          if (staleGeneration) from = { ...snap, state: { ...snap.state, generation: snap.state.generation - 1 } };
          // A logout requested (in another tab, outside the section) while the commit is on its way.
          if (lateLogout) await requestLogout(keyStore.meta, ACCOUNT);
          const before = await readSnapshot(keyStore.meta, ACCOUNT);
          const svc = scriptedService({ endAnswer: () => endAnswer });
          const ctx = contextOf(keyStore, svc);

          const replaced = stored.filter((s) => s.id !== made.id && s.credentialId === made.credentialId);
          // Without a ticket (adopt) a logout does not stop the commit (it stays pending); with one,
          // any logout requested since the ticket was taken wins.
          const ok = !staleGeneration && (ticketKind === 'none' || (ticketKind === 'fresh' && !lateLogout));
          const out = await addSession(ctx, from, made, key, ticket).then(
            (r) => ({ r }),
            (e: unknown) => ({ e }),
          );
          const after = await readSnapshot(keyStore.meta, ACCOUNT);
          const ending = await readEnding(keyStore.meta, ACCOUNT);
          const newKey = await keyStore.get(key.publicKeyHex);
          if (ok) {
            expect(out).toEqual({ r: replaced.length > 0 });
            // A logout that came meanwhile is still to be carried out.
            expect(after.logoutPending).toBe(lateLogout);
            expect(after.state).toMatchObject({
              generation: before.state.generation + 1,
              current: made.id,
              change: 'login',
              sessions: [...stored.filter((s) => s.id !== made.id && s.credentialId !== made.credentialId), made],
            });
            // The replaced sessions are pending ends, their keys kept for that alone.
            expect(ending).toEqual(replaced.map((s) => ({ id: s.id, publicKeyHex: s.publicKeyHex, expiresAt: s.expiresAt })));
            for (const s of replaced) expect(await keyStore.get(s.publicKeyHex)).toBeDefined();
            expect(newKey).toMatchObject({ purpose: 'session', accountId: ACCOUNT, sessionId: made.id });
            expect(await keyStore.meta.get(LAST_ACCOUNT)).toEqual({ accountId: ACCOUNT });
            expect(ctx.view.get(ACCOUNT).current).toBe(made.id);
            expect(ctx.posted).toEqual([ACCOUNT]);
            expect(svc.ended).toEqual([]);
          } else {
            expect('e' in out && isWalletError(out.e, 'NOT_LOGGED_IN')).toBe(true);
            // Nothing committed; nothing the login would have replaced is to be ended.
            expect(after.state).toEqual(before.state);
            expect(ctx.posted).toEqual([]);
            expect(ctx.view.get(ACCOUNT).sessions).toEqual([]);
            expect(await keyStore.meta.get(LAST_ACCOUNT)).toBeUndefined();
            // The session the service made is ended with its own key, no prompt.
            expect(svc.ended.map((c) => [c.id, c.key, c.approved, c.automatic])).toEqual([[made.id, key.publicKeyHex, true, true]]);
            if (settles(endAnswer)) {
              expect(newKey).toBeUndefined();
              expect(ending).toEqual([]);
            } else {
              // Unreachable: a pending end, its key kept for it.
              expect(newKey).toBeDefined();
              expect(ending).toEqual([{ id: made.id, publicKeyHex: key.publicKeyHex, expiresAt: made.expiresAt }]);
            }
          }
          for (const s of stored) if (s.id !== made.id) expect(await keyStore.get(s.publicKeyHex)).toBeDefined();
        },
      ),
      { numRuns: 120 },
    );
  });

  it('the same session adopted again (same id, same credential) replaces nothing: not a pending end of itself', async () => {
    const keyStore = newKeyStore();
    const held = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    await storeState(keyStore, keys, [held]);
    const again: Session = { ...held, publicKeyHex: keys[5]!.publicKeyHex };
    const ctx = contextOf(keyStore, scriptedService({}));
    expect(await addSession(ctx, await readSnapshot(keyStore.meta, ACCOUNT), again, keys[5]!)).toBe(false);
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([again]);
  });

  it('a commit that fails in storage: its error stands, the sessions it would have replaced are not ended, the new one is', async () => {
    const inner = newKeyStore();
    const old = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    await storeState(inner, keys, [old]);
    const keyStore = faulty(inner, (name) => name.startsWith('account:'));
    const svc = scriptedService({});
    const ctx = contextOf(keyStore, svc);
    const made = sessionOf(keys, 5, { credentialId: 'AuthMethod:A' });
    const snap = await readSnapshot(inner.meta, ACCOUNT);
    await expect(addSession(ctx, snap, made, keys[5]!)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(await readEnding(inner.meta, ACCOUNT)).toEqual([]);
    expect(svc.ended.map((c) => c.id)).toEqual([made.id]);
    expect(await inner.get(keys[5]!.publicKeyHex)).toBeUndefined();
    expect(await inner.get(old.publicKeyHex)).toBeDefined();
    expect((await readSnapshot(inner.meta, ACCOUNT)).state.current).toBe(old.id);
  });

  it('the undo goes on when storage fails under it: the new session is ended all the same', async () => {
    // Every write of pending ends fails after the first (the replaced session's, before the commit).
    const inner = newKeyStore();
    const old = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    await storeState(inner, keys, [old]);
    let endingWrites = 0;
    const keyStore = faulty(inner, (name) => name.startsWith('account:') || (name.startsWith(ENDING_PREFIX) && ++endingWrites > 1));
    const svc = scriptedService({});
    const ctx = contextOf(keyStore, svc);
    const made = sessionOf(keys, 5, { credentialId: 'AuthMethod:A' });
    await expect(addSession(ctx, await readSnapshot(inner.meta, ACCOUNT), made, keys[5]!)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(svc.ended.map((c) => [c.id, c.key])).toEqual([[made.id, keys[5]!.publicKeyHex]]);
    expect(await inner.get(keys[5]!.publicKeyHex)).toBeUndefined();
  });

  it('a lost race whose key cannot be deleted: still NOT_LOGGED_IN, its pending end dropped (the service ended it)', async () => {
    const inner = newKeyStore();
    await storeState(inner, keys, [sessionOf(keys, 0)]);
    const keyStore = faulty(inner, () => false, {
      delete: async () => {
        throw new WalletError('STORAGE_ERROR', 'fixture: cannot delete');
      },
    });
    const ctx = contextOf(keyStore, scriptedService({}));
    const snap = await readSnapshot(inner.meta, ACCOUNT);
    const ticket = ticketOf(snap.logoutNonce);
    await requestLogout(inner.meta, ACCOUNT);
    await expect(addSession(ctx, snap, sessionOf(keys, 5), keys[5]!, ticket)).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(await readEnding(inner.meta, ACCOUNT)).toEqual([]);
  });

  it('a lost race whose pending end cannot be dropped: still NOT_LOGGED_IN', async () => {
    const inner = newKeyStore();
    await storeState(inner, keys, [sessionOf(keys, 0)]);
    let endingWrites = 0;
    const keyStore = faulty(inner, (name) => name.startsWith(ENDING_PREFIX) && ++endingWrites > 1);
    const svc = scriptedService({});
    const ctx = contextOf(keyStore, svc);
    const snap = await readSnapshot(inner.meta, ACCOUNT);
    const ticket = ticketOf(snap.logoutNonce);
    await requestLogout(inner.meta, ACCOUNT);
    await expect(addSession(ctx, snap, sessionOf(keys, 5), keys[5]!, ticket)).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(svc.ended.map((c) => c.id)).toEqual(['Session:5']);
  });

  it('the last account cannot be written: the login is committed all the same', async () => {
    const inner = newKeyStore();
    const keyStore = faulty(inner, (name) => name === LAST_ACCOUNT);
    const ctx = contextOf(keyStore, scriptedService({}));
    const made = sessionOf(keys, 5);
    expect(await addSession(ctx, await readSnapshot(inner.meta, ACCOUNT), made, keys[5]!)).toBe(false);
    expect((await readSnapshot(inner.meta, ACCOUNT)).state.current).toBe(made.id);
    expect(ctx.view.get(ACCOUNT).current).toBe(made.id);
    expect(ctx.posted).toEqual([ACCOUNT]);
  });

  it('a replaced session’s key, once another tab ended it, is not served from this tab’s cache', async () => {
    const backend = createMemoryBackend();
    const tabA = createKeyStore({ backend });
    const tabB = createKeyStore({ backend });
    const old = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    await storeState(tabA, keys, [old]);
    expect(await tabA.get(old.publicKeyHex)).toBeDefined(); // cached in A
    const ctx = contextOf(tabA, scriptedService({}));
    expect(await addSession(ctx, await readSnapshot(tabA.meta, ACCOUNT), sessionOf(keys, 5, { credentialId: 'AuthMethod:A' }), keys[5]!)).toBe(true);
    // Tab B finishes the pending end: the key goes from storage.
    expect(await tabB.delete(old.publicKeyHex)).toBe(true);
    expect(await tabA.get(old.publicKeyHex)).toBeUndefined();
  });
});

describe('removeEnding', () => {
  it('takes one session off the pending ends, leaves the others and an account without any alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(['Session:1', 'Session:2', 'Session:3']), fc.constantFrom('Session:1', 'Session:2', 'Session:4'), async (listed, id) => {
        const keyStore = newKeyStore();
        const list = listed.map((s) => ({ id: s, publicKeyHex: `02${'ab'.repeat(32)}`, expiresAt: new Date(T0).toISOString() }));
        await writeEnding(keyStore.meta, ACCOUNT, list);
        await removeEnding(contextOf(keyStore, scriptedService({})), ACCOUNT, id);
        expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual(list.filter((e) => e.id !== id));
        // Nothing left: no record at all (not an empty list).
        expect((await keyStore.meta.list()).some(([name]) => name === ENDING_PREFIX + ACCOUNT)).toBe(list.some((e) => e.id !== id));
      }),
      { numRuns: 40 },
    );
  });

  it('writes nothing when the session is not listed (a store that cannot be written is not touched)', async () => {
    const inner = newKeyStore();
    await writeEnding(inner.meta, ACCOUNT, [{ id: 'Session:1', publicKeyHex: 'x', expiresAt: 'y' }]);
    const keyStore = faulty(inner, () => true);
    await expect(removeEnding(contextOf(keyStore, scriptedService({})), ACCOUNT, 'Session:9')).resolves.toBeUndefined();
    await expect(removeEnding(contextOf(keyStore, scriptedService({})), 'InternalAccount:none', 'Session:1')).resolves.toBeUndefined();
  });
});

describe('sessionFromAnswer: the record a service answer makes', () => {
  it('drawn answers: the answer’s type, account and createdAt when usable, else what the flow knows', () => {
    const other: CredentialType[] = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'];
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...CREDENTIAL_TYPES), fc.constantFrom('WALLET', '', 'email_otp'), fc.constant(undefined)),
        fc.oneof(fc.constantFrom('InternalAccount:answer', ''), fc.constant(undefined), fc.constant(7)),
        fc.oneof(fc.constant(new Date(T0 - 5000).toISOString()), fc.constantFrom('yesterday', ''), fc.constant(undefined)),
        fc.constantFrom(...other),
        fc.constantFrom(true, false, undefined),
        fc.integer({ min: T0 - 10_000_000, max: T0 + 10_000_000 }),
        (type, accountId, createdAt, knownType, legacy, serverNow) => {
          const answer = { id: 'Session:new', expiresAt: new Date(T0 + LIFETIME_MS).toISOString(), type, accountId, createdAt } as never;
          const known = { accountId: ACCOUNT, credentialId: 'AuthMethod:k', credentialType: knownType, publicKeyHex: keys[5]!.publicKeyHex, legacy };
          const s = sessionFromAnswer(answer, known, serverNow);
          const expected: Session = {
            id: 'Session:new',
            accountId: typeof accountId === 'string' && accountId !== '' ? accountId : ACCOUNT,
            credentialId: 'AuthMethod:k',
            credentialType: typeof type === 'string' && (CREDENTIAL_TYPES as readonly string[]).includes(type) ? (type as CredentialType) : knownType,
            publicKeyHex: keys[5]!.publicKeyHex,
            expiresAt: new Date(T0 + LIFETIME_MS).toISOString(),
            createdAt: createdAt !== undefined && Number.isFinite(Date.parse(createdAt)) ? createdAt : new Date(serverNow).toISOString(),
          };
          if (legacy === true) expected.legacy = true;
          expect(s).toStrictEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** adopt's dependencies over a key store, recording what the manager would be told. */
function adoptDeps(keyStore: KeyStore, log: string[], ensureLoaded: () => Promise<void> = async () => undefined): AdoptDeps {
  const run = runIn(keyStore);
  return {
    ensureLoaded: async () => {
      log.push('loaded');
      await ensureLoaded();
    },
    run: async (accountId, fn) => {
      log.push(`run:${accountId}`);
      return run(accountId, fn);
    },
    adopted: (accountId, replaced) => void log.push(`adopted:${accountId}:${replaced}`),
  };
}

describe('adopt: checks the session and its key, then commits in the section', () => {
  it('a session that is not one, or a key that is not its key: INVALID_ARGUMENT, nothing loaded or stored', async () => {
    const good = sessionOf(keys, 5);
    const cases: Array<[unknown, unknown]> = [
      [{ ...good, credentialType: 'WALLET' }, keys[5]],
      [{ ...good, expiresAt: 'soon' }, keys[5]],
      [null, keys[5]],
      [good, keys[4]],
      [good, null],
      [good, undefined],
      [good, 'key'],
      [good, { publicKeyHex: undefined }],
    ];
    for (const [session, key] of cases) {
      const keyStore = newKeyStore();
      const log: string[] = [];
      const e = await adopt(contextOf(keyStore, scriptedService({})), session as Session, key as SessionKey, undefined, adoptDeps(keyStore, log)).catch((x: unknown) => x);
      expect(isWalletError(e, 'INVALID_ARGUMENT')).toBe(true);
      expect((e as WalletError).message).toMatch(session === good ? /key/ : /session/);
      expect(log).toEqual([]);
      expect(await keyStore.list()).toEqual([]);
    }
  });

  it('loads first, commits the checked copy (foreign fields left behind), then tells the manager whether it replaced', async () => {
    const keyStore = newKeyStore();
    const old = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    await storeState(keyStore, keys, [old]);
    const log: string[] = [];
    const made = { ...sessionOf(keys, 5, { credentialId: 'AuthMethod:A' }), extra: 'x' } as Session;
    await adopt(contextOf(keyStore, scriptedService({})), made, keys[5]!, undefined, adoptDeps(keyStore, log));
    expect(log).toEqual(['loaded', `run:${ACCOUNT}`, `adopted:${ACCOUNT}:true`]);
    const stored = (await readSnapshot(keyStore.meta, ACCOUNT)).state;
    expect(stored.sessions).toEqual([sessionOf(keys, 5, { credentialId: 'AuthMethod:A' })]);
    const log2: string[] = [];
    await adopt(contextOf(keyStore, scriptedService({})), sessionOf(keys, 6, { credentialId: 'AuthMethod:B' }), keys[6]!, undefined, adoptDeps(keyStore, log2));
    expect(log2).toEqual(['loaded', `run:${ACCOUNT}`, `adopted:${ACCOUNT}:false`]);
  });

  it('a load that fails: nothing committed', async () => {
    const keyStore = newKeyStore();
    const log: string[] = [];
    const deps = adoptDeps(keyStore, log, async () => {
      throw new WalletError('NETWORK_ERROR', 'chunk');
    });
    await expect(adopt(contextOf(keyStore, scriptedService({})), sessionOf(keys, 5), keys[5]!, undefined, deps)).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(log).toEqual(['loaded']);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
  });
});

describe('establish: a login’s answer is committed, or the session it made is ended (I5)', () => {
  const answerOf = (i: number, over: Record<string, unknown> = {}) => ({
    id: `Session:${i}`,
    accountId: ACCOUNT,
    type: 'EMAIL_OTP',
    createdAt: new Date(T0 + 3_600_000).toISOString(),
    expiresAt: new Date(T0 + 3_600_000 + LIFETIME_MS).toISOString(),
    ...over,
  });
  const knownOf = (i: number, ticket?: LoginTicket) => ({ accountId: ACCOUNT, credentialId: 'AuthMethod:A', credentialType: 'EMAIL_OTP' as const, key: keys[i]!, ...(ticket && { ticket }) });

  it('commits the answer: its server time observed, the record built from it and the flow', async () => {
    const keyStore = newKeyStore();
    const log: string[] = [];
    const ctx = contextOf(keyStore, scriptedService({}));
    const s = await establish(ctx, answerOf(5, { createdAt: undefined }), knownOf(5), adoptDeps(keyStore, log));
    // No createdAt in the answer: the server clock's estimate (the local clock here) stands in.
    expect(s.createdAt).toBe(new Date(T0).toISOString());
    const s2 = await establish(ctx, answerOf(6), knownOf(6), adoptDeps(keyStore, log));
    // The answer's createdAt, an hour ahead of the local clock: the estimate follows it.
    expect(s2).toMatchObject({ id: 'Session:6', createdAt: new Date(T0 + 3_600_000).toISOString(), publicKeyHex: keys[6]!.publicKeyHex, credentialId: 'AuthMethod:A' });
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(T0 + 3_600_000);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.current).toBe('Session:6');
  });

  it('an answer that is not a session: BAD_RESPONSE, nothing ended (no session to end)', async () => {
    const keyStore = newKeyStore();
    const svc = scriptedService({});
    await expect(establish(contextOf(keyStore, svc), { id: '' }, knownOf(5), adoptDeps(keyStore, []))).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    expect(svc.ended).toEqual([]);
  });

  it('the login’s ticket counts for its own account only; a logout since then wins (ended once, by the commit)', async () => {
    for (const sameAccount of [true, false]) {
      const keyStore = newKeyStore();
      await storeState(keyStore, keys, [sessionOf(keys, 0)]);
      const snap = await readSnapshot(keyStore.meta, ACCOUNT);
      const ticket = ticketOf(snap.logoutNonce, sameAccount ? ACCOUNT : 'InternalAccount:other');
      await requestLogout(keyStore.meta, ACCOUNT);
      const svc = scriptedService({});
      const p = establish(contextOf(keyStore, svc), answerOf(5), knownOf(5, ticket), adoptDeps(keyStore, []));
      if (sameAccount) {
        await expect(p).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
        expect(svc.ended.map((c) => [c.id, c.key])).toEqual([['Session:5', keys[5]!.publicKeyHex]]);
      } else {
        await expect(p).resolves.toMatchObject({ id: 'Session:5' });
        expect(svc.ended).toEqual([]);
      }
    }
  });

  it('any other failure after the service made the session: ended with its own key, or a pending end when unreachable (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ANSWERS), fc.constantFrom('load', 'type'), async (endAnswer, how) => {
        const keyStore = newKeyStore();
        const svc = scriptedService({ endAnswer: () => endAnswer });
        const log: string[] = [];
        const deps = adoptDeps(keyStore, log, async () => {
          if (how === 'load') throw new WalletError('NETWORK_ERROR', 'chunk');
        });
        // 'type': the flow names no credential type the answer lacks: the record is not a Session.
        const known = how === 'type' ? { ...knownOf(5), credentialType: 'WALLET' as CredentialType } : knownOf(5);
        const e = await establish(contextOf(keyStore, svc), answerOf(5, how === 'type' ? { type: undefined } : {}), known, deps).catch((x: unknown) => x);
        expect(isWalletError(e, how === 'load' ? 'NETWORK_ERROR' : 'INVALID_ARGUMENT')).toBe(true);
        expect(svc.ended.map((c) => [c.id, c.key, c.approved])).toEqual([['Session:5', keys[5]!.publicKeyHex, true]]);
        const ending = await readEnding(keyStore.meta, ACCOUNT);
        expect(ending).toEqual(settles(endAnswer) ? [] : [{ id: 'Session:5', publicKeyHex: keys[5]!.publicKeyHex, expiresAt: answerOf(5).expiresAt }]);
        expect(log.filter((l) => l.startsWith('run:'))).toEqual(settles(endAnswer) ? [] : [`run:${ACCOUNT}`]);
        expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('a pending end that cannot be written: the error stands', async () => {
    const inner = newKeyStore();
    const keyStore = faulty(inner, (name) => name.startsWith(ENDING_PREFIX));
    const svc = scriptedService({ endAnswer: () => 'offline' });
    const deps = adoptDeps(keyStore, [], async () => {
      throw new WalletError('NETWORK_ERROR', 'chunk');
    });
    await expect(establish(contextOf(keyStore, svc), answerOf(5), knownOf(5), deps)).rejects.toMatchObject({ code: 'NETWORK_ERROR', message: 'chunk' });
  });
});
