// Review of issue 22 (INVARIANTS.md): scenarios the other suites did not draw, each failing on the
// code before its fix. Node, against the sandbox, two wallets on one storage (two tabs), or a
// module on its own with a scripted store. I1/I5: a login that loses a logout race while offline;
// I2: a signed leg answered 429 is not resent after a logout, the signer picker and a kept
// manager.signer() sign nothing after one; I1/I7/I8: a logout stays pending across a racing commit;
// I3/I7: a refresh seen late (no channel) still starts the call over; I8: commits that fail on
// storage leave no still-current session to end; I1/I7: logout() without an account in a stale tab;
// I1/I2: a login that lost before its lock sends nothing; S7: malformed lists, localStorage refusing
// writes; I6/I7: a lease left before the clock was set back.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createKeyStore, createMemoryBackend, type KeyStoreBackend, type MetadataStore } from '../../src/keys/index.js';
import { commitState, emptyState, readEnding, readSnapshot, requestLogout } from '../../src/session/state.js';
import { changesChunk } from '../../src/session/manager.js';
import { generateSessionKey } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import { createCancellers } from '../../src/session/operations.js';
import { createServerClock } from '../../src/session/server-clock.js';
import { createSignerPicker } from '../../src/session/signer-pick.js';
import { createView } from '../../src/session/view.js';
import { createEmitter } from '../../src/session/emitter.js';
import type { Session } from '../../src/session/types.js';
import { OTP } from '../flows/helpers/sandbox.js';
import { codeOf, emailLogin, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';
import { deferred, until } from '../helpers/wait-for.js';

const env = useTestSandbox();

async function active(accountId: string): Promise<Array<{ id: string }>> {
  const answer = await env.admin.call<{ data: Array<{ id: string }> }>('GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`);
  return answer.json.data;
}

/** The pending ends the loading tab finishes in the background are done: none is left stored. */
async function pendingEndsFinished(backend: KeyStoreBackend, accountId: string): Promise<void> {
  await until(async () => (await readEnding(createKeyStore({ backend }).meta, accountId)).length === 0, 'the pending ends finished');
}

function tab(backend: KeyStoreBackend, name: string, extra: Parameters<typeof testWallet>[1] = {}) {
  return testWallet(env.sandbox, { backend, crossTab: { name }, autoRefresh: false, ...extra });
}

describe('I1/I5: a login that loses a logout race while the service cannot be reached', () => {
  it('its session becomes a pending end (key kept), finished by the logout; nothing left on the service', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    let offline = false;
    let verifies = 0;
    let onVerified: (() => Promise<void>) | undefined;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (offline) throw new TypeError('fetch failed');
      const url = String(input instanceof Request ? input.url : input);
      const answer = await globalThis.fetch(input, init);
      if (init?.method === 'POST' && url.includes('/verify') && ++verifies === 2 && onVerified) await onVerified();
      return answer;
    }) as typeof fetch;
    const a = tab(backend, name, { fetch: fetchA });
    const b = tab(backend, name);
    await a.wallet.restore();
    await b.wallet.restore();
    let logout: Promise<void> | undefined;
    onVerified = async () => {
      // The service made the session; a logout is requested in tab B, and A loses the network.
      const { logoutNonce } = await readSnapshot(createKeyStore({ backend }).meta, accountId);
      logout = b.wallet.logout(accountId);
      // B's logout is requested (stored) before A goes on to commit.
      await until(async () => (await readSnapshot(createKeyStore({ backend }).meta, accountId)).logoutNonce !== logoutNonce, "B's logout requested");
      offline = true;
    };
    expect(await codeOf(emailLogin(a.wallet, accountId))).toBe('NOT_LOGGED_IN');
    await logout;
    offline = false;
    // B's logout (online) ended what this browser could name: the login's session included.
    await expect.poll(async () => (await active(accountId)).length).toBe(0);
    const keys = await createKeyStore({ backend }).list({ purpose: 'session' });
    expect(keys).toEqual([]);
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

describe('I2: a signed leg answered 429 is not sent again after a logout', () => {
  it('tab A’s signed PATCH waits out a 429 while tab B (offline) logs out: the leg is not resent, NOT_LOGGED_IN', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    let limited = 0;
    let signedSent = 0;
    let onLimited: (() => void) | undefined;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const signed = [...headers.keys()].some((k) => k.toLowerCase().includes('stamp') || k.toLowerCase().includes('signature'));
      if (init?.method === 'PATCH' && signed) {
        if (limited++ === 0) {
          onLimited?.();
          return new Response(JSON.stringify({ code: 'RATE_LIMITED', message: 'slow down' }), { status: 429, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' } });
        }
        signedSent++;
      }
      return globalThis.fetch(input, init);
    }) as typeof fetch;
    let bOffline = false;
    const fetchB = ((input: RequestInfo | URL, init?: RequestInit) => (bOffline ? Promise.reject(new TypeError('fetch failed')) : globalThis.fetch(input, init))) as typeof fetch;
    const a = tab(backend, name, { fetch: fetchA });
    const b = tab(backend, name, { fetch: fetchB });
    await a.wallet.restore();
    await b.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    await expect.poll(() => b.wallet.session(accountId)?.id).toBe(session.id);
    let logout: Promise<void> | undefined;
    onLimited = () => {
      bOffline = true;
      logout = b.wallet.logout(accountId);
    };
    const action = codeOf(a.wallet.updateAccount(accountId, { privateEnabled: true }));
    expect(await action).toBe('NOT_LOGGED_IN');
    await logout;
    expect(limited).toBe(1);
    expect(signedSent).toBe(0);
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

describe('I1/I8: a logout stays pending when another tab commits while it is being requested', () => {
  it('a commit that read the old nonce lands between the logout’s read and its write: the logout is still pending', async () => {
    const ACCOUNT = 'InternalAccount:review';
    const inner = createKeyStore({ backend: createMemoryBackend() }).meta;
    await inner.put(`account:${ACCOUNT}`, { ...emptyState(ACCOUNT), generation: 1, change: 'login' });
    // Another tab's commit (a refresh, say) has read the state and the old nonce.
    const other = await readSnapshot(inner, ACCOUNT);
    let raced = false;
    const meta: MetadataStore = {
      ...inner,
      get: (name) => inner.get(name),
      list: () => inner.list(),
      delete: (name) => inner.delete(name),
      put: async (name, value) => {
        // Its write lands after the logout read the generation, before the logout's own write.
        if (name === `logout:${ACCOUNT}` && !raced) {
          raced = true;
          expect(await commitState(inner, other, { sessions: [], current: null, change: 'refresh' })).toBeDefined();
        }
        await inner.put(name, value);
      },
    };
    const nonce = await requestLogout(meta, ACCOUNT);
    const snap = await readSnapshot(inner, ACCOUNT);
    expect(snap.logoutNonce).toBe(nonce);
    // Not pending: no refresh is stopped, and should the logout's tab close now, no tab finishes it.
    expect(snap.logoutPending).toBe(true);
  });
});

describe('I3/I7: a signed leg refused because another tab’s refresh replaced its session, in a tab without a channel', () => {
  it('the call starts over with the new session (no SESSION_REVOKED for a logged-in user)', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    let b: ReturnType<typeof tab> | undefined;
    let first = true;
    let oldId: string | undefined;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const signed = [...headers.keys()].some((k) => k.toLowerCase().includes('stamp') || k.toLowerCase().includes('signature'));
      if (init?.method === 'PATCH' && signed && first && b) {
        first = false;
        // Between A resolving its signer and its leg arriving: B refreshes, the old session is ended.
        await b.wallet.refresh(accountId);
        await expect.poll(async () => (await active(accountId)).some((s) => s.id === oldId)).toBe(false);
      }
      return globalThis.fetch(input, init);
    }) as typeof fetch;
    // No BroadcastChannel (I7): tab A learns of B's refresh only by reading storage.
    const saved = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const a = tab(backend, name, { fetch: fetchA });
      await a.wallet.restore();
      const session = await emailLogin(a.wallet, accountId);
      oldId = session.id;
      b = tab(backend, name);
      await b.wallet.restore();
      expect(await a.wallet.updateAccount(accountId, { privateEnabled: true })).toBeDefined();
      expect(a.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toContain(401);
      expect(a.wallet.session(accountId)?.id).not.toBe(session.id);
      a.wallet.dispose();
      b.wallet.dispose();
    } finally {
      globalThis.BroadcastChannel = saved;
    }
  });
});

describe('I8: a second login with the same credential whose commit fails on storage', () => {
  it('does not leave the first (still current) session listed as a pending end: it stays live and usable', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    let failing = false;
    const broken: KeyStoreBackend = { ...backend, set: (k, v) => (failing && k.startsWith('meta:account:') ? Promise.reject(new Error('QuotaExceededError')) : backend.set(k, v)) };
    const name = `rev-${randomUUID()}`;
    const a = tab(backend, name);
    await a.wallet.restore();
    const first = await emailLogin(a.wallet, accountId);
    const t = tab(broken, name);
    await t.wallet.restore();
    failing = true;
    await emailLogin(t.wallet, accountId).then(
      () => undefined,
      () => undefined,
    );
    failing = false;
    // A tab of the origin loads (it finishes pending ends).
    const c = tab(backend, name);
    await c.wallet.restore();
    await pendingEndsFinished(backend, accountId);
    expect((await active(accountId)).map((s) => s.id)).toEqual([first.id]);
    expect(c.wallet.session(accountId)?.id).toBe(first.id);
    expect(await c.wallet.updateAccount(accountId, { privateEnabled: true })).toBeDefined();
    for (const w of [a, t, c]) w.wallet.dispose();
  });
});

describe('I8: a refresh whose commit fails on storage', () => {
  it('does not leave the still-current session listed as a pending end: it stays live and usable', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    let failing = false;
    const broken: KeyStoreBackend = { ...backend, set: (k, v) => (failing && k.startsWith('meta:account:') ? Promise.reject(new Error('QuotaExceededError')) : backend.set(k, v)) };
    const name = `rev-${randomUUID()}`;
    const t = tab(broken, name);
    await t.wallet.restore();
    const first = await emailLogin(t.wallet, accountId);
    failing = true;
    await t.wallet.refresh(accountId).then(
      () => undefined,
      () => undefined,
    );
    failing = false;
    const c = tab(backend, name);
    await c.wallet.restore();
    await pendingEndsFinished(backend, accountId);
    expect((await active(accountId)).map((s) => s.id)).toEqual([first.id]);
    expect(await c.wallet.updateAccount(accountId, { privateEnabled: true })).toBeDefined();
    for (const w of [t, c]) w.wallet.dispose();
  });
});

describe('I1/I2: a login still downloading changes.ts when logout() is called', () => {
  it('sends no verify once it gets the login lock (it has lost): NOT_LOGGED_IN, nothing made on the service', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    const download = changesChunk.load;
    const gate = deferred();
    const downloading = deferred();
    changesChunk.load = async () => {
      downloading.resolve();
      await gate.promise;
      return download();
    };
    try {
      const a = tab(backend, name);
      const pending = await a.wallet.startOtpLogin({ accountId });
      const login = codeOf(pending.verify(OTP));
      // The login is downloading changes.ts (verify() reached loggingIn) when logout() is called.
      await downloading.promise;
      await a.wallet.logout(accountId);
      const before = a.requests.length;
      gate.resolve();
      expect(await login).toBe('NOT_LOGGED_IN');
      expect(a.requests.slice(before).filter((r) => r.path.endsWith('/verify'))).toEqual([]);
      expect(await active(accountId)).toEqual([]);
      a.wallet.dispose();
    } finally {
      changesChunk.load = download;
    }
  });
});

describe('I1/I7: logout() without an account in a tab that has not heard of the login (no channel)', () => {
  it('logs the account out (storage and service), not nothing', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    const saved = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const a = tab(backend, name);
      await a.wallet.restore();
      const b = tab(backend, name);
      await b.wallet.restore();
      await emailLogin(b.wallet, accountId);
      await a.wallet.logout();
      expect(await active(accountId)).toEqual([]);
      expect((await readSnapshot(createKeyStore({ backend }).meta, accountId)).state.sessions).toEqual([]);
      a.wallet.dispose();
      b.wallet.dispose();
    } finally {
      globalThis.BroadcastChannel = saved;
    }
  });
});

describe('I2: the signer picker never hands out a signer once a logout was requested', () => {
  it('commits keep changing the current session, then a logout is requested: the fourth pick is refused', async () => {
    const ACCOUNT = 'InternalAccount:pick';
    const T0 = Date.parse('2030-01-01T00:00:00.000Z');
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    const key = await generateSessionKey();
    await keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: 'Session:1' });
    const mk = (id: string): Session => ({ id, accountId: ACCOUNT, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: key.publicKeyHex, createdAt: new Date(T0).toISOString(), expiresAt: new Date(T0 + 15 * 60_000).toISOString() });
    const one = mk('Session:1');
    const two = mk('Session:2');
    // Reads of the state alternate: the pick sees Session:1 current; the re-read after it sees
    // another commit (Session:2) three times, then a logout requested.
    let reads = 0;
    let generation = 1;
    const inner = keyStore.meta;
    const meta: MetadataStore = {
      ...inner,
      put: (n, v) => inner.put(n, v),
      delete: (n) => inner.delete(n),
      list: () => inner.list(),
      get: async <T,>(name: string): Promise<T | undefined> => {
        if (name === `account:${ACCOUNT}`) {
          const pick = reads++ % 2 === 0;
          generation++;
          return { accountId: ACCOUNT, generation, current: pick ? one.id : two.id, sessions: [pick ? one : two], change: 'refresh', under: null } as T;
        }
        if (name === `logout:${ACCOUNT}`) return (reads >= 8 ? { nonce: 'N1', generation: 0 } : undefined) as T;
        return inner.get<T>(name);
      },
    };
    const store = new Proxy(keyStore, { get: (t, p, r) => (p === 'meta' ? meta : Reflect.get(t, p, r)) });
    const view = createView(createEmitter(), () => undefined);
    const ctx = {
      keyStore: store,
      service: {} as never,
      host: {} as never,
      view,
      channel: { start: () => undefined, post: () => undefined, close: () => undefined },
      clock: createServerClock(() => T0),
      cancellers: createCancellers(),
      refreshFailed: () => undefined,
      noSession: () => new WalletError('NOT_LOGGED_IN'),
      loggingOut: new Set<string>(),
      endRefused: () => undefined,
    };
    const observe = async (a: string) => {
      const snap = await readSnapshot(meta, a);
      view.apply(snap.state);
      return snap;
    };
    const pick = createSignerPicker({ ctx, view, serverNow: () => T0, observe, run: async (a, fn) => fn(await observe(a)), noSession: () => new WalletError('NOT_LOGGED_IN') });
    const error = await pick(ACCOUNT, undefined, undefined).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { code?: string } | undefined)?.code).toBe('NOT_LOGGED_IN');
  });
});

describe('S7: a malformed list of sessions fails with a WalletError', () => {
  it('signOutOtherDevices over a list whose entries are not sessions: BAD_RESPONSE, not a TypeError', async () => {
    const { accountId } = await env.admin.customer();
    let broken = false;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (broken && (init?.method ?? 'GET') === 'GET' && url.includes('/auth/sessions')) {
        return new Response(JSON.stringify({ data: [null] }), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }
      return globalThis.fetch(input, init);
    }) as typeof fetch;
    const t = testWallet(env.sandbox, { autoRefresh: false, fetch: fetchA });
    await emailLogin(t.wallet, accountId);
    broken = true;
    expect(await codeOf(t.wallet.signOutOtherDevices(accountId))).toBe('BAD_RESPONSE');
    t.wallet.dispose();
  });
});

describe('S7/I7: lease locks over a localStorage that refuses writes', () => {
  it('an operation fails with KEY_STORAGE_UNAVAILABLE (a WalletError), not the DOMException', async () => {
    const { createLeaseLocks } = await import('../../src/session/storage-lock.js');
    const { leaseRefused } = await import('../../src/session/host.js');
    const locks = createLeaseLocks({
      owner: 'tab',
      refused: leaseRefused, // what host.ts passes
      storage: {
        get: () => null,
        set: () => {
          throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
        },
        remove: () => undefined,
        subscribe: () => () => undefined,
      },
    });
    const error = await locks.request('x', { mode: 'exclusive' }, async () => 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe('KEY_STORAGE_UNAVAILABLE');
  });
});

describe('I6/I7: a lease left by a closed tab, then the local clock set back an hour', () => {
  it('the other tab gets the lock after about leaseMs, not after an hour', async () => {
    const { createLeaseLocks } = await import('../../src/session/storage-lock.js');
    const map = new Map<string, string>();
    const storage = { get: (k: string) => map.get(k) ?? null, set: (k: string, v: string) => void map.set(k, v), remove: (k: string) => void map.delete(k), subscribe: () => () => undefined };
    let offset = 0;
    const now = () => Date.now() + offset;
    // Written by a tab that closed holding it, just before the clock was corrected back by an hour.
    map.set('lock:ns:account:A', JSON.stringify({ owner: 'closed-tab:1', until: now() + 150 }));
    offset = -60 * 60 * 1000;
    // Timers and Date.now are fake (vi.useFakeTimers): the 2 s are the lock's, not the machine's.
    vi.useFakeTimers();
    try {
      const b = createLeaseLocks({ storage, owner: 'tab1', leaseMs: 150, settleMs: 5, now });
      let got = false;
      const entered = b.request('ns:account:A', { mode: 'exclusive' }, async () => (got = true));
      await vi.advanceTimersByTimeAsync(2000);
      expect(got).toBe(true);
      expect(await entered).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('I2: a signer the app took from the session manager', () => {
  it('signs nothing once the account was logged out (any tab)', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    const a = tab(backend, name);
    const b = tab(backend, name);
    await a.wallet.restore();
    await b.wallet.restore();
    await emailLogin(a.wallet, accountId);
    const { walletContext } = await import('../../src/session/index.js');
    const signer = await walletContext(a.wallet).sessions.signer(accountId);
    expect((await signer.sign(new Uint8Array([1]))).length).toBeGreaterThan(0);
    await b.wallet.logout(accountId);
    expect(await codeOf(signer.sign(new Uint8Array([1])))).toBe('NOT_LOGGED_IN');
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

describe('I6/I8: a pending end judged on a local clock more than an hour fast', () => {
  it('is ended on the service when it can be, not dropped as past its expiry on the estimate alone', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `rev-${randomUUID()}`;
    let offline = false;
    const fetchA = ((input: RequestInfo | URL, init?: RequestInit) => (offline ? Promise.reject(new TypeError('fetch failed')) : globalThis.fetch(input, init))) as typeof fetch;
    const a = tab(backend, name, { fetch: fetchA });
    await a.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    offline = true;
    await a.wallet.logout(accountId);
    a.wallet.dispose();
    expect((await active(accountId)).map((s) => s.id)).toEqual([session.id]);
    // The next tab loads with its clock two hours fast (no answer of the service seen yet).
    const real = Date.now.bind(Date);
    const fast = vi.spyOn(Date, 'now').mockImplementation(() => real() + 2 * 60 * 60 * 1000);
    try {
      const b = tab(backend, name);
      await b.wallet.restore();
      await expect.poll(async () => (await active(accountId)).length).toBe(0);
      b.wallet.dispose();
    } finally {
      fast.mockRestore();
    }
  });
});
