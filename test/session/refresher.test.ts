// refresher.ts on its own: how refreshes are driven. The caller gets the new session once it is
// committed while the refresh lock is kept until the replaced one is retired; `busy` tells when an
// account's first refresh under way starts and its last settles; an automatic refresh runs once per
// account at a time and, failed, is held back: until expiry after a hopeless error, else a quarter of
// the time left clamped to [5 s, 60 s]. The refresh itself (changes.ts) is replaced by a script here
// (its own tests are refresh.test.ts); fast-check draws the orders of starts and settles, the error
// codes and the time left; the oracle is written out beside each property.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deferred, flush, until, type Deferred } from '../helpers/wait-for.js';
import { WalletError } from '../../src/errors.js';
import type { RefreshDeps, RefreshResult } from '../../src/session/changes.js';
import { createRefresher } from '../../src/session/refresher.js';
import type { Schedule } from '../../src/session/schedule.js';
import { createServerClock } from '../../src/session/server-clock.js';
import type { Snapshot } from '../../src/session/state.js';
import type { Session } from '../../src/session/types.js';
import * as changes from '../../src/session/changes.js';
import { ACCOUNT_PREFIX, readSnapshot } from '../../src/session/state.js';
import { faulty, scriptedService } from './changes-fixture.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, makeKeys, newKeyStore, runIn, sessionOf, storeState } from './ops-fixture.js';

const OTHER = 'InternalAccount:other';

function session(id: string, accountId = ACCOUNT, expiresAt = T0 + LIFETIME_MS): Session {
  return { id, accountId, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: `02${'ab'.repeat(32)}`, createdAt: new Date(T0).toISOString(), expiresAt: new Date(expiresAt).toISOString() };
}

// Everything here is scripted promises (no WebCrypto, no timer): one event-loop turn runs all of it.
/** A refresher over scripted parts: each refreshSession call waits on a deferred the test settles. */
function harness(over: { now?: number; busy?: boolean; changes?: () => Promise<void>; refreshing?: () => Promise<void>; disposed?: () => boolean } = {}) {
  const log: string[] = [];
  const calls: Array<{ deps: RefreshDeps; answer: Deferred<RefreshResult> }> = [];
  const schedule: Schedule = {
    plan: (a) => void log.push(`plan:${a}`),
    planAll: () => undefined,
    holdRefresh: (id, ms) => void log.push(`hold:${id}:${ms}`),
    refreshAt: (s) => Date.parse(s.expiresAt) - 1,
    dispose: () => undefined,
  };
  const run = async <T>(_a: string, fn: (snap: Snapshot) => Promise<T>): Promise<T> => fn(undefined as never);
  const observe = async (): Promise<Snapshot> => undefined as never;
  const held = new Map<string, number>();
  const ctx = { clock: createServerClock(() => over.now ?? T0) } as never;
  const refresher = createRefresher({
    ctx,
    run,
    observe,
    refreshing: async (accountId, fn) => {
      await over.refreshing?.();
      held.set(accountId, (held.get(accountId) ?? 0) + 1);
      log.push(`lock:${accountId}`);
      try {
        return await fn();
      } finally {
        held.set(accountId, held.get(accountId)! - 1);
        log.push(`unlock:${accountId}`);
      }
    },
    changes: async (use) => {
      await over.changes?.();
      return use({
        refreshSession: (c: unknown, deps: RefreshDeps) => {
          expect(c).toBe(ctx);
          const answer = deferred<RefreshResult>();
          calls.push({ deps, answer });
          return answer.promise;
        },
      } as never);
    },
    schedule,
    disposed: over.disposed ?? (() => false),
    ...(over.busy !== false && { busy: (a: string, on: boolean) => void log.push(`busy:${a}:${on}`) }),
  });
  return { refresher, log, calls, held, schedule, run, observe };
}

describe('refresh: resolves once committed; the lock is kept to retire the replaced session', () => {
  it('passes the refresh its account, plan, mode, the schedule’s refresh point and the section', async () => {
    const h = harness();
    const plan = { clientPublicKey: 'x', legacy: false, finish: async () => undefined as never };
    const p = h.refresher.refresh(ACCOUNT, plan, true);
    await flush();
    expect(h.calls).toHaveLength(1);
    const { deps } = h.calls[0]!;
    expect(deps).toMatchObject({ accountId: ACCOUNT, plan, automatic: true, run: h.run, observe: h.observe });
    expect(deps.dueAt(session('Session:1'))).toBe(h.schedule.refreshAt(session('Session:1')));
    h.calls[0]!.answer.resolve({ session: session('Session:2') });
    await expect(p).resolves.toEqual(session('Session:2'));
  });

  it('the new session before the retire ends; the lock until it has; a failed retire changes nothing', async () => {
    for (const retireFails of [false, true]) {
      const h = harness();
      const p = h.refresher.refresh(ACCOUNT, undefined, false);
      await flush();
      const retire = deferred<void>();
      let retired = 0;
      h.calls[0]!.answer.resolve({
        session: session('Session:2'),
        retire: () => {
          retired++;
          return retire.promise;
        },
      });
      await expect(p).resolves.toEqual(session('Session:2'));
      expect(retired).toBe(1);
      expect(h.held.get(ACCOUNT)).toBe(1);
      expect(h.log).toEqual([`busy:${ACCOUNT}:true`, `lock:${ACCOUNT}`, `busy:${ACCOUNT}:false`]);
      if (retireFails) retire.reject(new WalletError('NETWORK_ERROR', 'offline'));
      else retire.resolve();
      await flush();
      expect(h.held.get(ACCOUNT)).toBe(0);
      expect(h.log.at(-1)).toBe(`unlock:${ACCOUNT}`);
    }
  });

  it('a failed refresh, a failed download, a lock that fails: the caller gets the error; busy ends', async () => {
    const cases: Array<[string, Parameters<typeof harness>[0], boolean]> = [
      ['refresh', {}, true],
      ['download', { changes: async () => Promise.reject(new WalletError('NETWORK_ERROR', 'chunk')) }, false],
      ['lock', { refreshing: async () => Promise.reject(new WalletError('NETWORK_ERROR', 'lock')) }, false],
    ];
    for (const [what, over, reaches] of cases) {
      const h = harness(over);
      const p = h.refresher.refresh(ACCOUNT, undefined, false);
      const caught = p.catch((e: unknown) => e);
      await flush();
      expect(h.calls.length).toBe(reaches ? 1 : 0);
      if (reaches) h.calls[0]!.answer.reject(new WalletError('SESSION_REVOKED', 'gone'));
      const e = await caught;
      expect(e).toMatchObject({ code: what === 'refresh' ? 'SESSION_REVOKED' : 'NETWORK_ERROR' });
      await flush();
      expect(h.log.filter((l) => l.startsWith('busy'))).toEqual([`busy:${ACCOUNT}:true`, `busy:${ACCOUNT}:false`]);
      if (reaches) expect(h.held.get(ACCOUNT)).toBe(0);
    }
  });

  it('without a busy listener: refreshes all the same', async () => {
    const h = harness({ busy: false });
    const p = h.refresher.refresh(ACCOUNT, undefined, false);
    await flush();
    h.calls[0]!.answer.resolve({ session: session('Session:2') });
    await expect(p).resolves.toEqual(session('Session:2'));
    const q = h.refresher.refresh(ACCOUNT, undefined, false).catch((e: unknown) => e);
    await flush();
    h.calls[1]!.answer.reject(new WalletError('NETWORK_ERROR', 'x'));
    expect(await q).toMatchObject({ code: 'NETWORK_ERROR' });
  });

  it('busy: true when an account’s first refresh under way starts, false when its last settles (drawn orders)', async () => {
    // Each step starts a refresh of an account, or settles (resolves or rejects) one under way.
    const step = fc.oneof(fc.record({ start: fc.constantFrom(ACCOUNT, OTHER) }), fc.record({ settle: fc.nat(), ok: fc.boolean() }));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 14 }), async (steps) => {
        const h = harness();
        const open: Array<{ account: string; index: number }> = [];
        const count = new Map<string, number>();
        const expected: string[] = [];
        let started = 0;
        const pending: Array<Promise<unknown>> = [];
        for (const s of steps) {
          if ('start' in s) {
            const n = count.get(s.start) ?? 0;
            if (n === 0) expected.push(`busy:${s.start}:true`);
            count.set(s.start, n + 1);
            pending.push(h.refresher.refresh(s.start, undefined, false).catch(() => undefined));
            open.push({ account: s.start, index: started++ });
            await flush();
          } else if (open.length > 0) {
            const [o] = open.splice(s.settle % open.length, 1);
            const n = count.get(o!.account)! - 1;
            count.set(o!.account, n);
            if (n === 0) expected.push(`busy:${o!.account}:false`);
            const { answer } = h.calls[o!.index]!;
            if (s.ok) answer.resolve({ session: session('Session:x', o!.account) });
            else answer.reject(new WalletError('NETWORK_ERROR', 'x'));
            await flush();
          }
          expect(h.log.filter((l) => l.startsWith('busy'))).toEqual(expected);
        }
        for (const o of open) h.calls[o.index]!.answer.resolve({ session: session('Session:x', o.account) });
        await Promise.all(pending);
      }),
      { numRuns: 60 },
    );
  });
});

const TERMINAL = ['SESSION_REVOKED', 'SESSION_EXPIRED', 'NOT_LOGGED_IN', 'KEY_EVICTED', 'SIGNING_REFUSED'];

describe('auto: one automatic refresh per account at a time; a failed one is held back', () => {
  it('drawn errors × time left: hopeless → held until expiry; else a quarter of the time left within [5 s, 60 s]', async () => {
    await fc.assert(
      fc.asyncProperty(
        // null: not a WalletError; 'foreign:…': an error of someone else's that carries such a code.
        fc.oneof(fc.constantFrom(...TERMINAL, 'NETWORK_ERROR', 'RATE_LIMITED', 'SERVER_ERROR', 'ABORTED', 'SIGNER_FAILED'), fc.constant(null), fc.constantFrom(...TERMINAL.map((c) => `foreign:${c}`))),
        fc.integer({ min: -120_000, max: 600_000 }),
        async (code, remaining) => {
          const now = T0 + 1_000_000;
          const h = harness({ now });
          const s = session('Session:1', ACCOUNT, now + remaining);
          h.refresher.auto(s);
          await flush();
          expect(h.calls.map((c) => c.deps.automatic)).toEqual([true]);
          const foreign = code?.startsWith('foreign:') === true;
          h.calls[0]!.answer.reject(code === null ? new TypeError('not a wallet error') : foreign ? Object.assign(new Error('x'), { code: code.slice(8) }) : new WalletError(code as never, 'x'));
          await flush();
          // Only the library's own errors say a refresh is hopeless.
          const hopeless = code !== null && !foreign && TERMINAL.includes(code);
          const until = now + (hopeless ? remaining : Math.min(60_000, Math.max(5_000, remaining / 4)));
          const tail = h.log.filter((l) => l.startsWith('hold') || l.startsWith('plan'));
          expect(tail).toEqual([`hold:Session:1:${until}`, `plan:${ACCOUNT}`]);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('the boundaries of the backoff, written out', async () => {
    const now = T0;
    for (const [remaining, hold] of [
      [20_000, 5_000],
      [20_004, 5_001],
      [240_000, 60_000],
      [239_996, 59_999],
      [-1_000, 5_000],
    ] as const) {
      const h = harness({ now });
      h.refresher.auto(session('Session:1', ACCOUNT, now + remaining));
      await flush();
      h.calls[0]!.answer.reject(new WalletError('NETWORK_ERROR', 'x'));
      await flush();
      expect(h.log).toContain(`hold:Session:1:${now + hold}`);
    }
  });

  it('a success is not held back; the account is planned again, and a later auto runs again', async () => {
    const h = harness();
    h.refresher.auto(session('Session:1'));
    await flush();
    h.calls[0]!.answer.resolve({ session: session('Session:2') });
    await flush();
    expect(h.log.filter((l) => l.startsWith('hold'))).toEqual([]);
    expect(h.log.filter((l) => l.startsWith('plan'))).toEqual([`plan:${ACCOUNT}`]);
    h.refresher.auto(session('Session:2'));
    await flush();
    expect(h.calls).toHaveLength(2);
  });

  it('while one runs for the account, another auto for it is ignored; another account’s runs', async () => {
    const h = harness();
    h.refresher.auto(session('Session:1'));
    h.refresher.auto(session('Session:1'));
    h.refresher.auto(session('Session:3', OTHER));
    await flush();
    expect(h.calls.map((c) => c.deps.accountId)).toEqual([ACCOUNT, OTHER]);
    h.calls[0]!.answer.reject(new WalletError('NETWORK_ERROR', 'x'));
    await flush();
    // Settled: a new auto runs (held back by the schedule, not here).
    h.refresher.auto(session('Session:1'));
    await flush();
    expect(h.calls.map((c) => c.deps.accountId)).toEqual([ACCOUNT, OTHER, ACCOUNT]);
  });

  it('a disposed manager starts none', async () => {
    const h = harness({ disposed: () => true });
    h.refresher.auto(session('Session:1'));
    await flush();
    expect(h.calls).toEqual([]);
    expect(h.log).toEqual([]);
    // Explicit refreshes are the manager's to refuse: the refresher runs them.
    void h.refresher.refresh(ACCOUNT, undefined, false).catch(() => undefined);
    await flush();
    expect(h.calls).toHaveLength(1);
  });
});

describe('auto over the real refresh: a commit that fails on storage is tried again, not given up until expiry', () => {
  it('the session stays current and its refresh is held back by the backoff (was: NOT_LOGGED_IN, held until expiry)', async () => {
    const keys = await makeKeys(2);
    const inner = newKeyStore();
    const cur = sessionOf(keys, 0);
    await storeState(inner, keys, [cur]);
    let failing = true;
    const now = T0 + LIFETIME_MS - 60_000; // a minute left: due
    const keyStore = faulty(inner, (name) => failing && name.startsWith(ACCOUNT_PREFIX));
    const svc = scriptedService({
      onRefresh: async ({ signer }) => {
        await signer();
        return { id: 'Session:new', accountId: ACCOUNT, type: 'EMAIL_OTP', nickname: '', createdAt: new Date(now).toISOString(), updatedAt: '', expiresAt: new Date(now + LIFETIME_MS).toISOString() } as never;
      },
    });
    const ctx = contextOf(keyStore, svc, () => now);
    ctx.host = { newKeyPlan: async () => ({ clientPublicKey: keys[1]!.publicKeyHex, legacy: false, finish: async () => keys[1]! }) } as never;
    const log: string[] = [];
    const run = runIn(keyStore);
    const refresher = createRefresher({
      ctx,
      run,
      observe: (a) => readSnapshot(keyStore.meta, a),
      refreshing: (_a, fn) => fn(),
      changes: (use) => use(changes),
      schedule: { plan: (a) => void log.push(`plan:${a}`), planAll: () => undefined, holdRefresh: (id, ms) => void log.push(`hold:${id}:${ms - now}`), refreshAt: (s) => Date.parse(s.expiresAt) - LIFETIME_MS / 3, dispose: () => undefined },
      disposed: () => false,
    });
    refresher.auto(cur);
    await until(() => log.length >= 2, 'the failed auto refresh held back');
    expect(log).toHaveLength(2);
    // A minute left: a quarter of it (15 s), not the whole minute.
    expect(log).toEqual([`hold:${cur.id}:15000`, `plan:${ACCOUNT}`]);
    expect((await readSnapshot(inner.meta, ACCOUNT)).state.current).toBe(cur.id);
    // The session the service made was ended (no prompt); the next try commits.
    expect(svc.ended.map((c) => [c.id, c.approved])).toEqual([['Session:new', true]]);
    failing = false;
    await expect(refresher.refresh(ACCOUNT, undefined, false)).resolves.toMatchObject({ id: 'Session:new' });
  });
});
