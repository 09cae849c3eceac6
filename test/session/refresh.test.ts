// changes.ts `refreshSession` on its own (no sandbox): the refresh of the current session with a new
// key, signed by the old one after the prompt (re-checked then: same session current, same logout
// nonce, I2), committed in the section only from what it started from; a commit that cannot happen
// undoes it (the new session ended with its own key, or a pending end when unreachable, never a
// prompt). fast-check draws what happens while the refresh is on its way (a logout, another refresh,
// nothing), where (before the signature, after the answer), the plan's fate and the service's answers;
// the oracle is written out beside each property. Real keys, in-memory key store, a scripted service.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { createKeyPlan } from '../../src/session/key-plan.js';
import { refreshSession, type RefreshDeps } from '../../src/session/changes.js';
import { ACCOUNT_PREFIX, ENDING_PREFIX, commitState, readEnding, readSnapshot, requestLogout } from '../../src/session/state.js';
import type { KeyPlan } from '../../src/session/types.js';
import type { AuthSession } from '../../src/types.js';
import { failure, faulty, scriptedService, type Answer } from './changes-fixture.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, makeKeys, newKeyStore, runIn, sessionOf, storeState, type Ctx } from './ops-fixture.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(6);
});

const settles = (a: Answer): boolean => a === 'ok' || a === 'gone' || a === 'notFound';
const ANSWERS: Answer[] = ['ok', 'gone', 'refused', 'notFound', 'loginRequired', 'forbidden', 'offline', 'busy', 'server'];
const ANSWER_AT = T0 + 120_000;

function answerFor(id: string, over: Partial<AuthSession> = {}): AuthSession {
  return {
    id,
    accountId: ACCOUNT,
    type: 'EMAIL_OTP',
    nickname: '',
    createdAt: new Date(ANSWER_AT).toISOString(),
    updatedAt: new Date(ANSWER_AT).toISOString(),
    expiresAt: new Date(ANSWER_AT + LIFETIME_MS).toISOString(),
    ...over,
  } as AuthSession;
}

/** The refresh's dependencies over a key store: `run` without a lock, the picture read from storage. */
function depsOf(keyStore: KeyStore, over: Partial<RefreshDeps> = {}, calls: string[] = []): RefreshDeps {
  return {
    accountId: ACCOUNT,
    plan: undefined,
    automatic: false,
    dueAt: (s) => Date.parse(s.expiresAt) - LIFETIME_MS / 3,
    run: runIn(keyStore, calls),
    observe: (a) => readSnapshot(keyStore.meta, a),
    ...over,
  };
}

/** A context whose host makes real key plans (and counts them), failures recorded. */
function ctxOf(keyStore: KeyStore, svc: ReturnType<typeof scriptedService>): Ctx & { plans: number; failed: Array<[string, string]> } {
  const ctx = contextOf(keyStore, svc) as Ctx & { plans: number; failed: Array<[string, string]> };
  ctx.plans = 0;
  ctx.failed = [];
  ctx.host = {
    newKeyPlan: async () => {
      ctx.plans++;
      return createKeyPlan();
    },
  } as never;
  ctx.refreshFailed = (s, e) => void ctx.failed.push([s.id, e.code]);
  return ctx;
}

describe('refreshSession: the current session, refreshed with a new key, committed from what it started from', () => {
  it('commits: the new session current with its own key, the old one a pending end until retired', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0, { credentialId: 'AuthMethod:A', credentialType: 'PASSKEY' });
    const other = sessionOf(keys, 1, { credentialId: 'AuthMethod:B' });
    await storeState(keyStore, keys, [cur, other]);
    const svc = scriptedService({
      onRefresh: async ({ signer }) => {
        await signer();
        return answerFor('Session:new', { type: 'OAUTH' as never });
      },
    });
    const ctx = ctxOf(keyStore, svc);
    const calls: string[] = [];
    const { session, retire } = await refreshSession(ctx, depsOf(keyStore, {}, calls));
    expect(ctx.plans).toBe(1);
    // The refresh was signed by the old session's key, for the new key's public key.
    expect(svc.refreshed).toEqual([{ id: cur.id, clientPublicKey: session.publicKeyHex, key: cur.publicKeyHex, automatic: false }]);
    expect(session).toMatchObject({ id: 'Session:new', accountId: ACCOUNT, credentialId: 'AuthMethod:A', credentialType: 'OAUTH', createdAt: new Date(ANSWER_AT).toISOString() });
    expect(session.legacy).toBeUndefined();
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(ANSWER_AT);
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(snap.state).toMatchObject({ current: 'Session:new', change: 'refresh', generation: 2, sessions: [other, session] });
    expect(await keyStore.get(session.publicKeyHex)).toMatchObject({ purpose: 'session', accountId: ACCOUNT, sessionId: 'Session:new' });
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([{ id: cur.id, publicKeyHex: cur.publicKeyHex, expiresAt: cur.expiresAt }]);
    expect(await keyStore.get(cur.publicKeyHex)).toBeDefined();
    expect(ctx.view.get(ACCOUNT).current).toBe('Session:new');
    expect(ctx.posted).toEqual([ACCOUNT]);
    expect(svc.ended).toEqual([]);
    expect(ctx.failed).toEqual([]);
    // The retire: the old session ended with its own key (no prompt), its key and pending end gone.
    await retire!();
    expect(svc.ended.map((c) => [c.id, c.key, c.approved])).toEqual([[cur.id, cur.publicKeyHex, true]]);
    expect(await keyStore.get(cur.publicKeyHex)).toBeUndefined();
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
    expect(calls.every((a) => a === ACCOUNT)).toBe(true);
  });

  it('with the caller’s plan (legacy): no new plan made, the record says legacy', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    const plan: KeyPlan = { clientPublicKey: `04${'cd'.repeat(64)}`, legacy: true, finish: async () => keys[3]! };
    const svc = scriptedService({ onRefresh: async ({ signer }) => (await signer(), answerFor('Session:new')) });
    const ctx = ctxOf(keyStore, svc);
    const { session } = await refreshSession(ctx, depsOf(keyStore, { plan }));
    expect(ctx.plans).toBe(0);
    expect(svc.refreshed[0]!.clientPublicKey).toBe(plan.clientPublicKey);
    expect(session).toMatchObject({ legacy: true, publicKeyHex: keys[3]!.publicKeyHex });
  });

  it('no current session: the manager’s error, nothing asked', async () => {
    const keyStore = newKeyStore();
    const svc = scriptedService({});
    const ctx = ctxOf(keyStore, svc);
    await expect(refreshSession(ctx, depsOf(keyStore))).rejects.toMatchObject({ code: 'NOT_LOGGED_IN', message: 'fixture: no session' });
    await storeState(keyStore, keys, [sessionOf(keys, 0)], { current: null });
    await expect(refreshSession(ctx, depsOf(keyStore))).rejects.toMatchObject({ code: 'NOT_LOGGED_IN', message: 'fixture: no session' });
    expect(svc.refreshed).toEqual([]);
  });

  it('automatic: only once due (drawn instants around the refresh point), else the current session as it is', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -3, max: 3 }), fc.boolean(), async (delta, automatic) => {
        const keyStore = newKeyStore();
        const cur = sessionOf(keys, 0);
        await storeState(keyStore, keys, [cur]);
        const svc = scriptedService({ onRefresh: async ({ signer }) => (await signer(), answerFor('Session:new')) });
        const dueAt = T0 + 600_000;
        const ctx = contextOf(keyStore, svc, () => dueAt + delta);
        (ctx as Ctx).host = { newKeyPlan: () => createKeyPlan() } as never;
        const out = await refreshSession(ctx, depsOf(keyStore, { automatic, dueAt: () => dueAt }));
        const refreshed = !automatic || delta >= 0;
        expect(out.session.id).toBe(refreshed ? 'Session:new' : cur.id);
        expect(out.retire === undefined).toBe(!refreshed);
        expect(svc.refreshed.map((c) => c.automatic)).toEqual(refreshed ? [automatic] : []);
      }),
      { numRuns: 30 },
    );
  });

  it('a logout pending: NOT_LOGGED_IN before anything is asked', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    await requestLogout(keyStore.meta, ACCOUNT);
    const svc = scriptedService({});
    const calls: string[] = [];
    await expect(refreshSession(ctxOf(keyStore, svc), depsOf(keyStore, {}, calls))).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(calls).toEqual([]);
    expect(svc.refreshed).toEqual([]);
  });

  it('the current session’s key is gone: KEY_EVICTED, the session dropped, nothing asked', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur, sessionOf(keys, 1)], {}, (s) => s.id !== cur.id);
    const svc = scriptedService({});
    const ctx = ctxOf(keyStore, svc);
    await expect(refreshSession(ctx, depsOf(keyStore))).rejects.toMatchObject({ code: 'KEY_EVICTED' });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual(['Session:1']);
    expect(svc.refreshed).toEqual([]);
    expect(ctx.plans).toBe(0);
  });

  it('another session, or none, became current between the look and the section: the manager’s error', async () => {
    for (const then of ['Session:1', null]) {
      const keyStore = newKeyStore();
      await storeState(keyStore, keys, [sessionOf(keys, 0), sessionOf(keys, 1)]);
      const svc = scriptedService({});
      const ctx = ctxOf(keyStore, svc);
      const base = runIn(keyStore);
      const run: RefreshDeps['run'] = async (a, fn) => {
        const snap = await readSnapshot(keyStore.meta, a);
        await commitState(keyStore.meta, snap, { sessions: then === null ? [] : snap.state.sessions, current: then, change: 'refresh' });
        return base(a, fn);
      };
      await expect(refreshSession(ctx, depsOf(keyStore, { run }))).rejects.toMatchObject({ code: 'NOT_LOGGED_IN', message: 'fixture: no session' });
      expect(svc.refreshed).toEqual([]);
    }
  });
});

type Meanwhile = 'nothing' | 'logout' | 'loggedOut' | 'refreshed' | 'ended';

/** What another tab does while the refresh is on its way. */
async function happen(keyStore: KeyStore, what: Meanwhile): Promise<void> {
  const snap = await readSnapshot(keyStore.meta, ACCOUNT);
  if (what === 'logout') await requestLogout(keyStore.meta, ACCOUNT);
  else if (what === 'loggedOut') {
    // A logout requested and carried out (another tab): a new nonce, nothing pending, nothing held.
    await requestLogout(keyStore.meta, ACCOUNT);
    await commitState(keyStore.meta, await readSnapshot(keyStore.meta, ACCOUNT), { sessions: [], current: null, change: 'logout' }, { ignoreLogout: true });
  } else if (what === 'refreshed') {
    const k = keys[4]!;
    await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: 'Session:4' });
    await commitState(keyStore.meta, snap, { sessions: [...snap.state.sessions.slice(1), sessionOf(keys, 4)], current: 'Session:4', change: 'refresh' });
  } else if (what === 'ended') await commitState(keyStore.meta, snap, { sessions: snap.state.sessions.slice(1), current: snap.state.sessions[1]?.id ?? null, change: 'revoked' });
}

describe('refreshSession: what happens meanwhile decides (drawn)', () => {
  it('before the signature, after the answer, or never × the plan × the undo’s answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Meanwhile>('nothing', 'logout', 'loggedOut', 'refreshed', 'ended'),
        fc.constantFrom<'before-sign' | 'after-answer'>('before-sign', 'after-answer'),
        fc.constantFrom<'ok' | 'fails'>('ok', 'fails'),
        fc.constantFrom(...ANSWERS),
        fc.boolean(),
        async (what, when, planFate, endAnswer, withOther) => {
          const keyStore = newKeyStore();
          const cur = sessionOf(keys, 0);
          const held = withOther ? [cur, sessionOf(keys, 1)] : [cur];
          await storeState(keyStore, keys, held);
          const newKey = keys[3]!;
          const plan: KeyPlan = {
            clientPublicKey: newKey.publicKeyHex,
            legacy: false,
            finish: async () => {
              if (planFate === 'fails') throw new WalletError('BAD_RESPONSE', 'cannot open');
              return newKey;
            },
          };
          const svc = scriptedService({
            endAnswer: () => endAnswer,
            onRefresh: async ({ signer }) => {
              if (when === 'before-sign') await happen(keyStore, what);
              await signer();
              if (when === 'after-answer') await happen(keyStore, what);
              return answerFor('Session:new');
            },
          });
          const ctx = ctxOf(keyStore, svc);
          const before = await readSnapshot(keyStore.meta, ACCOUNT);
          const out = await refreshSession(ctx, depsOf(keyStore, { plan })).then(
            (r) => ({ r }),
            (e: unknown) => ({ e }),
          );
          const after = await readSnapshot(keyStore.meta, ACCOUNT);
          const ending = await readEnding(keyStore.meta, ACCOUNT);
          if (when === 'before-sign' && what !== 'nothing') {
            // Re-checked after the prompt: nothing is signed or sent.
            const code = what === 'logout' || what === 'loggedOut' ? 'NOT_LOGGED_IN' : 'ABORTED';
            expect('e' in out && isWalletError(out.e, code)).toBe(true);
            expect(svc.refreshed[0]!.key).toBeUndefined();
            expect(svc.ended).toEqual([]);
            expect(ctx.failed).toEqual([]);
            expect(ending).toEqual([]);
            return;
          }
          expect(svc.refreshed[0]!.key).toBe(cur.publicKeyHex);
          const commits = what === 'nothing' && planFate === 'ok';
          if (commits) {
            expect('r' in out && out.r.session.id).toBe('Session:new');
            expect(after.state.current).toBe('Session:new');
            expect(after.state.generation).toBe(before.state.generation + 1);
            expect(ending.map((e) => e.id)).toEqual([cur.id]);
            expect(svc.ended).toEqual([]);
            return;
          }
          // Undone, and failed with why: a logout (NOT_LOGGED_IN), the session refreshed or ended
          // meanwhile (ABORTED), else the plan's own error (still logged in). The new session ended
          // with its own key (the old one's when the plan failed: there is no new key), never a
          // prompt; nothing committed by the refresh.
          const why = planFate === 'fails' ? 'BAD_RESPONSE' : what === 'logout' || what === 'loggedOut' ? 'NOT_LOGGED_IN' : 'ABORTED';
          expect('e' in out && isWalletError(out.e, why)).toBe(true);
          expect(after.state.sessions.some((s) => s.id === 'Session:new')).toBe(false);
          expect(ctx.failed).toEqual([]);
          const signedBy = planFate === 'ok' ? newKey.publicKeyHex : cur.publicKeyHex;
          expect(svc.ended.map((c) => [c.id, c.key, c.approved, c.automatic])).toEqual([['Session:new', signedBy, true, true]]);
          // The old session is not to be ended by this refresh.
          expect(ending.some((e) => e.id === cur.id)).toBe(false);
          if (planFate === 'ok') {
            const stillKey = await keyStore.get(newKey.publicKeyHex);
            if (settles(endAnswer)) {
              expect(stillKey).toBeUndefined();
              expect(ending).toEqual([]);
            } else {
              expect(stillKey).toBeDefined();
              expect(ending).toEqual([{ id: 'Session:new', publicKeyHex: newKey.publicKeyHex, expiresAt: answerFor('Session:new').expiresAt }]);
            }
          } else expect(ending).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a commit refused for a stale generation (a commit landed in between): undone, the old session not made a pending end', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const base = runIn(keyStore);
    let runs = 0;
    // The section's second entry (the commit) gets a snapshot another commit made stale meanwhile.
    const run: RefreshDeps['run'] = async (a, fn) => {
      if (++runs < 2) return base(a, fn);
      const snap = await readSnapshot(keyStore.meta, a);
      await commitState(keyStore.meta, snap, { sessions: snap.state.sessions, current: snap.state.current, change: 'login' });
      return fn(snap);
    };
    const svc = scriptedService({ onRefresh: async ({ signer }) => (await signer(), answerFor('Session:new')) });
    const ctx = ctxOf(keyStore, svc);
    await expect(refreshSession(ctx, depsOf(keyStore, { run, plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } }))).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
    expect(svc.ended.map((c) => [c.id, c.key])).toEqual([['Session:new', keys[3]!.publicKeyHex]]);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.current).toBe(cur.id);
    expect(ctx.posted).toEqual([]);
  });

  it('a commit that fails in storage: undone with that error (still logged in), the old session stays current and is not to be ended', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const failing = faulty(keyStore, (name) => name.startsWith(ACCOUNT_PREFIX));
    const svc = scriptedService({ onRefresh: async ({ signer }) => (await signer(), answerFor('Session:new')) });
    const ctx = ctxOf(failing, svc);
    await expect(refreshSession(ctx, depsOf(failing, { plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } }))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(await readEnding(keyStore.meta, ACCOUNT)).toEqual([]);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.current).toBe(cur.id);
    expect(await keyStore.get(cur.publicKeyHex)).toBeDefined();
    expect(await keyStore.get(keys[3]!.publicKeyHex)).toBeUndefined();
    // The pending end of the old session was written, then taken back.
    expect((await keyStore.meta.list()).some(([n]) => n === ENDING_PREFIX + ACCOUNT)).toBe(false);
  });
});

describe('refreshSession: the undo goes on when storage fails under it', () => {
  const plan = (): KeyPlan => ({ clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! });
  async function lostRace(endAnswer: Answer, over: Partial<KeyStore>, failEnding: boolean) {
    const inner = newKeyStore();
    await storeState(inner, keys, [sessionOf(keys, 0)]);
    const keyStore = faulty(inner, (name) => failEnding && name.startsWith(ENDING_PREFIX), over);
    const svc = scriptedService({
      endAnswer: () => endAnswer,
      onRefresh: async ({ signer }) => {
        await signer();
        await requestLogout(inner.meta, ACCOUNT);
        return answerFor('Session:new');
      },
    });
    const e = await refreshSession(ctxOf(keyStore, svc), depsOf(keyStore, { plan: plan() })).catch((x: unknown) => x);
    return { e, svc, inner };
  }

  it('the new key cannot be deleted after its end: NOT_LOGGED_IN all the same', async () => {
    const { e, svc } = await lostRace('ok', { delete: async () => Promise.reject(new WalletError('STORAGE_ERROR', 'fixture')) }, false);
    expect(e).toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(svc.ended.map((c) => c.id)).toEqual(['Session:new']);
  });

  it('unreachable, and its pending end cannot be written: NOT_LOGGED_IN all the same, the key kept', async () => {
    const { e, svc, inner } = await lostRace('offline', {}, true);
    expect(e).toMatchObject({ code: 'NOT_LOGGED_IN' });
    expect(svc.ended.map((c) => c.id)).toEqual(['Session:new']);
    expect(await inner.get(keys[3]!.publicKeyHex)).toBeDefined();
  });
});

describe('refreshSession: the replaced key in this tab’s cache', () => {
  it('once another tab ended the replaced session, its key is not served from this tab’s cache', async () => {
    const backend = createMemoryBackend();
    const tabA = createKeyStore({ backend });
    const tabB = createKeyStore({ backend });
    const cur = sessionOf(keys, 0);
    await storeState(tabA, keys, [cur]);
    expect(await tabA.get(cur.publicKeyHex)).toBeDefined();
    const svc = scriptedService({ onRefresh: async ({ signer }) => (await signer(), answerFor('Session:new')) });
    await refreshSession(ctxOf(tabA, svc), depsOf(tabA, { plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } }));
    expect(await tabB.delete(cur.publicKeyHex)).toBe(true);
    expect(await tabA.get(cur.publicKeyHex)).toBeUndefined();
  });
});

describe('refreshSession: a refused refresh (I6)', () => {
  it('drawn service errors × what the service lists: judged in the section, refresh-failed told (but for a logout or abort)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Answer | 'loggedOut' | 'aborted' | 'plain'>('refused', 'notFound', 'offline', 'busy', 'server', 'loggedOut', 'aborted', 'plain'),
        fc.boolean(),
        fc.boolean(),
        async (answer, listed, expired) => {
          const keyStore = newKeyStore();
          const cur = sessionOf(keys, 0);
          await storeState(keyStore, keys, [cur, sessionOf(keys, 1, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() })]);
          const now = expired ? T0 + LIFETIME_MS + 1 : T0;
          const error = answer === 'loggedOut' ? new WalletError('NOT_LOGGED_IN', 'x') : answer === 'aborted' ? new WalletError('ABORTED', 'x') : answer === 'plain' ? new TypeError('x') : failure(answer as Exclude<Answer, 'ok' | 'gone'>);
          const svc = scriptedService({
            listed: () => (listed ? [cur.id, 'Session:1'] : ['Session:1']),
            onRefresh: async ({ signer }) => {
              await signer();
              throw error;
            },
          });
          const ctx = ctxOf(keyStore, svc);
          (ctx as Ctx).clock = contextOf(keyStore, svc, () => now).clock;
          // An expired current session is asked about first (keyIn): keep it listed then, so the refresh goes on.
          const e = await refreshSession(ctx, depsOf(keyStore, { plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } })).catch((x: unknown) => x);
          if (expired && !listed) {
            expect(isWalletError(e, 'SESSION_EXPIRED')).toBe(true);
            expect(svc.refreshed).toEqual([]);
            return;
          }
          const suspicious = answer === 'refused' || answer === 'notFound';
          const verdict = suspicious ? (expired ? 'SESSION_EXPIRED' : listed ? undefined : 'SESSION_REVOKED') : undefined;
          const remaining = (await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id);
          if (verdict) {
            expect(isWalletError(e, verdict)).toBe(true);
            expect((e as WalletError).cause).toBe(error);
            expect(remaining).toEqual(['Session:1']);
          } else {
            expect(e).toBe(error);
            expect(remaining).toEqual([cur.id, 'Session:1']);
          }
          const told = answer !== 'loggedOut' && answer !== 'aborted' && answer !== 'plain';
          expect(ctx.failed).toEqual(told ? [[cur.id, (e as WalletError).code]] : []);
          expect(svc.ended).toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a logout while the refresh was on the wire: its cancellation is what the caller gets', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    let ctx: ReturnType<typeof ctxOf> | undefined;
    const svc = scriptedService({
      onRefresh: async ({ signer, options }) => {
        await signer();
        // The logout (in any tab) cancels what is tracked under the old nonce…
        ctx!.cancellers.check(ACCOUNT, 'a-newer-nonce');
        expect(options?.signingSignal?.aborted).toBe(true);
        // …and the transport then fails the call its own way.
        throw new WalletError('NETWORK_ERROR', 'the request was cut');
      },
    });
    ctx = ctxOf(keyStore, svc);
    const e = await refreshSession(ctx, depsOf(keyStore, { plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } })).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'NOT_LOGGED_IN', message: 'a logout cancelled this operation' });
    expect(ctx.failed).toEqual([]);
    // Tracked while it ran, not after.
    expect(ctx.cancellers.accounts()).toEqual([]);
  });

  it('the refresh is tracked under the nonce it started with while it runs', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    await requestLogout(keyStore.meta, ACCOUNT);
    // The logout was carried out (a commit past its generation): a nonce, nothing pending.
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    await commitState(keyStore.meta, snap, { sessions: snap.state.sessions, current: snap.state.current, change: 'login' }, { ignoreLogout: true });
    const nonce = (await readSnapshot(keyStore.meta, ACCOUNT)).logoutNonce;
    let ctx: ReturnType<typeof ctxOf> | undefined;
    let seen: { accounts: string[]; abortedBySame: boolean } | undefined;
    const svc = scriptedService({
      onRefresh: async ({ signer, options }) => {
        await signer();
        const accounts = ctx!.cancellers.accounts();
        ctx!.cancellers.check(ACCOUNT, nonce);
        seen = { accounts, abortedBySame: options?.signingSignal?.aborted === true };
        return answerFor('Session:new');
      },
    });
    ctx = ctxOf(keyStore, svc);
    await refreshSession(ctx, depsOf(keyStore, { plan: { clientPublicKey: 'x', legacy: false, finish: async () => keys[3]! } }));
    expect(seen).toEqual({ accounts: [ACCOUNT], abortedBySame: false });
    expect(ctx.cancellers.accounts()).toEqual([]);
  });
});
