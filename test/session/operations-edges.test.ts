// The edges of operations.ts's logout and pending ends (I1, I8) that the model and state.test.ts do
// not reach, on their own (no sandbox, real keys): which answers of the service count as "asked"
// (a pending end is kept, with its key, until the service was asked), how long an orphan key's end is
// retried while the service cannot be asked, a logout when the key store cannot list, each session
// ended once, and the logout's commit raising the generation by one.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signerFromKey, type SessionKey } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import type { KeyStore } from '../../src/keys/index.js';
import { endAll, endWith } from '../../src/session/operations.js';
import type { SessionService } from '../../src/session/service.js';
import { readEnding, readSnapshot, requestLogout } from '../../src/session/state.js';
import { ACCOUNT, T0, contextOf, makeKeys, newKeyStore, sessionOf, storeState } from './ops-fixture.js';

const HOUR = 60 * 60_000;
let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(4);
});

/** A service whose `end` answers `answer()` (true/false) or throws it; records the ids asked. */
function ending(answer: () => unknown): SessionService & { ended: string[] } {
  const ended: string[] = [];
  return {
    ended,
    list: async () => [],
    refresh: async () => {
      throw new Error('not here');
    },
    end: async (id) => {
      ended.push(id);
      const a = answer();
      if (typeof a === 'boolean') return a;
      throw a;
    },
  };
}

describe('endWith: true only when the service ended the session or says it is gone (404); the app’s backend refusing is told', () => {
  it('ended or 404 → done; 401 LOGIN_REQUIRED or any 403 → kept and told (end-refused); anything else → kept — drawn', async () => {
    const status = fc.constantFrom(undefined, 0, 200, 302, 399, 400, 401, 403, 404, 408, 409, 410, 429, 499, 500, 502, 503, 504, 599);
    const code = fc.constantFrom('SERVICE_ERROR', 'LOGIN_REQUIRED', 'FORBIDDEN', 'SESSION_NOT_FOUND', 'WALLET_SIGNATURE_INVALID', 'UNAUTHORIZED');
    const outcome = fc.oneof(
      fc.boolean().map((b) => ({ value: b as unknown, done: true, told: false })),
      fc.tuple(code, status).map(([c, s]) => ({
        value: new WalletError(c as never, 'x', s === undefined ? {} : { status: s }) as unknown,
        done: s === 404,
        told: s === 403 || (s === 401 && c === 'LOGIN_REQUIRED'),
      })),
      fc.constantFrom(404, 403, 401).map((s) => ({ value: Object.assign(new Error('not ours'), { status: s, code: 'LOGIN_REQUIRED' }) as unknown, done: false, told: false })),
    );
    const keyStore = newKeyStore();
    await fc.assert(
      fc.asyncProperty(outcome, async ({ value, done, told }) => {
        const svc = ending(() => value);
        const ctx = contextOf(keyStore, svc);
        expect(await endWith(ctx, ACCOUNT, 'Session:0', signerFromKey(keys[0]!))).toBe(done);
        expect(svc.ended).toEqual(['Session:0']);
        expect(ctx.events).toEqual(told ? [['end-refused', { accountId: ACCOUNT, sessionId: 'Session:0', error: value }]] : []);
      }),
      { numRuns: 200 },
    );
  });
});

/** Stores one committed session (key 0) and an orphan key (key 1: a session no state names). */
async function withOrphan(keyStore: KeyStore, createdAt: number): Promise<void> {
  await storeState(keyStore, keys, [sessionOf(keys, 0)]);
  const k = keys[1]!;
  await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: 'Session:orphan', createdAt });
}

describe('the logout’s sweep of orphan keys', () => {
  it('an orphan’s end is retried while the service cannot be asked, and given up only two hours after its key was made (on a clock the service set)', async () => {
    for (const [age, kept] of [[0, true], [HOUR, true], [2 * HOUR - 1000, true], [2 * HOUR + 1000, false]] as const) {
      const keyStore = newKeyStore();
      await withOrphan(keyStore, T0);
      const svc = ending(() => new WalletError('NETWORK_ERROR', 'offline'));
      await requestLogout(keyStore.meta, ACCOUNT);
      const ctx = contextOf(keyStore, svc, () => T0 + age);
      // A clock the service set (an earlier answer): without one nothing is given up (ends.test.ts).
      ctx.clock.observeServerTime(T0 + age, T0 + age);
      await endAll(ctx, await readSnapshot(keyStore.meta, ACCOUNT), { sweep: true });
      const left = (await readEnding(keyStore.meta, ACCOUNT)).map((e) => e.id);
      expect([age, left.includes('Session:orphan'), (await keyStore.get(keys[1]!.publicKeyHex)) !== undefined]).toEqual([age, kept, kept]);
      expect(svc.ended.sort()).toEqual(['Session:0', 'Session:orphan']);
    }
  });

  it('each session, held or orphan, is asked to end once; the logout commits once, one generation up', async () => {
    const keyStore = newKeyStore();
    await withOrphan(keyStore, T0);
    const before = (await readSnapshot(keyStore.meta, ACCOUNT)).state.generation;
    const svc = ending(() => true);
    await requestLogout(keyStore.meta, ACCOUNT);
    expect(await endAll(contextOf(keyStore, svc), await readSnapshot(keyStore.meta, ACCOUNT), { sweep: true })).toBe(true);
    expect(svc.ended.sort()).toEqual(['Session:0', 'Session:orphan']);
    const after = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(after.state).toMatchObject({ generation: before + 1, sessions: [], current: null, change: 'logout' });
    expect(after.logoutPending).toBe(false);
    expect(await keyStore.list()).toEqual([]);
  });

  it('a key store that cannot list: the logout still empties the state and ends what it holds', async () => {
    const keyStore = newKeyStore();
    await withOrphan(keyStore, T0);
    const broken: KeyStore = { ...keyStore, list: () => Promise.reject(new Error('cannot list')) };
    const svc = ending(() => true);
    await requestLogout(keyStore.meta, ACCOUNT);
    expect(await endAll(contextOf(broken, svc), await readSnapshot(keyStore.meta, ACCOUNT), { sweep: true })).toBe(true);
    expect(svc.ended).toEqual(['Session:0']);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toEqual([]);
  });
});
