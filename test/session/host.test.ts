// host.ts, the browser glue, in node over a fake window: `navigator.locks` (web-locks-fake.ts, a
// small correct Web Locks), node's BroadcastChannel, and for I7 a localStorage whose other tab is
// played by the test (its writes fire `storage` events in this window; this window's writes reach
// its listeners). Each test imports host.ts afresh (its lease locks and fallback loader are per page).
// Checked: which lock manager and channel a page gets for each shape of the platform; the lease
// locks exclude across pages and within one (one lease-lock manager per page, under one tab id);
// a localStorage refusing the lease fails with KEY_STORAGE_UNAVAILABLE (leaseRefused), never the
// DOMException; the storage channel drops what is posted before its code is loaded and nothing
// after close; a failed download of the fallback is NETWORK_ERROR and tried again; timers, the
// monotonic clock and ids.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred, flush, until, within } from '../helpers/wait-for.js';
import { FakeWebLocks } from './web-locks-fake.js';
import type { LeaseStorage } from '../../src/session/storage-lock.js';

type HostModule = typeof import('../../src/session/host.js');
const load = async (): Promise<HostModule> => {
  vi.resetModules();
  return import('../../src/session/host.js');
};
/** Work done inside a lock: it takes real time, so that requests overlap; what is checked holds at any speed. */
const holdFor = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/**
 * Waits until the fallback's code is loaded and has looked at this window's localStorage (its probe;
 * the channel listens in the same step), and the probe's storage events have reached the other tab.
 */
const probed = async (w: { mine: Array<[string, string | null]>; delivered: () => Promise<void> }) => {
  await until(() => w.mine.some(([k]) => k.endsWith(':probe')), 'the fallback probed localStorage');
  await w.delivered();
};
const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { name?: string; code?: string; cause?: unknown; message?: string });

/** A window with a localStorage, and the one other tab of its origin. */
function fakeWindow(options: { refuse?: (key: string) => boolean } = {}) {
  const map = new Map<string, string>();
  const target = new EventTarget();
  const otherListeners = new Set<(k: string | null, v: string | null) => void>();
  const mine: Array<[string, string | null]> = [];
  // Storage events arrive as tasks (as in a browser); `delivered()` resolves once none is queued.
  let queued = 0;
  let idle: Array<() => void> = [];
  const later = (fn: () => void) => {
    queued++;
    setTimeout(() => {
      try {
        fn();
      } finally {
        if (--queued === 0) for (const r of idle.splice(0)) r();
      }
    }, 0);
  };
  const delivered = (): Promise<void> => (queued === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r)));
  const toOther = (k: string, v: string | null) => later(() => otherListeners.forEach((l) => l(k, v)));
  const ls = {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (options.refuse?.(k)) throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
      const changed = map.get(k) !== v;
      map.set(k, v);
      mine.push([k, v]);
      if (changed) toOther(k, v);
    },
    removeItem: (k: string) => {
      const had = map.delete(k);
      mine.push([k, null]);
      if (had) toOther(k, null);
    },
  };
  const fireHere = (key: string | null, newValue: string | null, storageArea: unknown = ls) =>
    later(() => target.dispatchEvent(Object.assign(new Event('storage'), { key, newValue, storageArea })));
  /** The other tab's localStorage: its writes fire `storage` events here. */
  const other: LeaseStorage = {
    get: (k) => map.get(k) ?? null,
    set: (k, v) => (map.set(k, v), fireHere(k, v)),
    remove: (k) => (map.delete(k), fireHere(k, null)),
    subscribe: (l) => (otherListeners.add(l), () => otherListeners.delete(l)),
  };
  const install = () => {
    vi.stubGlobal('localStorage', ls);
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    vi.stubGlobal('removeEventListener', target.removeEventListener.bind(target));
  };
  return { map, ls, other, fireHere, mine, install, delivered };
}

beforeEach(() => {
  vi.stubGlobal('navigator', {});
  vi.stubGlobal('localStorage', undefined);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.doUnmock('../../src/session/storage-lock.js');
});

describe('locks(): Web Locks, else leases in localStorage, else none', () => {
  it('is navigator.locks when it has a request function', async () => {
    const web = new FakeWebLocks();
    vi.stubGlobal('navigator', { locks: web });
    const host = await load();
    expect(host.browserHost.locks()).toBe(web);
  });

  it('is undefined without Web Locks and without localStorage (missing, null, or throwing on access)', async () => {
    for (const locks of [undefined, null, {}, { request: 'no' }, () => undefined]) {
      vi.stubGlobal('navigator', { locks });
      vi.stubGlobal('localStorage', undefined);
      expect((await load()).browserHost.locks()).toBeUndefined();
      vi.stubGlobal('localStorage', null);
      expect((await load()).browserHost.locks()).toBeUndefined();
    }
    vi.stubGlobal('navigator', undefined);
    expect((await load()).browserHost.locks()).toBeUndefined();
    Object.defineProperty(globalThis, 'localStorage', { configurable: true, get: () => { throw new DOMException('denied', 'SecurityError'); } });
    expect((await load()).browserHost.locks()).toBeUndefined();
  });

  it('without Web Locks: lease locks, one manager per page, that exclude the other tab and the page\'s own requests', async () => {
    for (const locks of [undefined, null, {}]) {
      vi.stubGlobal('navigator', { locks });
      const w = fakeWindow();
      w.install();
      const host = await load();
      const first = host.browserHost.locks()!;
      expect(first).toBeDefined();
      expect(first).not.toBe(locks);
      const log: string[] = [];
      const job = (label: string, ms: number) => async () => {
        log.push(`${label} in`);
        await holdFor(ms);
        log.push(`${label} out`);
        return label;
      };
      // Two requests of the page through two calls of locks(), and one of the other tab.
      const { createLeaseLocks } = await import('../../src/session/storage-lock.js');
      const otherTab = createLeaseLocks({ storage: w.other, owner: 'other-tab', settleMs: 5 });
      const a = first.request('ns:account:A', { mode: 'exclusive' }, job('a', 40));
      const b = host.browserHost.locks()!.request('ns:account:A', { mode: 'shared' }, job('b', 20));
      await until(() => w.map.has('lock:ns:account:A'), "the page's lease written"); // the other tab then finds it held
      const c = otherTab.request('ns:account:A', { mode: 'exclusive' }, job('c', 10));
      expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
      for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i]!.replace(' in', ' out'));
      expect(log.filter((l) => l.endsWith('in'))).toHaveLength(3);
      // The page's leases carry one id of its own (not the other tab's), and none is left.
      const leases = w.mine.filter(([k, v]) => k === 'lock:ns:account:A' && v !== null).map(([, v]) => (JSON.parse(v!) as { owner: string }).owner.replace(/:\d+$/, ''));
      expect(new Set(leases).size).toBe(1);
      expect(leases[0]).not.toBe('other-tab');
      expect(w.map.has('lock:ns:account:A')).toBe(false);
      vi.unstubAllGlobals();
    }
  });

  it('two pages of the origin get different tab ids for their leases', async () => {
    const owners: string[] = [];
    for (let page = 0; page < 2; page++) {
      vi.stubGlobal('navigator', {});
      const w = fakeWindow();
      w.install();
      const host = await load();
      await host.browserHost.locks()!.request('n', { mode: 'exclusive' }, async () => undefined);
      owners.push((JSON.parse(w.mine.find(([k, v]) => k === 'lock:n' && v !== null)![1]!) as { owner: string }).owner);
    }
    expect(owners[0]).not.toBe(owners[1]);
  });

  it('a localStorage that refuses the lease: KEY_STORAGE_UNAVAILABLE (leaseRefused), with the DOMException as its cause', async () => {
    const w = fakeWindow({ refuse: (k) => k.startsWith('lock:') });
    w.install();
    const host = await load();
    let ran = false;
    const error = await errorOf(host.browserHost.locks()!.request('n', { mode: 'exclusive' }, async () => void (ran = true)));
    expect(ran).toBe(false);
    expect(error).toMatchObject({ name: 'WalletError', code: 'KEY_STORAGE_UNAVAILABLE' });
    expect((error!.cause as DOMException).name).toBe('QuotaExceededError');
    const refused = host.leaseRefused(new Error('x'));
    expect(refused).toMatchObject({ name: 'WalletError', code: 'KEY_STORAGE_UNAVAILABLE', cause: new Error('x') });
  });

  it('a localStorage that refuses every write (or a window without events): each request fails KEY_STORAGE_UNAVAILABLE', async () => {
    const w = fakeWindow({ refuse: () => true });
    w.install();
    const host = await load();
    const locks = host.browserHost.locks()!;
    for (let i = 0; i < 2; i++) expect(await errorOf(locks.request('n', { mode: 'exclusive' }, async () => 1))).toMatchObject({ name: 'WalletError', code: 'KEY_STORAGE_UNAVAILABLE' });

    // Once localStorage takes writes again (a quota freed), the next request gets its lock.
    let full = true;
    const w3 = fakeWindow({ refuse: () => full });
    w3.install();
    const host3 = await load();
    const locks3 = host3.browserHost.locks()!;
    expect(await errorOf(locks3.request('n', { mode: 'exclusive' }, async () => 1))).toMatchObject({ code: 'KEY_STORAGE_UNAVAILABLE' });
    full = false;
    expect(await locks3.request('n', { mode: 'exclusive' }, async () => 2)).toBe(2);

    const w2 = fakeWindow();
    w2.install();
    vi.stubGlobal('addEventListener', undefined);
    const host2 = await load();
    expect(await errorOf(host2.browserHost.locks()!.request('n', { mode: 'exclusive' }, async () => 1))).toMatchObject({ code: 'KEY_STORAGE_UNAVAILABLE' });
  });

  it('the fallback\'s code failing to download: NETWORK_ERROR, and loaded at the next request', async () => {
    const w = fakeWindow();
    w.install();
    let fail = true;
    const real = await import('../../src/session/storage-lock.js');
    vi.resetModules();
    let attempts = 0;
    vi.doMock('../../src/session/storage-lock.js', () => {
      attempts++;
      if (fail) throw new Error('chunk load failed');
      return real;
    });
    const host = await import('../../src/session/host.js');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const locks = host.browserHost.locks()!;
    expect(await errorOf(locks.request('n', { mode: 'exclusive' }, async () => 1))).toMatchObject({ name: 'WalletError', code: 'NETWORK_ERROR' });
    // The storage channel swallows the failure (nothing posted, no unhandled rejection).
    vi.stubGlobal('BroadcastChannel', undefined);
    const channel = host.browserHost.openChannel('c')!;
    channel.postMessage('dropped');
    await until(() => attempts === 2, "the channel's download tried");
    await flush(); // its failure is handled, or reported unhandled, before the next task
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
    fail = false;
    expect(await locks.request('n', { mode: 'exclusive' }, async () => 2)).toBe(2);
  });
});

/** Without BroadcastChannel, over a fake window: the storage channel `ns:sessions` and what it hears. */
async function storageChannel() {
  vi.stubGlobal('BroadcastChannel', undefined);
  const w = fakeWindow();
  w.install();
  const host = await load();
  const channel = host.browserHost.openChannel('ns:sessions')!;
  const got: unknown[] = [];
  channel.onmessage = (e) => got.push(e.data);
  return { w, channel, got };
}

describe('openChannel(): BroadcastChannel, else the storage channel, else none', () => {
  it('is a BroadcastChannel of that name: two of them talk', async () => {
    const host = await load();
    const a = host.browserHost.openChannel('ns:sessions')!;
    const b = host.browserHost.openChannel('ns:sessions')!;
    const c = host.browserHost.openChannel('other')!;
    const got: unknown[] = [];
    const gotC: unknown[] = [];
    b.onmessage = (e) => got.push(e.data);
    c.onmessage = (e) => gotC.push(e.data);
    a.postMessage({ hello: 1 });
    // A last message from each sender: one sender's messages arrive in order, so anything more of
    // the first would have come before it.
    a.postMessage({ last: 1 });
    const d = host.browserHost.openChannel('other')!;
    d.postMessage({ last: 'other' });
    await until(() => got.length >= 2 && gotC.length >= 1, 'the last messages');
    expect(got).toEqual([{ hello: 1 }, { last: 1 }]);
    expect(gotC).toEqual([{ last: 'other' }]);
    for (const ch of [a, b, c, d]) ch.close();
  });

  it('is undefined when the BroadcastChannel constructor throws, or without it and without localStorage', async () => {
    vi.stubGlobal('BroadcastChannel', class {
      constructor() {
        throw new DOMException('no', 'SecurityError');
      }
    });
    expect((await load()).browserHost.openChannel('x')).toBeUndefined();
    vi.stubGlobal('BroadcastChannel', undefined);
    expect((await load()).browserHost.openChannel('x')).toBeUndefined();
  });

  it('without BroadcastChannel: a channel over `storage` events, from when its code is loaded until closed', async () => {
    const { w, channel, got } = await storageChannel();
    channel.postMessage('before the code is loaded'); // dropped, no throw
    await probed(w);
    expect(w.mine.filter(([k]) => k.startsWith('channel:'))).toEqual([]);
    const heard: Array<[string | null, string | null]> = [];
    w.other.subscribe((k, v) => heard.push([k, v]));
    channel.postMessage({ m: 1 });
    await w.delivered();
    expect(heard.map(([k, v]) => [k, v === null ? null : (JSON.parse(v) as { message: unknown }).message])).toEqual([
      ['channel:ns:sessions', { m: 1 }],
      ['channel:ns:sessions', null],
    ]);
    w.other.set('channel:ns:sessions', JSON.stringify({ message: { from: 'other' } }));
    w.fireHere('channel:ns:sessions', JSON.stringify({ message: 'another storage area' }), {});
    await w.delivered();
    expect(got).toEqual([{ from: 'other' }]);
    channel.close();
    w.other.set('channel:ns:sessions', JSON.stringify({ message: 'after close' }));
    channel.postMessage('after close');
    await w.delivered();
    expect(got).toEqual([{ from: 'other' }]);
  });

  it('closed before its code is loaded: never listens nor posts; a localStorage refusing writes gives a channel that stays silent', async () => {
    const { w, channel, got } = await storageChannel();
    channel.close();
    await probed(w);
    w.other.set('channel:ns:sessions', JSON.stringify({ message: 'after close' }));
    channel.postMessage('after close');
    await w.delivered();
    expect(got).toEqual([]);
    expect(w.mine.filter(([k]) => k.startsWith('channel:'))).toEqual([]);

    const refused: string[] = [];
    const w2 = fakeWindow({ refuse: (k) => (refused.push(k), true) });
    w2.install();
    const host2 = await load();
    const silent = host2.browserHost.openChannel('ns:sessions')!;
    await until(() => refused.some((k) => k.endsWith(':probe')), 'the fallback probed localStorage (refused)');
    expect(() => silent.postMessage('x')).not.toThrow();
    silent.close();
  });
});

describe('timers, clock, ids', () => {
  it('setTimer calls back after its delay without keeping node alive; clearTimer cancels', async () => {
    const { browserHost } = await load();
    const calls: string[] = [];
    const t = browserHost.setTimer(() => calls.push('fired'), 5);
    expect((t as { hasRef(): boolean }).hasRef()).toBe(false);
    const cancelled = browserHost.setTimer(() => calls.push('cancelled'), 5);
    browserHost.clearTimer(cancelled);
    // Timers of one delay fire in the order they were set: the cancelled one would come before this.
    const last = deferred();
    browserHost.setTimer(() => last.resolve(), 5);
    await within(last.promise, 'the last timer');
    expect(calls).toEqual(['fired']);
  });

  it('setTimer where setTimeout returns a number (a browser): no unref to call, no throw', async () => {
    const { browserHost } = await load();
    const real = globalThis.setTimeout;
    const fired = deferred();
    vi.stubGlobal('setTimeout', (fn: () => void, ms: number) => (real(fn, ms), 7));
    expect(browserHost.setTimer(() => fired.resolve(), 1)).toBe(7);
    vi.unstubAllGlobals();
    await within(fired.promise, 'the timer firing');
    expect(fired.settled).toBe(true);
  });

  it('monotonicNow is performance.now(), or Date.now() without it', async () => {
    const { browserHost } = await load();
    const before = performance.now();
    const m = browserHost.monotonicNow!();
    expect(m).toBeGreaterThanOrEqual(before);
    expect(m).toBeLessThanOrEqual(performance.now());
    vi.stubGlobal('performance', undefined);
    const d0 = Date.now();
    const d = browserHost.monotonicNow!();
    expect(d).toBeGreaterThanOrEqual(d0);
    expect(d).toBeLessThanOrEqual(Date.now());
    vi.stubGlobal('performance', {});
    expect(browserHost.monotonicNow!()).toBeGreaterThanOrEqual(d0);
  });

  it('randomId: distinct ids, from randomUUID where present and without it', async () => {
    const { randomId } = await load();
    const ids = new Set(Array.from({ length: 200 }, () => randomId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    vi.stubGlobal('crypto', undefined);
    expect(randomId()).not.toBe(randomId());
    vi.stubGlobal('crypto', {});
    const plain = new Set(Array.from({ length: 200 }, () => randomId()));
    expect(plain.size).toBe(200);
    for (const id of plain) expect(id.length).toBeGreaterThan(8);
  });
});
