// sign-out-others.ts on its own: the account's other sessions are listed under the locks (login lock
// exclusive, then the refresh lock, then the section: no login or refresh of this browser in flight
// can have its session taken for another device's), and ended outside every lock (each end is a
// signature the user may be asked to approve, I4), each signed by the session current when it is
// sent; a logout cancels what is not sent yet; a refused end is judged (I6) with the session that
// signed it. fast-check draws what the service lists and how it answers each end; the oracle is
// written out beside each property. Real keys, in-memory key store, a scripted service.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signerFromKey, type SessionKey, type Signer } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import type { CriticalSections } from '../../src/session/critical-section.js';
import { endOthers, othersOf, signOutOthers } from '../../src/session/sign-out-others.js';
import { readSnapshot, requestLogout } from '../../src/session/state.js';
import type { Session, SigningTicket } from '../../src/session/types.js';
import { failure, scriptedService, type Answer } from './changes-fixture.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, makeKeys, newKeyStore, runIn, sessionOf, storeState } from './ops-fixture.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(4);
});

describe('othersOf: the active sessions this browser does not hold, read in the section', () => {
  it('drawn lists: every listed session not held here, in the service’s order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('Session:0', 'Session:1', 'Session:7', 'Session:8', 'Session:9'), { maxLength: 6 }), fc.boolean(), async (listed, twoHeld) => {
        const keyStore = newKeyStore();
        const held = twoHeld ? [sessionOf(keys, 0), sessionOf(keys, 1)] : [sessionOf(keys, 0)];
        await storeState(keyStore, keys, held, twoHeld ? { current: 'Session:1' } : {});
        const svc = scriptedService({ listed: () => listed });
        const snap = await readSnapshot(keyStore.meta, ACCOUNT);
        const found = await othersOf(contextOf(keyStore, svc), snap);
        const mine = new Set(held.map((s) => s.id));
        expect(found.others.map((a) => a.id)).toEqual(listed.filter((id) => !mine.has(id)));
        expect(found.current).toEqual(twoHeld ? held[1] : held[0]);
        expect(found.logoutNonce).toBe(snap.logoutNonce);
      }),
      { numRuns: 50 },
    );
  });

  it('carries the logout nonce it read', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    const nonce = await requestLogout(keyStore.meta, ACCOUNT);
    const found = await othersOf(contextOf(keyStore, scriptedService({ listed: () => [] })), await readSnapshot(keyStore.meta, ACCOUNT));
    expect(found.logoutNonce).toBe(nonce);
  });

  it('no current session: the manager’s error; its key gone: KEY_EVICTED (dropped); nothing listed', async () => {
    const keyStore = newKeyStore();
    const svc = scriptedService({ listed: () => ['Session:9'] });
    await storeState(keyStore, keys, [sessionOf(keys, 0)], { current: null });
    await expect(othersOf(contextOf(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT))).rejects.toMatchObject({ message: 'fixture: no session' });
    const keyStore2 = newKeyStore();
    await storeState(keyStore2, keys, [sessionOf(keys, 0)], {}, () => false);
    await expect(othersOf(contextOf(keyStore2, svc), await readSnapshot(keyStore2.meta, ACCOUNT))).rejects.toMatchObject({ code: 'KEY_EVICTED' });
    expect((await readSnapshot(keyStore2.meta, ACCOUNT)).state.sessions).toEqual([]);
    expect(svc.listedAsked).toBe(0);
  });

  it('the list cannot be read: its error, judged (a refusal of the current session is I6’s to judge)', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    const svc = scriptedService({ listed: () => undefined });
    const e = await othersOf(contextOf(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT)).catch((x: unknown) => x);
    expect(isWalletError(e, 'NETWORK_ERROR')).toBe(true);
    // A refusal with the session expired meanwhile: the verdict, the session dropped.
    const ctx = contextOf(keyStore, { ...svc, list: async () => Promise.reject(new WalletError('WALLET_SIGNATURE_INVALID', 'no', { status: 401 })) }, () => T0 + LIFETIME_MS + 1);
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    // Expired by the estimate: keyIn asks the service first, which fails: the session is kept, then the list refusal is judged.
    const e2 = await othersOf(ctx, snap).catch((x: unknown) => x);
    expect(isWalletError(e2, 'SESSION_EXPIRED')).toBe(true);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
  });
});

/** What endOthers needs: a signer giving the session current now (changed by the test between ends). */
function signerDeps(keyStore: ReturnType<typeof newKeyStore>, pick: () => Session, asked: string[]) {
  return {
    signer: async (): Promise<{ session: Session; signer: Signer }> => {
      const s = pick();
      asked.push(s.id);
      return { session: s, signer: signerFromKey(keys[Number(s.id.split(':')[1])]!) };
    },
    run: runIn(keyStore),
  };
}

describe('endOthers: each end signed by the session current when it is sent; a refusal judged with that one', () => {
  it('drawn answers per other session: counts the ended, stops at the first failure with its (judged) error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Answer>('ok', 'gone', 'refused', 'offline', 'busy'), { maxLength: 5 }), fc.boolean(), async (answers, listedStill) => {
        const keyStore = newKeyStore();
        const cur = sessionOf(keys, 0);
        const next = sessionOf(keys, 1, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() });
        await storeState(keyStore, keys, [cur, next]);
        const others = answers.map((_, i) => ({ id: `Other:${i}`, accountId: ACCOUNT }) as never);
        const svc = scriptedService({ endAnswer: (id) => answers[Number(id.split(':')[1])]!, listed: () => (listedStill ? ['Session:1', 'Other:0'] : ['Other:0']) });
        const ctx = contextOf(keyStore, svc);
        const asked: string[] = [];
        // The session current changes after the first signature (a refresh): later ends are signed by the new one.
        const deps = signerDeps(keyStore, () => (asked.length === 0 ? cur : next), asked);
        const snap = await readSnapshot(keyStore.meta, ACCOUNT);
        const out = await endOthers(ctx, { others, current: cur, logoutNonce: snap.logoutNonce }, deps).then(
          (n) => ({ n }),
          (e: unknown) => ({ e }),
        );
        const firstFail = answers.findIndex((a) => a !== 'ok' && a !== 'gone');
        const sent = firstFail === -1 ? answers.length : firstFail + 1;
        expect(svc.ended.map((c) => c.id)).toEqual(answers.slice(0, sent).map((_, i) => `Other:${i}`));
        expect(svc.ended.map((c) => c.key)).toEqual(answers.slice(0, sent).map((_, i) => (i === 0 ? cur : next).publicKeyHex));
        // Each end: its prompt, not an approved or automatic one.
        expect(svc.ended.every((c) => !c.approved && !c.automatic && c.signal instanceof AbortSignal)).toBe(true);
        if (firstFail === -1) {
          expect(out).toEqual({ n: answers.filter((a) => a === 'ok').length });
        } else {
          const a = answers[firstFail]!;
          const by = firstFail === 0 ? cur : next;
          // A refusal (401) of a session the service no longer lists: revoked, dropped.
          const revoked = a === 'refused' && !(listedStill && by.id === 'Session:1');
          const e = 'e' in out ? out.e : undefined;
          if (revoked) {
            expect(isWalletError(e, 'SESSION_REVOKED')).toBe(true);
            expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual([cur, next].filter((s) => s.id !== by.id).map((s) => s.id));
          } else {
            expect(e).toEqual(failure(a as Exclude<Answer, 'ok' | 'gone'>));
            expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(2);
          }
        }
        expect(ctx.cancellers.accounts()).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('a logout while an end waits: the logout’s cancellation, the rest not sent', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const svc = scriptedService({ endAnswer: () => 'ok' });
    const ctx = contextOf(keyStore, svc);
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    let tracked: string[] = [];
    const deps = {
      signer: async () => {
        tracked = ctx.cancellers.accounts();
        // The logout (any tab) aborts what was tracked under the older nonce, then this signature fails.
        ctx.cancellers.check(ACCOUNT, 'newer');
        throw new WalletError('ABORTED', 'the prompt was cancelled');
      },
      run: runIn(keyStore),
    };
    const e = await endOthers(ctx, { others: [{ id: 'Other:0' }, { id: 'Other:1' }] as never, current: cur, logoutNonce: snap.logoutNonce }, deps).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'NOT_LOGGED_IN', message: 'a logout cancelled this operation' });
    expect(tracked).toEqual([ACCOUNT]);
    expect(svc.ended).toEqual([]);
    expect(ctx.cancellers.accounts()).toEqual([]);
  });

  it('tracked under the nonce it read: a check with that nonce cancels nothing', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const svc = scriptedService({ endAnswer: () => 'ok' });
    const ctx = contextOf(keyStore, svc);
    const asked: string[] = [];
    const deps = signerDeps(keyStore, () => {
      ctx.cancellers.check(ACCOUNT, 'the-nonce');
      return cur;
    }, asked);
    expect(await endOthers(ctx, { others: [{ id: 'Other:0' }, { id: 'Other:1' }] as never, current: cur, logoutNonce: 'the-nonce' }, deps)).toBe(2);
    expect(svc.ended.map((c) => c.signal?.aborted)).toEqual([false, false]);
  });

  it('nothing to end: 0, nothing signed', async () => {
    const keyStore = newKeyStore();
    const svc = scriptedService({});
    const asked: string[] = [];
    expect(await endOthers(contextOf(keyStore, svc), { others: [], current: sessionOf(keys, 0), logoutNonce: null }, signerDeps(keyStore, () => sessionOf(keys, 0), asked))).toBe(0);
    expect(asked).toEqual([]);
  });
});

/** Locks that record their order and depth; the signer records the depth it was asked at. */
function recordingSections(log: string[]): CriticalSections & { depth: () => number } {
  let depth = 0;
  const hold = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    log.push(`+${name}`);
    depth++;
    try {
      return await fn();
    } finally {
      depth--;
      log.push(`-${name}`);
    }
  };
  return {
    run: (a, fn) => hold(`run:${a}`, fn),
    logins: (a, mode, fn) => hold(`logins:${a}:${mode}`, fn),
    refreshing: (a, fn) => hold(`refreshing:${a}`, fn),
    depth: () => depth,
  };
}

describe('signOutOthers: listed under the locks, ended outside them (I4)', () => {
  it('lock order logins (exclusive) → refresh → section; every prompt after all are released; the ticket carries the nonce', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const nonce = await requestLogout(keyStore.meta, ACCOUNT);
    // Carried out already (a commit past it): a nonce, no logout pending.
    const snap = await readSnapshot(keyStore.meta, ACCOUNT);
    const { commitState } = await import('../../src/session/state.js');
    await commitState(keyStore.meta, snap, { sessions: snap.state.sessions, current: snap.state.current, change: 'login' }, { ignoreLogout: true });
    const log: string[] = [];
    const sections = recordingSections(log);
    const svc = scriptedService({ listed: () => ['Session:0', 'Other:1', 'Other:2'], endAnswer: () => 'ok' });
    const ctx = contextOf(keyStore, svc);
    const base = runIn(keyStore);
    const tickets: SigningTicket[] = [];
    const n = await signOutOthers(ctx, ACCOUNT, {
      sections,
      run: (a, fn) => sections.run(a, () => base(a, fn)),
      resolve: async (accountId, opts, ticket) => {
        expect(accountId).toBe(ACCOUNT);
        expect(opts).toBeUndefined();
        log.push(`prompt@${sections.depth()}`);
        tickets.push(ticket);
        return { session: cur, signer: signerFromKey(keys[0]!) };
      },
    });
    expect(n).toBe(2);
    expect(log).toEqual([`+logins:${ACCOUNT}:exclusive`, `+refreshing:${ACCOUNT}`, `+run:${ACCOUNT}`, `-run:${ACCOUNT}`, `-refreshing:${ACCOUNT}`, `-logins:${ACCOUNT}:exclusive`, 'prompt@0', 'prompt@0']);
    expect(tickets).toHaveLength(2);
    expect(tickets[0]).toMatchObject({ accountId: ACCOUNT, logoutNonce: nonce });
    expect(tickets[0]!.signal.aborted).toBe(false);
    expect(tickets[0]!.done()).toBeUndefined();
    expect(svc.ended.map((c) => c.id)).toEqual(['Other:1', 'Other:2']);
  });

  it('a refused end is judged in the section with the session that signed it', async () => {
    const keyStore = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(keyStore, keys, [cur]);
    const log: string[] = [];
    const sections = recordingSections(log);
    const svc = scriptedService({ listed: () => (log.includes('prompt') ? ['Other:1'] : ['Session:0', 'Other:1']), endAnswer: () => 'refused' });
    const base = runIn(keyStore);
    const e = await signOutOthers(contextOf(keyStore, svc), ACCOUNT, {
      sections,
      run: (a, fn) => sections.run(a, () => base(a, fn)),
      resolve: async () => {
        log.push('prompt');
        return { session: cur, signer: signerFromKey(keys[0]!) };
      },
    }).catch((x: unknown) => x);
    expect(isWalletError(e, 'SESSION_REVOKED')).toBe(true);
    expect(log.slice(-3)).toEqual(['prompt', `+run:${ACCOUNT}`, `-run:${ACCOUNT}`]);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
  });
});
