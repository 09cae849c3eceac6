// manager.ts through its real API (fast: no sandbox): options and their defaults, which event a
// change emits and with which origin, which error a refused call gets, which timer is set (the
// refresh point, the 30 s re-look at an expiry the service did not confirm), loading (once, retried
// after a failure, not after dispose), the default account, logout's and forget's reasons, loggingIn,
// signingTicket, signer's re-checks, restore, rejected, dispose. Tabs are managers over fakes of the
// platform (tabs-fixture.ts: shared storage, Web Locks, BroadcastChannel, a clock with timers) and a
// service double that answers at once; keys and signatures are real WebCrypto.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateSessionKey, verifySignature } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';
import { changesChunk, createSessionManager } from '../../src/session/manager.js';
import { ACCOUNT_PREFIX, LOGOUT_PREFIX, requestLogout } from '../../src/session/state.js';
import type { LogoutReason } from '../../src/session/types.js';
import { createClient } from '../../src/transport/index.js';
import { deferred, flush } from '../helpers/wait-for.js';
import { ACCOUNT, LIFETIME_MS, OTHER, codeOf, named, platform, until, type Tab } from './tabs-fixture.js';

const MIN = 60_000;
const download = changesChunk.load;
afterEach(() => {
  changesChunk.load = download;
});

const loggedOut = (t: Tab) => named(t, 'logged-out') as Array<{ accountId: string; reason: LogoutReason }>;
const changed = (t: Tab) => named(t, 'changed') as Array<{ accountId: string; origin: string }>;

describe('options', () => {
  it('options that are not an object are INVALID_ARGUMENT, thrown at once', () => {
    for (const bad of [undefined, null, 'x', 3]) {
      expect(() => createSessionManager(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('the refresh point is at refreshWhenRemaining of the lifetime left (default 1/3): the one timer set after a login (drawn fractions)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }), async (percent) => {
        const p = platform();
        const fraction = percent === undefined ? undefined : percent / 100;
        const a = p.tab({ autoRefresh: false, ...(fraction !== undefined && { refreshWhenRemaining: fraction }) });
        await p.login(a);
        const f = fraction ?? 1 / 3;
        // The watch of the login's tracked call (1 s) is the other timer.
        const set = p.timers.delays(a.id).filter((ms) => ms !== 1000);
        expect(set).toHaveLength(1);
        expect(set[0]).toBeCloseTo(LIFETIME_MS - LIFETIME_MS * f, 3);
        a.manager.dispose();
      }),
      { numRuns: 15 },
    );
  });

  it('autoRefresh (default true) refreshes at the refresh point; false only warns (expiring)', async () => {
    for (const autoRefresh of [undefined, false]) {
      const p = platform();
      const a = p.tab(autoRefresh === undefined ? {} : { autoRefresh });
      const s = await p.login(a);
      p.timers.advance(10 * MIN);
      await until(() => named(a, 'expiring').length === 1, 'expiring');
      expect(named(a, 'expiring')).toEqual([s]);
      if (autoRefresh === undefined) {
        await until(() => named(a, 'refreshed').length === 1, 'refreshed');
        expect(p.service.calls.filter((c) => c.kind === 'refresh').map((c) => c.id)).toEqual([s.id]);
        expect(named(a, 'refreshing')).toEqual([{ accountId: ACCOUNT, refreshing: true }, { accountId: ACCOUNT, refreshing: false }]);
      } else {
        await flush(); // a refresh would have asked for the refresh lock by now (promises only before it)
        expect(a.lockNames.filter((n) => n.includes(':refresh:'))).toEqual([]);
        expect(p.service.calls.filter((c) => c.kind === 'refresh')).toEqual([]);
        expect(a.manager.current(ACCOUNT)?.id).toBe(s.id);
      }
      a.manager.dispose();
    }
  });

  it('namespace (default embedded-wallet-signer) names the channel and the locks', async () => {
    for (const namespace of [undefined, 'ns1']) {
      const p = platform();
      const a = p.tab(namespace === undefined ? {} : { namespace });
      await p.login(a);
      const ns = namespace ?? 'embedded-wallet-signer';
      expect(a.channelsOpened).toEqual([`${ns}:sessions`]);
      expect(a.lockNames.length).toBeGreaterThan(0);
      expect(a.lockNames.every((n) => n.startsWith(`${ns}:`))).toBe(true);
      expect(a.lockNames).toContain(`${ns}:account:${ACCOUNT}`);
      a.manager.dispose();
    }
  });

  it('with `now` and no monotonic clock of the host, `now` is the local clock and measures time between server samples', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const m = createSessionManager({ client: createClient({ baseUrl: 'http://127.0.0.1:9' }), keyStore, now: () => now, crossTab: false });
    expect(m.serverNow()).toBe(now);
    m.clock.observeServerTime(now + 5000);
    now += 60 * MIN;
    expect(m.serverNow()).toBe(now + 5000);
    m.dispose();
  });

  it('without `now`, a jump of the local clock moves no server time (the host\'s monotonic clock measures it, I6)', async () => {
    const wall = vi.spyOn(Date, 'now');
    try {
      let t = Date.parse('2030-01-01T00:00:00.000Z');
      wall.mockImplementation(() => t);
      const m = createSessionManager({ client: createClient({ baseUrl: 'http://127.0.0.1:9' }), keyStore: createKeyStore({ backend: createMemoryBackend() }), crossTab: false });
      m.clock.observeServerTime(t);
      t += 60 * MIN; // the user set the computer's clock an hour ahead
      expect(Math.abs(m.serverNow() - Date.parse('2030-01-01T00:00:00.000Z'))).toBeLessThan(10_000);
      m.dispose();
    } finally {
      wall.mockRestore();
    }
  });

  it('without a service option, the calls go through the client (createSessionService)', async () => {
    const asked: string[] = [];
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: (async (input: string | URL | Request) => {
        asked.push(String(input));
        return new Response(JSON.stringify({ data: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
      }) as typeof fetch,
    });
    const m = createSessionManager({ client, keyStore: createKeyStore({ backend: createMemoryBackend() }), crossTab: false });
    expect(await m.list(ACCOUNT)).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('/auth/sessions');
    m.dispose();
  });
});

describe('coordination on or off', () => {
  it('crossTab: false opens no channel and takes no shared lock; a login then stays unseen by another tab until it re-reads', async () => {
    const p = platform();
    const a = p.tab({ crossTab: false });
    const b = p.tab();
    await b.manager.restore();
    const s = await p.login(a);
    await flush(); // a's background work after its login (in-memory storage, its own locks) only chains promises
    expect(a.channelsOpened).toEqual([]);
    expect(a.lockNames).toEqual([]);
    expect(b.manager.current(ACCOUNT)).toBeNull();
    expect((await b.manager.restore()).map((x) => x.id)).toEqual([s.id]);
  });

  it('a key store that fell back to memory: storage-fallback with its reason, a channel (for logouts alone), no shared lock', async () => {
    const p = platform();
    const real = createKeyStore({ backend: p.backend });
    const fallen = new Proxy(real, { get: (t, prop, r) => (prop === 'fallbackReason' ? 'indexeddb-unavailable' : Reflect.get(t, prop, r)) }) as KeyStore;
    const a = p.tab({ keyStore: fallen });
    await p.login(a);
    expect(named(a, 'storage-fallback')).toEqual([{ reason: 'indexeddb-unavailable' }]);
    expect(a.channelsOpened).toHaveLength(1);
    expect(a.lockNames).toEqual([]);
    const b = p.tab();
    await b.manager.restore();
    expect(named(b, 'storage-fallback')).toEqual([]);
    expect(b.channelsOpened).toHaveLength(1);
  });
});

describe('events: which, and their origin', () => {
  it('a login: session then changed (this-tab) here; session then changed (other-tab) in a tab that hears of it', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const s = await p.login(a);
    await until(() => changed(b).length === 1, 'b changed');
    expect(a.events.filter(([n]) => n === 'session' || n === 'changed')).toEqual([
      ['session', s],
      ['changed', { accountId: ACCOUNT, origin: 'this-tab' }],
    ]);
    expect(b.events).toEqual([
      ['session', s],
      ['changed', { accountId: ACCOUNT, origin: 'other-tab' }],
    ]);
  });

  it('a message naming no account makes a tab re-read every account', async () => {
    const p = platform({ channel: true });
    const a = p.tab({ crossTab: false });
    const b = p.tab();
    await b.manager.restore();
    const s1 = await p.login(a, ACCOUNT);
    const s2 = await p.login(a, OTHER);
    await flush(); // nothing reaches b (a has no channel); what a still runs only chains promises
    expect(b.manager.all()).toEqual([]);
    const forged = p.bus.channel();
    forged.postMessage({ from: 'another-script' });
    await until(() => b.manager.all().length === 2, 'b re-read all');
    expect(b.manager.current(ACCOUNT)?.id).toBe(s1.id);
    expect(b.manager.current(OTHER)?.id).toBe(s2.id);
    // One naming an account re-reads that account only.
    await a.manager.logout(OTHER);
    await a.manager.logout(ACCOUNT);
    forged.postMessage({ from: 'another-script', account: OTHER });
    await until(() => b.manager.current(OTHER) === null, 'b re-read OTHER');
    await flush(); // b's reads (in-memory storage) only chain promises
    expect(b.manager.current(ACCOUNT)?.id).toBe(s1.id);
  });

  it('the server clock moving re-plans every account: a refresh point reached by the estimate acts at once', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    const s = await p.login(a, ACCOUNT);
    const s2 = await p.login(a, OTHER);
    expect(named(a, 'expiring')).toEqual([]);
    a.manager.clock.observeServerTime(p.timers.now + 11 * MIN);
    await until(() => named(a, 'expiring').length === 2, 'expiring');
    expect(new Set(named(a, 'expiring'))).toEqual(new Set([s, s2]));
  });
});

describe('an expiry the service does not confirm is looked at again 30 s later', () => {
  it('offline at expiry: nothing removed, one 30 s timer; at it, the service asked again and the session dropped (expired)', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    const s = await p.login(a);
    p.service.offline = true;
    p.timers.advance(LIFETIME_MS);
    await until(() => p.timers.delays(a.id).includes(30_000), 'recheck timer');
    await flush(); // the expiry's work (storage, a list call that fails) only chains promises
    expect(p.timers.delays(a.id).filter((ms) => ms === 30_000)).toHaveLength(1);
    expect(a.manager.current(ACCOUNT)?.id).toBe(s.id);
    // Asked again meanwhile (a wake): still no second timer.
    const listed = p.service.calls.filter((c) => c.kind === 'list').length;
    a.wake?.();
    await until(() => p.service.calls.filter((c) => c.kind === 'list').length > listed, 'the service asked again at the wake');
    await flush(); // the failed list's handling only chains promises
    expect(p.timers.delays(a.id).filter((ms) => ms === 30_000)).toHaveLength(1);
    p.service.offline = false;
    const asked = p.service.calls.filter((c) => c.kind === 'list').length;
    p.timers.advance(30_000);
    await until(() => a.manager.current(ACCOUNT) === null, 'dropped');
    expect(p.service.calls.filter((c) => c.kind === 'list').length).toBeGreaterThan(asked);
    expect(named(a, 'expired')).toEqual([s]);
    expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: 'expired' }]);
    await flush(); // the expiry's end (storage) only chains promises
    expect(p.timers.delays(a.id)).not.toContain(30_000);
  });

  it('the service still lists it: kept, looked at again; removed at once when it does not: no 30 s timer', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    const s = await p.login(a);
    // The service's clock is behind the estimate: it still holds the session.
    p.service.held.get(s.id)!.auth.expiresAt = new Date(p.timers.now + LIFETIME_MS + MIN).toISOString();
    p.timers.advance(LIFETIME_MS);
    await until(() => p.timers.delays(a.id).includes(30_000), 'recheck timer');
    expect(a.manager.current(ACCOUNT)?.id).toBe(s.id);

    const q = platform();
    const b = q.tab({ autoRefresh: false });
    await q.login(b);
    q.timers.advance(LIFETIME_MS);
    await until(() => b.manager.current(ACCOUNT) === null, 'dropped');
    await flush(); // the expiry's end (storage) only chains promises
    expect(q.timers.delays(b.id)).not.toContain(30_000);
  });

  it('storage failing at expiry: nothing removed, looked at again 30 s later', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    const s = await p.login(a);
    const get = p.backend.get;
    p.backend.get = async () => {
      throw new DOMException('broken', 'UnknownError');
    };
    p.timers.advance(LIFETIME_MS);
    await until(() => p.timers.delays(a.id).includes(30_000), 'recheck timer');
    p.backend.get = get;
    expect(a.manager.current(ACCOUNT)?.id).toBe(s.id);
    p.timers.advance(30_000);
    await until(() => a.manager.current(ACCOUNT) === null, 'dropped at the second look');
  });

  it('dispose clears the 30 s timer, and a disposed manager sets none', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    await p.login(a);
    p.service.offline = true;
    p.timers.advance(LIFETIME_MS);
    await until(() => p.timers.delays(a.id).includes(30_000), 'recheck timer');
    a.manager.dispose();
    expect(p.timers.delays(a.id)).toEqual([]);

    const q = platform();
    const b = q.tab({ autoRefresh: false });
    await q.login(b);
    q.service.offline = true;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const list = q.service.list.bind(q.service);
    const asked = deferred();
    q.service.list = async (id) => (asked.resolve(), await held, list(id));
    q.timers.advance(LIFETIME_MS);
    await asked.promise; // the expiry's list call is on the wire
    b.manager.dispose();
    release();
    await flush(); // the list fails (offline) and its handling only chains promises
    expect(q.timers.delays(b.id)).toEqual([]);
  });
});

describe('loading', () => {
  it('a failed load is tried again at the next call; the channel and the wake are set up once', async () => {
    const p = platform();
    const real = createKeyStore({ backend: p.backend });
    let fail = 1;
    const flaky = new Proxy(real, {
      get: (t, prop, r) =>
        prop === 'ready'
          ? () => (fail-- > 0 ? Promise.reject(new WalletError('KEY_STORAGE_UNAVAILABLE', 'not yet')) : t.ready())
          : Reflect.get(t, prop, r),
    }) as KeyStore;
    const a = p.tab({ keyStore: flaky });
    expect(await codeOf(a.manager.restore())).toBe('KEY_STORAGE_UNAVAILABLE');
    expect(await a.manager.restore()).toEqual([]);
    await a.manager.restore();
    expect(a.wakesRegistered).toBe(1);
    expect(a.channelsOpened).toHaveLength(1);
  });

  it('a load that fails reading storage is tried again; the wake is still registered once', async () => {
    const p = platform();
    const entries = p.backend.entries;
    p.backend.entries = async () => {
      p.backend.entries = entries;
      throw new DOMException('broken', 'UnknownError');
    };
    const a = p.tab();
    expect(await codeOf(a.manager.restore())).toBe('KEY_STORAGE_UNAVAILABLE');
    expect(await a.manager.restore()).toEqual([]);
    expect(a.wakesRegistered).toBe(1);
  });

  it('disposed while loading: no wake registered, no channel opened', async () => {
    const p = platform();
    const real = createKeyStore({ backend: p.backend });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loading = deferred();
    const slow = new Proxy(real, { get: (t, prop, r) => (prop === 'ready' ? async () => (loading.resolve(), await gate, t.ready()) : Reflect.get(t, prop, r)) }) as KeyStore;
    const a = p.tab({ keyStore: slow });
    const restoring = a.manager.restore();
    await loading.promise; // the load waits for the key store
    a.manager.dispose();
    release();
    await restoring.catch(() => undefined);
    expect(a.wakesRegistered).toBe(0);
    expect(a.channelsOpened).toEqual([]);
  });

  it('every call of a disposed manager is INVALID_ARGUMENT; dispose is idempotent', async () => {
    const p = platform();
    const a = p.tab();
    a.manager.dispose();
    a.manager.dispose();
    for (const call of [a.manager.restore(), a.manager.signer(ACCOUNT), a.manager.logout(ACCOUNT), a.manager.list(ACCOUNT), a.manager.refresh(ACCOUNT), a.manager.forget([])]) {
      expect(await codeOf(call)).toBe('INVALID_ARGUMENT');
    }
  });

  it('a new tab: the last account used is the default; pending ends are finished and orphan keys ended at load', async () => {
    const p = platform();
    const a = p.tab();
    await p.login(a, ACCOUNT);
    const s2 = await p.login(a, OTHER);
    const b = p.tab();
    await b.manager.restore();
    expect(b.manager.current()?.id).toBe(s2.id);

    // A logout made offline leaves its session as a pending end; a tab that loads later finishes it.
    p.service.offline = true;
    await a.manager.logout(OTHER);
    expect(p.service.active(s2.id)).toBe(true);
    p.service.offline = false;
    const c = p.tab();
    await c.manager.restore();
    await until(() => !p.service.active(s2.id), 'pending end finished');
    await until(async () => (await c.keyStore.get(s2.publicKeyHex)) === undefined, 'its key deleted');

    // A key a closed tab stored for a session it never committed.
    const key = await generateSessionKey();
    const made = p.service.make(ACCOUNT, key.publicKeyHex);
    p.timers.now += 5 * MIN;
    await a.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: made.id });
    const d = p.tab();
    await d.manager.restore();
    await until(() => !p.service.active(made.id), 'orphan ended');
  });
});

describe('the default account', () => {
  it('a call without an account, in a tab that knows of none, re-reads storage first (no channel)', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const s = await p.login(a);
    const signer = await b.manager.signer();
    expect(signer.publicKeyHex).toBe(s.publicKeyHex);
  });

  it('only a call naming no account, in a tab that knows of none, reads every account (one pass over storage)', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const b = p.tab();
    const d = p.tab();
    await b.manager.restore();
    await d.manager.restore();
    await p.login(a, ACCOUNT);
    let passes = 0;
    const entries = p.backend.entries;
    p.backend.entries = async () => (passes++, entries());
    const count = async (call: () => Promise<unknown>): Promise<number> => {
      passes = 0;
      await call().catch(() => undefined);
      return passes;
    };
    // b knows of no account: naming one reads only it.
    expect(await count(() => b.manager.list(OTHER))).toBe(0);
    expect(await count(() => b.manager.signer(ACCOUNT))).toBe(0);
    const c = p.tab();
    await c.manager.restore();
    expect(await count(() => c.manager.signer())).toBe(0); // c loaded after the login: it knows one
    expect(await count(() => d.manager.signer())).toBe(1); // knows none: reads them all (and finds the login)
  });

  it('the account last used (a login, a signer asked for) is the default; after its logout, the first that has a session', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const s1 = await p.login(a, ACCOUNT);
    const s2 = await p.login(a, OTHER);
    expect(a.manager.current()?.id).toBe(s2.id);
    await a.manager.resolve(ACCOUNT);
    expect(a.manager.current()?.id).toBe(s1.id);
    await a.manager.signer(OTHER);
    expect(a.manager.current()?.id).toBe(s2.id);
    await a.manager.logout();
    expect(a.manager.current(OTHER)).toBeNull();
    expect(a.manager.current()?.id).toBe(s1.id);
    // OTHER logs in again in another tab: ACCOUNT stays this tab's default (the one it used last).
    await until(() => b.manager.current(OTHER) === null, 'b logged out');
    const s3 = await p.login(b, OTHER);
    await until(() => a.manager.current(OTHER)?.id === s3.id, 'a sees the new login');
    expect(a.manager.current()?.id).toBe(s1.id);
    // A refresh without an account refreshes the default, now (explicit: not only when due).
    const next = await a.manager.refresh();
    expect(next.accountId).toBe(ACCOUNT);
    expect(next.id).not.toBe(s1.id);
    const sent = p.service.calls.filter((c) => c.kind === 'refresh');
    expect(sent.map((c) => [c.id, c.options?.automatic])).toEqual([[s1.id, false]]);
  });

  it('logging out an account other than the last used keeps the last used as the default', async () => {
    const p = platform();
    const a = p.tab();
    const THIRD = 'InternalAccount:tabs-c';
    await p.login(a, ACCOUNT);
    const o = await p.login(a, OTHER);
    await p.login(a, THIRD);
    await a.manager.resolve(OTHER);
    await a.manager.logout(THIRD);
    expect(a.manager.current()?.id).toBe(o.id);
  });

  it('current() with no session anywhere is null; all() lists every account, oldest first', async () => {
    const p = platform();
    const a = p.tab();
    expect(a.manager.current()).toBeNull();
    p.timers.now += 2 * MIN;
    const late = await p.login(a, ACCOUNT);
    p.timers.now -= MIN;
    const early = await p.login(a, OTHER);
    p.timers.now += 3 * MIN;
    const later = await p.login(a, OTHER, 'AuthMethod:2');
    expect(a.manager.all().map((s) => s.id)).toEqual([early.id, late.id, later.id]);
  });

  it('logout without an account and none known does nothing', async () => {
    const p = platform();
    const a = p.tab();
    await a.manager.logout();
    expect(p.service.calls).toEqual([]);
    expect(a.events).toEqual([]);
    expect(await p.backend.entries()).toEqual([]);
  });
});

describe('logout', () => {
  it('here "user", in the other tab "other-tab"; every session ended with its own key, approved; changed origins follow', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const s1 = await p.login(a);
    const s2 = await p.login(a, ACCOUNT, 'AuthMethod:2');
    await until(() => b.manager.all().length === 2, 'b sees both');
    await a.manager.logout(ACCOUNT);
    await until(() => loggedOut(b).length === 1, 'b logged out');
    expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: 'user' }]);
    expect(loggedOut(b)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    expect(changed(a).at(-1)).toEqual({ accountId: ACCOUNT, origin: 'this-tab' });
    expect(changed(b).at(-1)).toEqual({ accountId: ACCOUNT, origin: 'other-tab' });
    const ends = p.service.calls.filter((c) => c.kind === 'end');
    expect(new Map(ends.map((c) => [c.id, c.key]))).toEqual(new Map([[s1.id, s1.publicKeyHex], [s2.id, s2.publicKeyHex]]));
    expect(ends.every((c) => c.options?.approved === true)).toBe(true);
    expect(a.manager.all()).toEqual([]);
    expect(await codeOf(a.manager.signer(ACCOUNT))).toBe('NOT_LOGGED_IN');
  });

  it('cancels this tab\'s tracked calls at once and tells the other tabs before it waits for a refresh on the wire', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    await p.login(a);
    await until(() => b.manager.current(ACCOUNT) !== null, 'b sees');
    const ta = await a.manager.signingTicket(ACCOUNT);
    const tb = await b.manager.signingTicket(ACCOUNT);
    // A refresh on the wire holds the refresh lock: the logout waits for it after its request.
    let release!: () => void;
    p.service.gate = new Promise<void>((r) => (release = r));
    const refreshing = a.manager.refresh(ACCOUNT).catch((e: unknown) => e);
    await until(() => p.service.calls.some((c) => c.kind === 'refresh'), 'refresh sent');
    const out = a.manager.logout(ACCOUNT);
    await until(() => ta.signal.aborted && tb.signal.aborted, 'both cancelled while the refresh is on the wire');
    expect(isWalletError(ta.signal.reason, 'NOT_LOGGED_IN')).toBe(true);
    expect(isWalletError(tb.signal.reason, 'NOT_LOGGED_IN')).toBe(true);
    p.service.gate = undefined;
    release();
    await out;
    await refreshing;
    expect(a.manager.all()).toEqual([]);
    await until(() => b.manager.all().length === 0, 'b empty');
  });

  it('waits for a login in flight (it loses), then ends what is stored', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    let release!: () => void;
    let aborted = false;
    const login = a.manager.loggingIn(ACCOUNT, async (ticket) => {
      await new Promise<void>((r) => (release = r));
      aborted = ticket.signal.aborted;
    });
    await until(() => release !== undefined, 'login in flight');
    let done = false;
    const out = a.manager.logout(ACCOUNT).then(() => void (done = true));
    // The logout queues for the logins lock the login in flight holds (shared).
    await until(() => a.lockNames.filter((n) => n.endsWith(`:logins:${ACCOUNT}`)).length === 2, 'the logout waits for the logins lock');
    await flush();
    expect(done).toBe(false);
    expect(p.service.active(s.id)).toBe(true);
    release();
    await login;
    await out;
    expect(aborted).toBe(true);
    expect(p.service.active(s.id)).toBe(false);
  });

  it('a logout another tab left pending (its tab closed) is carried out by the next operation here, before it', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const s1 = await p.login(a);
    const s2 = await p.login(a, ACCOUNT, 'AuthMethod:2');
    await requestLogout(a.keyStore.meta, ACCOUNT);
    // forget enters the section at once: the logout is carried out first (both sessions ended on
    // the service), so the account is logged out by the other tab, not revoked by this call.
    await a.manager.forget([s2.id]);
    expect(a.manager.all()).toEqual([]);
    expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    expect(p.service.active(s1.id)).toBe(false);
    expect(p.service.active(s2.id)).toBe(false);
  });

  it('a refresh with a logout pending is NOT_LOGGED_IN, and the logout is finished in the background', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const s = await p.login(a);
    await requestLogout(a.keyStore.meta, ACCOUNT);
    expect(await codeOf(a.manager.refresh(ACCOUNT))).toBe('NOT_LOGGED_IN');
    await until(() => !p.service.active(s.id), 'ended');
    expect(p.service.calls.filter((c) => c.kind === 'refresh')).toEqual([]);
    await until(() => loggedOut(a).length === 1, 'logged out');
    expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
  });

  it('a second logout, made in another tab, is "other-tab" here even after this tab logged out once', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    await p.login(a);
    await a.manager.logout(ACCOUNT);
    await p.login(a);
    await until(() => b.manager.current(ACCOUNT) !== null, 'b sees');
    await b.manager.logout(ACCOUNT);
    await until(() => loggedOut(a).length === 2, 'a logged out again');
    expect(loggedOut(a)).toEqual([
      { accountId: ACCOUNT, reason: 'user' },
      { accountId: ACCOUNT, reason: 'other-tab' },
    ]);
  });
});

describe('forget', () => {
  it('refuses what is not an array of ids', async () => {
    const p = platform();
    const a = p.tab();
    for (const bad of ['Session:1', [1], ['Session:1', 2], null, [undefined], {}]) expect(await codeOf(a.manager.forget(bad as never))).toBe('INVALID_ARGUMENT');
  });

  it('drops one of an account\'s sessions: the other stays, and becomes current when the dropped one was', async () => {
    const p = platform();
    const a = p.tab();
    const s1 = await p.login(a);
    const s2 = await p.login(a, ACCOUNT, 'AuthMethod:2');
    await a.manager.forget([s2.id]);
    expect(a.manager.all().map((x) => x.id)).toEqual([s1.id]);
    expect(a.manager.current(ACCOUNT)?.id).toBe(s1.id);
    expect(named(a, 'session').at(-1)).toEqual(s1);
  });

  it('drops only the named sessions, without asking the service; the account logs out with the reason given (default revoked)', async () => {
    for (const reason of [undefined, 'user', 'other-tab', 'expired', 'revoked', 'nonsense'] as const) {
      const p = platform();
      const a = p.tab();
      const b = p.tab();
      await b.manager.restore();
      const s = await p.login(a, ACCOUNT);
      const o = await p.login(a, OTHER);
      await until(() => b.manager.all().length === 2, 'b sees both');
      const runs = a.lockNames.length;
      await (reason === undefined ? a.manager.forget([s.id, 'Session:unknown']) : a.manager.forget([s.id], reason as LogoutReason));
      expect(a.manager.current(ACCOUNT)).toBeNull();
      expect(a.manager.current(OTHER)?.id).toBe(o.id);
      // The reason given, here; a logout made here ('user') is 'other-tab' in the other tabs.
      const want = reason === undefined || reason === 'nonsense' ? 'revoked' : reason;
      expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: want }]);
      await until(() => loggedOut(b).length === 1, 'b follows');
      expect(loggedOut(b)).toEqual([{ accountId: ACCOUNT, reason: want === 'user' ? 'other-tab' : want }]);
      expect(p.service.calls.filter((c) => c.kind === 'end')).toEqual([]);
      expect(await a.keyStore.get(s.publicKeyHex)).toBeUndefined();
      // Only the account that held one was entered.
      expect(a.lockNames.slice(runs).filter((n) => n.includes(OTHER))).toEqual([]);
      // Only for that forget: a later logout made in the other tab is 'other-tab' here.
      await p.login(a, ACCOUNT);
      await until(() => b.manager.current(ACCOUNT) !== null, 'b sees the login');
      await b.manager.logout(ACCOUNT);
      await until(() => loggedOut(a).length === 2, 'a follows the logout');
      expect(loggedOut(a)[1]).toEqual({ accountId: ACCOUNT, reason: 'other-tab' });
    }
  });
});

describe('loggingIn', () => {
  it('refuses a bad account or fn at once', () => {
    const p = platform();
    const a = p.tab();
    for (const bad of ['', 3, undefined]) expect(() => a.manager.loggingIn(bad as never, async () => 1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => a.manager.loggingIn(ACCOUNT, 'x' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('gives fn the ticket of the nonce when it was called; untracked once fn settles', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    await p.login(a);
    await a.manager.logout(ACCOUNT);
    const nonce = (await a.keyStore.meta.get(LOGOUT_PREFIX + ACCOUNT)) as { nonce: string };
    const seen = await a.manager.loggingIn(ACCOUNT, async (ticket) => ({ ...ticket }));
    expect(seen.accountId).toBe(ACCOUNT);
    expect(seen.logoutNonce).toBe(nonce.nonce);
    expect(seen.signal.aborted).toBe(false);
    // Tracked only while fn runs: the 1 s watch finds nothing to watch and stops.
    p.timers.advance(1000); // nothing tracked: the timer returns at once, arming nothing
    await flush();
    expect(p.timers.delays(a.id)).not.toContain(1000);
  });

  it('a logout requested while the login waited for its lock wins: fn never runs (NOT_LOGGED_IN)', async () => {
    const p = platform();
    const a = p.tab();
    await a.manager.restore();
    let release!: () => void;
    const first = a.manager.loggingIn(ACCOUNT, () => new Promise<void>((r) => (release = r)));
    await until(() => release !== undefined, 'the first login in flight');
    // An exclusive hold on the logins lock (as signOutOtherDevices takes) queues the next login.
    const blocker = p.locks.forTab(9).request(`embedded-wallet-signer:logins:${ACCOUNT}`, { mode: 'exclusive' }, async () => undefined);
    let ran = false;
    const second = a.manager.loggingIn(ACCOUNT, async () => (ran = true));
    // It waits for its lock (behind the blocker): the first login's request and its own are made.
    await until(() => a.lockNames.filter((n) => n.endsWith(`:logins:${ACCOUNT}`)).length === 2, 'the second login waits for its lock');
    await requestLogout(a.keyStore.meta, ACCOUNT);
    release();
    await first;
    await blocker;
    expect(await codeOf(second)).toBe('NOT_LOGGED_IN');
    expect(ran).toBe(false);
  });

  it('a logout during fn aborts its signal with NOT_LOGGED_IN', async () => {
    const p = platform();
    const a = p.tab();
    await p.login(a);
    const b = p.tab();
    await b.manager.restore();
    let out: Promise<void> | undefined;
    const reason = await a.manager.loggingIn(ACCOUNT, async (ticket) => {
      // Another tab's logout waits for this login, but cancels it first.
      out = b.manager.logout(ACCOUNT);
      await until(() => ticket.signal.aborted, 'aborted');
      return ticket.signal.reason as unknown;
    });
    expect(isWalletError(reason, 'NOT_LOGGED_IN')).toBe(true);
    await out;
  });
});

describe('signingTicket and signer', () => {
  it('a ticket for a named account made while this tab still loads is bound to the nonce when called: a logout requested meanwhile (another tab) aborts it (I2)', async () => {
    const p = platform();
    const a = p.tab();
    await p.login(a);
    // The account's section busy (another tab's commit): a new tab's load waits for it.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holding = deferred();
    void p.locks.forTab(99).request(`embedded-wallet-signer:account:${ACCOUNT}`, { mode: 'exclusive' }, () => (holding.resolve(), held));
    await holding.promise;
    const b = p.tab();
    let ticket: Awaited<ReturnType<typeof b.manager.signingTicket>> | undefined;
    const asked = b.manager.signingTicket(ACCOUNT).then((t) => (ticket = t));
    await until(() => b.lockNames.some((n) => n.endsWith(`:account:${ACCOUNT}`)), "b's load waits for the section");
    expect(ticket).toBeUndefined(); // still loading
    await requestLogout(a.keyStore.meta, ACCOUNT); // another tab asks for a logout
    release();
    await asked;
    expect(ticket!.logoutNonce).toBeNull(); // the nonce when it was called
    expect(ticket!.signal.aborted).toBe(true);
    expect(isWalletError(ticket!.signal.reason, 'NOT_LOGGED_IN')).toBe(true);
    ticket!.done();
  });

  it('no account known: an inert ticket (no account, no nonce, never aborted)', async () => {
    const p = platform();
    const a = p.tab();
    const t = await a.manager.signingTicket();
    expect(t.accountId).toBeUndefined();
    expect(t.logoutNonce).toBeNull();
    expect(t.signal.aborted).toBe(false);
    t.done();
    expect(await codeOf(a.manager.resolveFor(t))).toBe('NOT_LOGGED_IN');
    expect(p.timers.delays(a.id)).toEqual([]);
  });

  it('a ticket carries the stored nonce, is aborted by a logout, and resolveFor signs with its account', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    const t = await a.manager.signingTicket();
    expect(t.accountId).toBe(ACCOUNT);
    expect(t.logoutNonce).toBeNull();
    const { session } = await a.manager.resolveFor(t);
    expect(session.id).toBe(s.id);
    await a.manager.logout();
    expect(t.signal.aborted).toBe(true);
    const s2 = await p.login(a);
    const t2 = await a.manager.signingTicket(ACCOUNT);
    const stored = ((await a.keyStore.meta.get(LOGOUT_PREFIX + ACCOUNT)) as { nonce: string }).nonce;
    expect(t2.logoutNonce).toEqual(stored);
    expect((await a.manager.resolveFor(t2)).session.id).toBe(s2.id);
    // The default account's ticket carries that account's nonce too.
    expect((await a.manager.signingTicket()).logoutNonce).toEqual(stored);
  });

  it('signer().sign signs while the session is held; refuses (NOT_LOGGED_IN) once a logout is pending (requested, or a newer nonce than the state was committed under), or the session is gone', async () => {
    const data = new Uint8Array([7, 7, 7]);
    for (const how of ['pending', 'stale', 'forgotten'] as const) {
      const p = platform({ channel: false });
      const a = p.tab();
      const s = await p.login(a);
      const signer = await a.manager.signer(ACCOUNT);
      const sig = await signer.sign(data);
      expect(await verifySignature(s.publicKeyHex, sig, data)).toBe(true);
      if (how === 'pending') await requestLogout(a.keyStore.meta, ACCOUNT);
      if (how === 'stale') {
        // A logout record newer than the state's (another nonce than the state was committed under).
        await a.keyStore.meta.put(LOGOUT_PREFIX + ACCOUNT, { nonce: 'later', generation: -1 });
      }
      if (how === 'forgotten') {
        await p.login(a, ACCOUNT, 'AuthMethod:2'); // the account holds another session: still signs
        expect(await verifySignature(s.publicKeyHex, await signer.sign(data), data)).toBe(true);
        await a.manager.forget([s.id]);
      }
      expect(await codeOf(signer.sign(data))).toBe('NOT_LOGGED_IN');
    }
  });
});

describe('a ticket for an account that is not a valid id', () => {
  it('resolveFor fails INVALID_ARGUMENT: it never signs with the default account instead', async () => {
    const p = platform();
    const a = p.tab();
    await p.login(a);
    for (const bad of ['', 42]) {
      const t = await a.manager.signingTicket(bad as never);
      expect(t.signal.aborted).toBe(false);
      expect(await codeOf(a.manager.resolveFor(t))).toBe('INVALID_ARGUMENT');
      t.done();
    }
  });
});

describe('restore', () => {
  it('the first call loads; later calls re-read storage (a tab without a channel catches up)', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const b = p.tab();
    expect(await b.manager.restore()).toEqual([]);
    const s = await p.login(a);
    expect(b.manager.all()).toEqual([]);
    expect(await b.manager.restore()).toEqual([s]);
    await a.manager.logout();
    expect(await b.manager.restore()).toEqual([]);
    expect(loggedOut(b)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
  });
});

describe('rejected', () => {
  const refusal = () => new WalletError('WALLET_SIGNATURE_INVALID', 'refused', { status: 401 });

  it('a session not held here: the error as it is, the service not asked', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    await p.login(a, ACCOUNT, 'AuthMethod:2'); // the account holds another
    await a.manager.forget([s.id]);
    const e = refusal();
    expect(await a.manager.rejected(s, e)).toBe(e);
    expect(p.service.calls.filter((c) => c.kind === 'list')).toEqual([]);
  });

  it('held, revoked on the service: SESSION_REVOKED and dropped; the judging code failing to download: the error as it is', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    const kept = await p.login(a, ACCOUNT, 'AuthMethod:2'); // the account holds another
    p.service.held.get(s.id)!.ended = true;
    const e = refusal();
    expect((await a.manager.rejected(s, e)).code).toBe('SESSION_REVOKED');
    expect(a.manager.all().map((x) => x.id)).toEqual([kept.id]);

    const q = platform();
    const b = q.tab();
    await b.manager.restore();
    const s2 = await q.login(b);
    q.service.held.get(s2.id)!.ended = true;
    const fresh = q.tab();
    await fresh.manager.restore();
    changesChunk.load = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module'));
    expect(await fresh.manager.rejected(s2, e)).toBe(e);
    expect(fresh.manager.current(ACCOUNT)?.id).toBe(s2.id);
  });
});

describe('a login, a refresh: what follows them', () => {
  it('a login finishes the account\'s pending ends at once (a logout made offline, then a login again)', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    p.service.offline = true;
    await a.manager.logout(ACCOUNT);
    p.service.offline = false;
    expect(p.service.active(s.id)).toBe(true);
    const again = await p.login(a);
    await until(() => !p.service.active(s.id), 'the old session ended');
    expect(a.manager.current()?.id).toBe(again.id);
  });

  it('a tab that hears of a login plans its refresh point too; a refresh that fails is refresh-failed with the session and error', async () => {
    const p = platform();
    const a = p.tab({ autoRefresh: false });
    const b = p.tab({ autoRefresh: false });
    await b.manager.restore();
    const s = await p.login(a);
    await until(() => b.manager.current(ACCOUNT) !== null, 'b sees');
    expect(p.timers.delays(b.id)).toContain(10 * MIN);
    p.service.offline = true;
    expect(await codeOf(b.manager.refresh(ACCOUNT))).toBe('NETWORK_ERROR');
    const failed = named(b, 'refresh-failed') as Array<{ session: { id: string }; error: WalletError }>;
    expect(failed).toHaveLength(1);
    expect(failed[0]!.session.id).toBe(s.id);
    expect(failed[0]!.error.code).toBe('NETWORK_ERROR');
    expect(named(b, 'refreshing')).toEqual([{ accountId: ACCOUNT, refreshing: true }, { accountId: ACCOUNT, refreshing: false }]);
  });
});

describe('adopt', () => {
  it('stores a session made elsewhere with its key, makes it current (session, changed), other tabs follow', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const key = await generateSessionKey();
    const auth = p.service.make(ACCOUNT, key.publicKeyHex);
    const session = { id: auth.id, accountId: ACCOUNT, credentialId: 'AuthMethod:9', credentialType: 'EMAIL_OTP' as const, publicKeyHex: key.publicKeyHex, createdAt: auth.createdAt, expiresAt: auth.expiresAt };
    await a.manager.adopt(session, key);
    expect(a.manager.current()).toEqual(session);
    expect(named(a, 'session')).toEqual([session]);
    expect((await a.keyStore.get(key.publicKeyHex))?.sessionId).toBe(session.id);
    await until(() => b.manager.current(ACCOUNT)?.id === session.id, 'b follows');
    expect(await codeOf(a.manager.adopt({ ...session, publicKeyHex: 'ab' }, key))).toBe('INVALID_ARGUMENT');
  });
});

describe('logins run side by side (the logins lock is shared)', () => {
  it('two logins of one account in one tab overlap, with or without cross-tab coordination', async () => {
    for (const crossTab of [true, false]) {
      const p = platform();
      const a = p.tab({ crossTab });
      await a.manager.restore();
      let release!: () => void;
      const first = a.manager.loggingIn(ACCOUNT, () => new Promise<void>((r) => (release = r)));
      await until(() => release !== undefined, 'first running');
      let ran = false;
      const second = a.manager.loggingIn(ACCOUNT, async () => void (ran = true));
      await until(() => ran, `second ran while the first holds the lock (crossTab ${crossTab})`);
      release();
      await first;
      await second;
    }
  });
});

describe('list, signOutOtherDevices, serverNow', () => {
  it('list asks the service for the (default) account; signOutOtherDevices ends only sessions not held here', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    const elsewhere = p.service.make(ACCOUNT, 'ab'.repeat(33));
    expect((await a.manager.list()).map((x) => x.id).sort()).toEqual([s.id, elsewhere.id].sort());
    expect(p.service.calls.filter((c) => c.kind === 'list').map((c) => c.id)).toEqual([ACCOUNT]);
    expect(await a.manager.signOutOtherDevices()).toBe(1);
    expect(p.service.active(elsewhere.id)).toBe(false);
    expect(p.service.active(s.id)).toBe(true);
    expect(a.manager.serverNow()).toBe(a.manager.clock.now());
  });
});

describe('dispose', () => {
  it('stops every timer, detaches the wake, closes the channel and removes listeners', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    await p.login(a);
    await a.manager.signingTicket(ACCOUNT);
    expect(p.timers.delays(a.id).length).toBeGreaterThan(0);
    expect(a.wake).toBeDefined();
    a.manager.dispose();
    expect(p.timers.delays(a.id)).toEqual([]);
    expect(a.wake).toBeUndefined();
    const before = a.events.length;
    await b.manager.logout(ACCOUNT);
    await flush(); // a disposed tab has no channel and no timer; what is left only chains promises
    expect(a.events.length).toBe(before);
    // Storage itself is left: the session is gone because b logged out, not because a was disposed.
    expect(await b.keyStore.meta.get(ACCOUNT_PREFIX + ACCOUNT)).toMatchObject({ sessions: [] });
  });
});
