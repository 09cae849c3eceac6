// signer-pick.ts on its own: which session signs a call. I2 (a logout requested, pending or since the
// call started, leaves no signer, also when it lands between the pick and the re-read), I3 (the
// session current when the signature is made: a commit in between makes it pick again, at most four
// times), I6 (expired on the estimate → asked of the service; SESSION_EXPIRED only when it agrees),
// an evicted key's session dropped (NOT_LOGGED_IN instead when the session ended meanwhile). Real
// keys in the in-memory key store; `observe` and `run` are the manager's without its lock, with
// hooks where a test lets "another tab" commit.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import type { KeyStore } from '../../src/keys/index.js';
import { createSignerPicker } from '../../src/session/signer-pick.js';
import { ACCOUNT_PREFIX, LOGOUT_PREFIX, readSnapshot, type AccountState, type Snapshot } from '../../src/session/state.js';
import type { Session, SignerOptions, SigningTicket } from '../../src/session/types.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, listingService, makeKeys, newKeyStore, runIn, sessionOf, storeState, twoSessionsStored, type Ctx } from './ops-fixture.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(3);
});

const NO_SESSION = (accountId: string) => new WalletError('NOT_LOGGED_IN', `fixture: no session for ${accountId}`);

interface Hooks {
  /** Runs after `observe` read and applied the snapshot (another tab commits between pick and re-read). */
  afterObserve?: (n: number) => Promise<void>;
  /** Runs before `run` reads its snapshot. */
  beforeRun?: (n: number) => Promise<void>;
}

function picker(ctx: Ctx, keyStore: KeyStore, hooks: Hooks = {}) {
  const seen = { observed: 0, runs: 0 };
  const inner = runIn(keyStore);
  const pick = createSignerPicker({
    ctx,
    view: ctx.view,
    serverNow: () => ctx.clock.now(),
    observe: async (accountId): Promise<Snapshot> => {
      const snap = await readSnapshot(keyStore.meta, accountId);
      ctx.view.apply(snap.state, { silent: true });
      seen.observed++;
      await hooks.afterObserve?.(seen.observed);
      return snap;
    },
    run: async (accountId, fn) => {
      seen.runs++;
      await hooks.beforeRun?.(seen.runs);
      return inner(accountId, fn);
    },
    noSession: NO_SESSION,
  });
  return { pick, seen };
}

async function commit(keyStore: KeyStore, next: Partial<AccountState>): Promise<AccountState> {
  const { state } = await readSnapshot(keyStore.meta, ACCOUNT);
  const written: AccountState = { ...state, generation: state.generation + 1, change: 'refresh', ...next };
  await keyStore.meta.put(ACCOUNT_PREFIX + ACCOUNT, written);
  return written;
}

const settle = <T>(p: Promise<T>): Promise<T | unknown> => p.then((v) => v, (e: unknown) => e);
const later = (days: number) => new Date(T0 + days * LIFETIME_MS).toISOString();

describe('I2: no signer once a logout is requested', () => {
  it('logout pending, or the ticket of this account under another nonce → NOT_LOGGED_IN; else the current session signs (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'none' | 'done' | 'pending'>('none', 'done', 'pending'),
        fc.option(fc.record({ accountId: fc.constantFrom(ACCOUNT, 'InternalAccount:other', undefined), logoutNonce: fc.constantFrom(null, 'n1', 'n2') })),
        async (logout, ticket) => {
          const keyStore = newKeyStore();
          const a = sessionOf(keys, 0);
          const b = sessionOf(keys, 1, { expiresAt: later(2) });
          // 'done': a logout 'n1' carried out before this login; 'pending': 'n1' requested at the state's generation.
          await storeState(keyStore, keys, [a, b], logout === 'done' ? { generation: 2, under: 'n1' } : {});
          if (logout !== 'none') await keyStore.meta.put(LOGOUT_PREFIX + ACCOUNT, { nonce: 'n1', generation: logout === 'pending' ? 1 : 0 });
          const ctx = contextOf(keyStore, listingService(() => [a.id, b.id]));
          const { pick } = picker(ctx, keyStore);
          const got = await settle(pick(ACCOUNT, undefined, (ticket ?? undefined) as SigningTicket | undefined));
          const nonce = logout === 'none' ? null : 'n1';
          const refused = logout === 'pending' || (ticket !== null && ticket.accountId === ACCOUNT && ticket.logoutNonce !== nonce);
          if (refused) {
            expect(isWalletError(got, 'NOT_LOGGED_IN')).toBe(true);
          } else {
            const { session, signer } = got as { session: Session; signer: { publicKeyHex: string } };
            expect(session.id).toBe(a.id);
            expect(signer.publicKeyHex).toBe(a.publicKeyHex);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a logout requested between the pick and the re-read (any tab) → NOT_LOGGED_IN, even though the session is still current', async () => {
    const keyStore = newKeyStore();
    await storeState(keyStore, keys, [sessionOf(keys, 0)]);
    const ctx = contextOf(keyStore, listingService(() => ['Session:0']));
    const { pick } = picker(ctx, keyStore, {
      afterObserve: async () => keyStore.meta.put(LOGOUT_PREFIX + ACCOUNT, { nonce: 'late', generation: 0 }),
    });
    await expect(pick(ACCOUNT, undefined, undefined)).rejects.toMatchObject({ code: 'NOT_LOGGED_IN' });
  });
});

describe('I3: the session current when the signature is made', () => {
  it('a refresh committed between the pick and the re-read → picked again: the new current signs', async () => {
    const { keyStore, a, b, ctx } = await twoSessionsStored(keys, { expiresAt: later(2) });
    const { pick, seen } = picker(ctx, keyStore, {
      afterObserve: async (n) => {
        if (n === 1) await commit(keyStore, { sessions: [b], current: b.id });
      },
    });
    const { session, signer } = await pick(ACCOUNT, undefined, undefined);
    expect(session.id).toBe(b.id);
    expect(signer.publicKeyHex).toBe(b.publicKeyHex);
    expect(seen.observed).toBe(2);
  });

  it('with excludeCredentialId: the picked session still stored (not current) signs at once; dropped → picked again', async () => {
    const a = sessionOf(keys, 0, { credentialId: 'AuthMethod:A' });
    const b = sessionOf(keys, 1, { credentialId: 'AuthMethod:B', expiresAt: later(2) });
    const c = sessionOf(keys, 2, { credentialId: 'AuthMethod:C', expiresAt: later(3) });
    const opts: SignerOptions = { excludeCredentialId: 'AuthMethod:A' };
    for (const drop of [false, true]) {
      const keyStore = newKeyStore();
      await storeState(keyStore, keys, [a, b, c], { current: b.id });
      const ctx = contextOf(keyStore, listingService(() => [a.id, b.id, c.id]));
      const { pick, seen } = picker(ctx, keyStore, {
        afterObserve: async (n) => {
          if (n === 1) await commit(keyStore, drop ? { sessions: [a, c], current: a.id } : { current: a.id });
        },
      });
      const { session, signer } = await pick(ACCOUNT, opts, undefined);
      expect(session.id).toBe(drop ? c.id : b.id);
      expect(signer.publicKeyHex).toBe(drop ? c.publicKeyHex : b.publicKeyHex);
      expect(seen.observed).toBe(drop ? 2 : 1);
    }
  });

  it('a commit after every pick: four picks, then the last one signs', async () => {
    const { keyStore, a, b, ctx } = await twoSessionsStored(keys, { expiresAt: later(2) });
    const { pick, seen } = picker(ctx, keyStore, {
      afterObserve: async () => {
        const { state } = await readSnapshot(keyStore.meta, ACCOUNT);
        await commit(keyStore, { current: state.current === a.id ? b.id : a.id });
      },
    });
    const { session } = await pick(ACCOUNT, undefined, undefined);
    expect(seen.observed).toBe(4);
    // Pick k (1-based) took the state the k-1 commits left: a, b, a, b.
    expect(session.id).toBe(b.id);
  });
});

describe('I6: expiry on the estimate is asked of the service', () => {
  it('at or past expiry: SESSION_EXPIRED and dropped only when the service no longer lists it; before: the service is not asked (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(-60_000, -1, 0, 1, 60_000), fc.boolean(), async (at, listed) => {
        const keyStore = newKeyStore();
        const a = sessionOf(keys, 0);
        const b = sessionOf(keys, 1, { expiresAt: later(5) });
        await storeState(keyStore, keys, [a, b]);
        const svc = listingService(() => (listed ? [a.id, b.id] : [b.id]));
        const ctx = contextOf(keyStore, svc, () => T0 + LIFETIME_MS + at);
        const { pick, seen } = picker(ctx, keyStore);
        const got = await settle(pick(ACCOUNT, undefined, undefined));
        const expired = at >= 0;
        expect(svc.asked).toBe(expired ? 1 : 0);
        expect(seen.runs).toBe(expired ? 1 : 0);
        if (expired && !listed) {
          expect(isWalletError(got, 'SESSION_EXPIRED')).toBe(true);
          expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual([b.id]);
        } else {
          expect((got as { session: Session }).session.id).toBe(a.id);
          expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(2);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('the service keeps it but another commit dropped it meanwhile → the no-session error, not a signer', async () => {
    const keyStore = newKeyStore();
    const a = sessionOf(keys, 0);
    const b = sessionOf(keys, 1, { expiresAt: later(5) });
    await storeState(keyStore, keys, [a, b]);
    const ctx = contextOf(keyStore, listingService(() => [a.id, b.id]), () => T0 + LIFETIME_MS);
    const { pick } = picker(ctx, keyStore, {
      beforeRun: async () => {
        ctx.view.apply(await commit(keyStore, { sessions: [b], current: b.id, change: 'revoked' }), { silent: true });
      },
    });
    await expect(pick(ACCOUNT, undefined, undefined)).rejects.toThrow('fixture: no session');
  });
});

describe('an evicted key', () => {
  it('KEY_EVICTED; its session dropped (change evicted), the other kept', async () => {
    const { keyStore, b, ctx } = await twoSessionsStored(keys, { expiresAt: later(2) }, (s) => s.id !== 'Session:0');
    const { pick } = picker(ctx, keyStore);
    await expect(pick(ACCOUNT, undefined, undefined)).rejects.toMatchObject({ code: 'KEY_EVICTED' });
    const after = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(after.state.sessions.map((s) => s.id)).toEqual([b.id]);
    expect(after.state.change).toBe('evicted');
    expect(await keyStore.get(b.publicKeyHex)).toBeDefined();
  });

  it('the key was deleted because another tab logged out meanwhile → the no-session error, not KEY_EVICTED', async () => {
    const keyStore = newKeyStore();
    const a = sessionOf(keys, 0);
    await storeState(keyStore, keys, [a], {}, () => false);
    const ctx = contextOf(keyStore, listingService(() => [a.id]));
    const { pick } = picker(ctx, keyStore, {
      beforeRun: async () => {
        ctx.view.apply(await commit(keyStore, { sessions: [], current: null, change: 'logout' }));
      },
    });
    await expect(pick(ACCOUNT, undefined, undefined)).rejects.toThrow('fixture: no session');
  });

  it('another failure of the key store is thrown as it is; nothing is removed', async () => {
    const keyStore = newKeyStore();
    const a = sessionOf(keys, 0);
    await storeState(keyStore, keys, [a]);
    const failing = { ...keyStore, get: () => Promise.reject(new WalletError('KEY_STORAGE_UNAVAILABLE', 'disk')) };
    const ctx = contextOf(failing, listingService(() => [a.id]));
    const { pick, seen } = picker(ctx, keyStore);
    await expect(pick(ACCOUNT, undefined, undefined)).rejects.toMatchObject({ code: 'KEY_STORAGE_UNAVAILABLE' });
    expect(seen.runs).toBe(0);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(1);
  });
});
