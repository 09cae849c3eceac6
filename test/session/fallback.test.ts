// I7: without Web Locks or BroadcastChannel. Two simulated tabs (two lease-lock managers over one
// fake localStorage whose `storage` event reaches the other tab only): the emulated lock excludes,
// a lease left by a closed tab lapses, the storage channel carries messages to the other tab only.
// The lease locks run on Vitest's fake timers and Date (their default setTimeout and Date.now): a
// lease, its renewal and the work inside a lock take the time the test gives them, whatever the
// machine's load.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flush } from '../helpers/wait-for.js';
import { createLeaseLocks, createStorageChannel, type LeaseStorage } from '../../src/session/storage-lock.js';

/** One origin's localStorage, seen from tab `tab`: the event fires in the other tabs. */
function sharedStorage() {
  const map = new Map<string, string>();
  const listeners = new Map<number, Set<(k: string | null, v: string | null) => void>>();
  const view = (tab: number): LeaseStorage => {
    const fire = (k: string, v: string | null): void => {
      for (const [t, set] of listeners) if (t !== tab) for (const l of set) queueMicrotask(() => l(k, v));
    };
    return {
      get: (k) => map.get(k) ?? null,
      set: (k, v) => (map.set(k, v), fire(k, v)),
      remove: (k) => (map.delete(k), fire(k, null)),
      subscribe(l) {
        const set = listeners.get(tab) ?? new Set();
        listeners.set(tab, set);
        set.add(l);
        return () => set.delete(l);
      },
    };
  };
  return { map, view };
}

describe('lease locks (no Web Locks)', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('two tabs never hold the same lock at once; every request is served', async () => {
    const { view } = sharedStorage();
    const tabs = [0, 1].map((t) => createLeaseLocks({ storage: view(t), owner: `tab${t}`, leaseMs: 200, settleMs: 5 }));
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const all = Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        tabs[i % 2]!.request('ns:account:A', { mode: i % 3 === 0 ? 'shared' : 'exclusive' }, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 3 + (i % 4))); // work inside the lock (fake time)
          order.push(`${i}`);
          inside--;
        }),
      ),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await all;
    expect(most).toBe(1);
    expect(order).toHaveLength(12);
  });

  it('a lease left by a closed tab lapses: the other tab gets the lock after leaseMs, not never', async () => {
    const { view } = sharedStorage();
    view(0).set('lock:ns:account:A', JSON.stringify({ owner: 'closed-tab:1', until: Date.now() + 150 }));
    const b = createLeaseLocks({ storage: view(1), owner: 'tab1', leaseMs: 150, settleMs: 5 });
    let entered = false;
    const request = b.request('ns:account:A', { mode: 'exclusive' }, async () => void (entered = true));
    await vi.advanceTimersByTimeAsync(140);
    expect(entered).toBe(false);
    await vi.advanceTimersByTimeAsync(2000 - 140);
    expect(entered).toBe(true);
    await request;
  });

  it('a held lock is renewed past its lease while its holder works', async () => {
    const { view } = sharedStorage();
    const a = createLeaseLocks({ storage: view(0), owner: 'tab0', leaseMs: 60, settleMs: 2 });
    const b = createLeaseLocks({ storage: view(1), owner: 'tab1', leaseMs: 60, settleMs: 2 });
    const events: string[] = [];
    const first = a.request('n', { mode: 'exclusive' }, async () => {
      events.push('a in');
      await new Promise((r) => setTimeout(r, 250)); // four leases long (fake time)
      events.push('a out');
    });
    await vi.advanceTimersByTimeAsync(20);
    const second = b.request('n', { mode: 'exclusive' }, async () => void events.push('b in'));
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all([first, second]);
    expect(events).toEqual(['a in', 'a out', 'b in']);
  });
});

describe('storage channel (no BroadcastChannel)', () => {
  it('a message reaches the other tab, not the sender; storage is left clean', async () => {
    const { map, view } = sharedStorage();
    const a = createStorageChannel(view(0), 'ns:sessions');
    const b = createStorageChannel(view(1), 'ns:sessions');
    const got: Record<string, unknown[]> = { a: [], b: [] };
    a.onmessage = (e) => got.a!.push(e.data);
    b.onmessage = (e) => got.b!.push(e.data);
    a.postMessage({ from: 'a', account: 'InternalAccount:1' });
    a.postMessage({ from: 'a', account: 'InternalAccount:1' });
    await flush(); // the storage events are microtasks here
    expect(got.b).toEqual([
      { from: 'a', account: 'InternalAccount:1' },
      { from: 'a', account: 'InternalAccount:1' },
    ]);
    expect(got.a).toEqual([]);
    expect([...map.keys()]).toEqual([]);
    b.close();
    a.postMessage({ from: 'a' });
    await flush(); // the storage events are microtasks here
    expect(got.b).toHaveLength(2);
  });
});
