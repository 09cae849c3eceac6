// I7: without Web Locks or BroadcastChannel. Two simulated tabs (two lease-lock managers over one
// fake localStorage whose `storage` event reaches the other tab only): the emulated lock excludes,
// a lease left by a closed tab lapses, the storage channel carries messages to the other tab only.
import { describe, expect, it } from 'vitest';
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
  it('two tabs never hold the same lock at once; every request is served', async () => {
    const { view } = sharedStorage();
    const tabs = [0, 1].map((t) => createLeaseLocks({ storage: view(t), owner: `tab${t}`, leaseMs: 200, settleMs: 5 }));
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        tabs[i % 2]!.request('ns:account:A', { mode: i % 3 === 0 ? 'shared' : 'exclusive' }, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 3 + (i % 4)));
          order.push(`${i}`);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order).toHaveLength(12);
  });

  it('a lease left by a closed tab lapses: the other tab gets the lock after leaseMs, not never', async () => {
    const { view } = sharedStorage();
    view(0).set('lock:ns:account:A', JSON.stringify({ owner: 'closed-tab:1', until: Date.now() + 150 }));
    const b = createLeaseLocks({ storage: view(1), owner: 'tab1', leaseMs: 150, settleMs: 5 });
    const started = Date.now();
    await b.request('ns:account:A', { mode: 'exclusive' }, async () => undefined);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(2000);
  });

  it('a held lock is renewed past its lease while its holder works', async () => {
    const { view } = sharedStorage();
    const a = createLeaseLocks({ storage: view(0), owner: 'tab0', leaseMs: 60, settleMs: 2 });
    const b = createLeaseLocks({ storage: view(1), owner: 'tab1', leaseMs: 60, settleMs: 2 });
    const events: string[] = [];
    const first = a.request('n', { mode: 'exclusive' }, async () => {
      events.push('a in');
      await new Promise((r) => setTimeout(r, 250)); // four leases long
      events.push('a out');
    });
    await new Promise((r) => setTimeout(r, 20));
    const second = b.request('n', { mode: 'exclusive' }, async () => void events.push('b in'));
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
    await new Promise((r) => setTimeout(r, 0));
    expect(got.b).toEqual([
      { from: 'a', account: 'InternalAccount:1' },
      { from: 'a', account: 'InternalAccount:1' },
    ]);
    expect(got.a).toEqual([]);
    expect([...map.keys()]).toEqual([]);
    b.close();
    a.postMessage({ from: 'a' });
    await new Promise((r) => setTimeout(r, 0));
    expect(got.b).toHaveLength(2);
  });
});
