// storage-lock.ts (I7: the lock shared by the tabs when there are no Web Locks), on a virtual clock
// (lease-sim.ts): generated schedules of requests, holds, failures and tab deaths across several
// tabs and two lock names, over a localStorage whose writes other tabs see up to half the settle wait
// late, judged after every step by an oracle: no two live holders of a name at once; a dead tab's
// lease frees the lock only once it has lapsed; a free lock with a live waiter is taken within the
// settle wait (plus the event's delay and 1 ms); every request of a live tab is served, in call
// order within its tab; nothing is left behind (no timer, no lease of a live tab). Then examples for
// the edges: the defaults (5 s lease), stored garbage, a lease at its `until`, a clock set back, a
// localStorage that refuses, the storage channel and localLeaseStorage over a fake `window`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Sim } from './lease-sim.js';
import { createLeaseLocks, createStorageChannel, localLeaseStorage, type LeaseStorage } from '../../src/session/storage-lock.js';

interface Req { id: number; tab: number; name: string; at: number; hold: number; fail: boolean; mode: 'exclusive' | 'shared' }
type Step = { kind: 'request'; at: number; tab: number; name: string; hold: number; fail: boolean; mode: 'exclusive' | 'shared' } | { kind: 'kill'; at: number; tab: number };

interface Track { req: Req; enteredAt?: number; exitedAt?: number; result?: { ok: boolean; value: unknown } }

/** Runs one schedule and checks the oracle; returns what happened for further checks. */
async function runSchedule(config: { leaseMs?: number; settleMs?: number; lag: number; tabs: number; steps: Step[] }) {
  const L = config.leaseMs ?? 5000;
  const S = config.settleMs ?? 25;
  const sim = new Sim(config.lag);
  const tabs = Array.from({ length: config.tabs }, (_, t) => sim.locks(t, { ...(config.leaseMs !== undefined && { leaseMs: config.leaseMs }), ...(config.settleMs !== undefined && { settleMs: config.settleMs }) }));
  const tracks: Track[] = [];
  const violations: string[] = [];
  const freeSince = new Map<string, number>();
  const deadAt = new Map<number, number>();
  const inside = (name: string) => tracks.filter((x) => x.req.name === name && x.enteredAt !== undefined && x.exitedAt === undefined);
  /** A lease a dead tab left on `name` that has not lapsed yet (its latest write on the key). */
  const deadLease = (name: string): number | undefined => {
    const w = (sim.log.get(`lock:${name}`) ?? []).at(-1);
    if (!w || !sim.dead.has(w.tab) || w.value === null) return undefined;
    const until = (JSON.parse(w.value) as { until: number }).until;
    return until > sim.now ? until : undefined;
  };
  const names = [...new Set(config.steps.flatMap((s) => (s.kind === 'request' ? [s.name] : [])))];
  /** The lock of `name` is free (no live holder inside, no dead tab's lease in force) while a live request waits. */
  const idle = (name: string): boolean => {
    const waiting = tracks.some((x) => x.req.name === name && x.enteredAt === undefined && !sim.dead.has(x.req.tab) && x.req.at <= sim.now);
    const held = inside(name).some((x) => !sim.dead.has(x.req.tab)) || deadLease(name) !== undefined;
    return waiting && !held;
  };
  const observe = (): void => {
    // Once every request of a live tab has settled, no tab keeps a timer (renewal, wait) behind.
    if (tracks.every((x) => x.result !== undefined || sim.dead.has(x.req.tab)) && sim.pending() > 0) violations.push(`${sim.pending()} timers left set at ${sim.now} with nothing in flight`);
    for (const name of names) {
      if (!idle(name)) freeSince.delete(name);
      else if (!freeSince.has(name)) freeSince.set(name, sim.now);
      else if (sim.now - freeSince.get(name)! > config.lag + 1 + S) violations.push(`${name} idle since ${freeSince.get(name)} at ${sim.now} with a live waiter`);
    }
  };
  let id = 0;
  for (const step of config.steps) {
    sim.setTimer(-1, () => {
      if (sim.dead.has(step.tab)) return;
      if (step.kind === 'kill') {
        sim.kill(step.tab);
        deadAt.set(step.tab, sim.now);
        return;
      }
      const req: Req = { id: ++id, tab: step.tab, name: step.name, at: sim.now, hold: step.hold, fail: step.fail, mode: step.mode };
      const track: Track = { req };
      tracks.push(track);
      // A request arriving at a free lock starts its own wait (it may win the race of writes).
      if (idle(req.name)) freeSince.set(req.name, sim.now);
      tabs[req.tab]!.request(req.name, { mode: req.mode }, async () => {
        track.enteredAt = sim.now;
        for (const other of inside(req.name)) {
          if (other === track) continue;
          if (!sim.dead.has(other.req.tab)) violations.push(`#${req.id} (tab ${req.tab}) entered ${req.name} at ${sim.now} while #${other.req.id} (tab ${other.req.tab}) holds it`);
          else {
            const mine = (sim.log.get(`lock:${req.name}`) ?? []).filter((w) => w.tab === other.req.tab && w.value !== null).at(-1);
            const until = mine ? (JSON.parse(mine.value!) as { until: number }).until : -Infinity;
            if (until > sim.now) violations.push(`#${req.id} entered ${req.name} at ${sim.now} before the dead tab ${other.req.tab}'s lease lapsed (${until})`);
          }
        }
        freeSince.delete(req.name);
        await sim.sleep(req.tab, req.hold);
        track.exitedAt = sim.now;
        if (req.fail) throw new Error(`#${req.id} failed`);
        return req.id;
      }).then(
        (value) => (track.result = { ok: true, value }),
        (error: unknown) => (track.result = { ok: false, value: (error as Error).message }),
      );
    }, step.at);
  }
  await sim.run(Infinity, 50_000, observe);
  observe();

  const live = tracks.filter((x) => !sim.dead.has(x.req.tab));
  for (const x of live) {
    if (x.result === undefined) violations.push(`#${x.req.id} (tab ${x.req.tab}, ${x.req.name}, at ${x.req.at}) never served`);
    else if (x.req.fail ? x.result.ok || x.result.value !== `#${x.req.id} failed` : !x.result.ok || x.result.value !== x.req.id) violations.push(`#${x.req.id} settled with ${JSON.stringify(x.result)}`);
  }
  // Call order within a tab and name.
  for (const x of live) {
    for (const y of live) {
      if (x.req.tab === y.req.tab && x.req.name === y.req.name && x.req.id < y.req.id && (y.enteredAt ?? Infinity) < (x.exitedAt ?? Infinity)) violations.push(`#${y.req.id} entered before #${x.req.id} of the same tab left`);
    }
  }
  if (sim.pending() > 0) violations.push(`${sim.pending()} timers left set`);
  for (const [key, writes] of sim.log) {
    const last = writes.at(-1)!;
    if (key.startsWith('lock:') && last.value !== null && !sim.dead.has(last.tab)) violations.push(`${key} left holding ${last.value}`);
  }
  return { violations, tracks, sim, L, S };
}

const stepsOf = (tabs: number, L: number) =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('request' as const), at: fc.integer({ min: 0, max: 2 * L }), tab: fc.nat(tabs - 1), name: fc.constantFrom('ns:account:A', 'ns:refresh:A'), hold: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 3 * L })), fail: fc.boolean(), mode: fc.constantFrom('exclusive' as const, 'shared' as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), at: fc.integer({ min: 0, max: 2 * L }), tab: fc.nat(tabs - 1) }) },
    ),
    { minLength: 1, maxLength: 14 },
  );

describe('lease locks: generated schedules across tabs (oracle after every step)', () => {
  it('mutual exclusion, dead leases lapse only at their time, no idle lock, every request served, nothing left', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }).chain((tabs) =>
          fc.record({
            tabs: fc.constant(tabs),
            lag: fc.integer({ min: 0, max: 4 }),
            steps: stepsOf(tabs, 60),
          }),
        ),
        async ({ tabs, lag, steps }) => {
          const { violations } = await runSchedule({ leaseMs: 60, settleMs: 8, lag, tabs, steps });
          expect(violations).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the same with the defaults (5 s lease, 25 ms settle wait) and writes seen up to 12 ms late', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 3 }).chain((tabs) => fc.record({ tabs: fc.constant(tabs), lag: fc.integer({ min: 0, max: 12 }), steps: stepsOf(tabs, 5000) })),
        async ({ tabs, lag, steps }) => {
          const { violations } = await runSchedule({ lag, tabs, steps });
          expect(violations).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('lease locks: edges', () => {
  const take = async (sim: Sim, tab: number, name = 'n', options: Parameters<Sim['locks']>[1] = { leaseMs: 60, settleMs: 8 }) => {
    let entered: number | undefined;
    const done = sim.locks(tab, options).request(name, { mode: 'exclusive' }, async () => {
      entered = sim.now;
      return 'value';
    });
    return { done, entered: () => entered };
  };

  it('a free lock is entered after the settle wait; a lease left by a closed tab blocks until its `until`, then 1 ms + the settle wait', async () => {
    const sim = new Sim(0);
    const free = await take(sim, 0);
    await sim.run(Infinity);
    expect(free.entered()).toBe(8);
    expect(await free.done).toBe('value');

    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: sim.now + 40 }));
    const start = sim.now;
    const blocked = await take(sim, 1);
    await sim.run(Infinity);
    expect(blocked.entered()).toBe(start + 40 + 1 + 8);
  });

  it('a waiter hears `localStorage.clear()` in another tab (an event without a key) and takes the lock then', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 50 }));
    const t = await take(sim, 1);
    await sim.run(10);
    sim.clearAll(3);
    await sim.run(Infinity);
    expect(t.entered()).toBe(10 + 8);
  });

  it('a lease removed by another tab while its writer waits out the settle wait: the writer looks again and takes the lock', async () => {
    const sim = new Sim(0);
    const t = await take(sim, 1);
    await sim.run(3); // tab 1 wrote its lease at 0 and waits until 8
    sim.clearAll(3);
    await sim.run(Infinity);
    expect(await t.done).toBe('value');
    expect(t.entered()).toBe(8 + 8);
  });

  it('a holder whose lease lapsed (its clock jumped) and was taken over neither renews nor removes the new owner\'s lease', async () => {
    const sim = new Sim(0);
    const events: string[] = [];
    const a = sim.locks(0, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => {
      await sim.sleep(0, 100);
      events.push(`a out ${sim.now}`);
    });
    await sim.run(10);
    sim.offset = 200; // the lease clock jumps ahead: a's lease (until 60) looks lapsed to everyone
    const b = sim.locks(1, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => {
      events.push(`b in ${sim.now}`);
      await sim.sleep(1, 150);
      events.push(`b out ${sim.now}`);
    });
    const owners: string[] = [sim.latest('lock:n')!.owner];
    const watch = () => {
      const lease = sim.latest('lock:n');
      if (lease && owners.at(-1) !== lease.owner) owners.push(lease.owner);
    };
    await sim.run(110, 100_000, watch);
    expect(sim.latest('lock:n')?.owner).toBe('tab1:1'); // a released at 108
    await sim.run(Infinity, 100_000, watch);
    await Promise.all([a, b]);
    // a's renewals (every 20) and its release at 108 leave b's lease alone; b removes it when done.
    expect(events).toEqual(['b in 18', 'a out 108', 'b out 168']);
    expect(owners).toEqual(['tab0:1', 'tab1:1']);
    expect(sim.latest('lock:n')).toBeNull();
  });

  it('with the default timers and sleep: tabs that both find the lock free at once are told apart by the settle wait; no timer is left', async () => {
    vi.useFakeTimers();
    try {
      // One localStorage; another tab sees a write 5 ms late (in a real browser, tabs are processes).
      const writes = new Map<string, Array<{ at: number; tab: number; value: string | null }>>();
      const storage = (tab: number): LeaseStorage => ({
        get: (k) => {
          const list = writes.get(k) ?? [];
          for (let i = list.length - 1; i >= 0; i--) if (list[i]!.tab === tab || list[i]!.at + 5 <= Date.now()) return list[i]!.value;
          return null;
        },
        set: (k, v) => void writes.set(k, [...(writes.get(k) ?? []), { at: Date.now(), tab, value: v }]),
        remove: (k) => void writes.set(k, [...(writes.get(k) ?? []), { at: Date.now(), tab, value: null }]),
        subscribe: () => () => undefined,
      });
      let inside = 0;
      let most = 0;
      const job = async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 10)); // work inside the lock (fake time)
        inside--;
      };
      const tabs = [0, 1].map((t) => createLeaseLocks({ storage: storage(t), owner: `tab${t}` }));
      const both = Promise.all(tabs.map((l) => l.request('n', { mode: 'exclusive' }, job)));
      await vi.advanceTimersByTimeAsync(24);
      expect(inside).toBe(0); // still waiting out the 25 ms settle wait
      await vi.advanceTimersByTimeAsync(6000);
      await both;
      expect(most).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a waiter sleeps through writes of other keys (it looks again only when its lock\'s record changes or its lease lapses)', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 50 }));
    await sim.run(0); // its event delivered
    let reads = 0;
    const storage = sim.storage(1);
    const counted = { ...storage, get: (k: string) => (reads++, storage.get(k)) };
    const locks = createLeaseLocks({ storage: counted, owner: 'tab1', now: () => sim.now, sleep: (ms) => sim.sleep(1, ms), setTimer: (fn, ms) => sim.setTimer(1, fn, ms), clearTimer: (h) => sim.clearTimer(h), leaseMs: 60, settleMs: 8 });
    const done = locks.request('n', { mode: 'exclusive' }, async () => sim.now);
    await sim.run(5);
    expect(reads).toBe(1);
    for (let i = 0; i < 20; i++) sim.storage(3).set(`app:${i}`, 'x');
    sim.storage(3).set('lock:other', 'x');
    await sim.run(40);
    expect(reads).toBe(1);
    await sim.run(Infinity);
    expect(await done).toBe(59);
  });

  it('a lease is lapsed at its `until` exactly: a request made then waits only the settle wait', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 100 }));
    await sim.run(100);
    const t = await take(sim, 1);
    await sim.run(Infinity);
    expect(t.entered()).toBe(108);
  });

  it('a lease up to two lease lengths ahead is live (a clock stepped back a little); one further ahead was written before the clock was set back and is lapsed', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 120 }));
    const live = await take(sim, 1);
    await sim.run(Infinity);
    // Looked at 0 (120 ahead: live), again at 61 (the wait is capped at a lease), then at its end.
    expect(live.entered()).toBe(120 + 1 + 8);

    const sim2 = new Sim(0);
    sim2.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 121 }));
    const lapsed = await take(sim2, 1);
    await sim2.run(Infinity);
    expect(lapsed.entered()).toBe(8);
  });

  it('a live holder whose clock steps back by less than a lease keeps the lock: no other tab enters until it leaves', async () => {
    const sim = new Sim(0);
    const events: string[] = [];
    const a = sim.locks(0, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => {
      events.push(`a in ${sim.now}`);
      await sim.sleep(0, 100);
      events.push(`a out ${sim.now}`);
    });
    await sim.run(9);
    sim.offset = -50; // the clock stepped back 50 ms: a's lease (written at 0, until 60) now ends 101 ms ahead
    const b = sim.locks(1, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => void events.push(`b in ${sim.now}`));
    await sim.run(Infinity);
    await a;
    await b;
    expect(events.slice(0, 2)).toEqual(['a in 8', expect.stringMatching(/^a out /)]);
    expect(events[2]).toMatch(/^b in /);
    expect(sim.pending()).toBe(0);
  });

  it('one refused renewal does not give the lock away: the next renewal lands and no other tab enters while the holder works', async () => {
    const sim = new Sim(0);
    let refusals = 1;
    sim.refuse = (tab, op) => {
      if (tab !== 0 || op !== 'set' || sim.now < 10 || refusals === 0) return false;
      refusals -= 1;
      return true;
    };
    const events: string[] = [];
    const a = sim.locks(0, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => {
      events.push(`a in ${sim.now}`);
      await sim.sleep(0, 200);
      events.push(`a out ${sim.now}`);
    });
    await sim.run(10);
    const b = sim.locks(1, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => void events.push(`b in ${sim.now}`));
    await sim.run(Infinity);
    await a;
    await b;
    expect(refusals).toBe(0);
    expect(events.slice(0, 2)).toEqual(['a in 8', 'a out 208']);
    expect(events[2]).toMatch(/^b in /);
    expect(sim.pending()).toBe(0);
  });

  it('a waiter that saw a lease far ahead (clock set back after it looked) tries again after at most leaseMs + 1', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 50 }));
    const t = await take(sim, 1);
    await sim.run(10);
    sim.offset = -10_000; // the clock set back by 10 s: the lease now ends 10 s + 40 ms ahead
    await sim.run(Infinity);
    // The waiter's timer (set for the lease's end) fires at 51; the lease, now far ahead, is lapsed.
    expect(t.entered()).toBe(51 + 8);
  });

  it('the default lease is 5 s: a closed tab\'s lease blocks for 5 s; a holder working 12 s keeps the lock (renewed)', async () => {
    const sim = new Sim(0);
    sim.storage(5).set('lock:n', JSON.stringify({ owner: 'closed:1', until: 5000 }));
    const t = await take(sim, 1, 'n', {});
    await sim.run(Infinity);
    expect(t.entered()).toBe(5000 + 1 + 25);

    const sim2 = new Sim(0);
    const events: string[] = [];
    const a = sim2.locks(0).request('n', { mode: 'exclusive' }, async () => {
      events.push(`a in ${sim2.now}`);
      await sim2.sleep(0, 12_000);
      events.push(`a out ${sim2.now}`);
    });
    await sim2.run(100);
    const b = sim2.locks(1).request('n', { mode: 'exclusive' }, async () => void events.push(`b in ${sim2.now}`));
    await sim2.run(Infinity);
    await Promise.all([a, b]);
    expect(events).toEqual(['a in 25', 'a out 12025', 'b in 12050']);
  });

  it('stored garbage on the lock key counts as no lease', async () => {
    for (const junk of ['not json', 'null', '1', '"x"', '{}', JSON.stringify({ owner: 'x' }), JSON.stringify({ until: 30 }), JSON.stringify({ owner: 1, until: 30 }), JSON.stringify({ owner: null, until: 30 }), JSON.stringify({ owner: 'x', until: '30' })]) {
      const sim = new Sim(0);
      sim.storage(5).set('lock:n', junk);
      const t = await take(sim, 1);
      await sim.run(Infinity, 1000);
      expect([junk, t.entered()]).toEqual([junk, 8]);
      expect(await t.done).toBe('value');
    }
  });

  it('one page: its requests of a name run one at a time in call order, each taken at once after the last (no wait for a lease to lapse)', async () => {
    const sim = new Sim(0);
    const locks = sim.locks(0, { leaseMs: 60, settleMs: 8 });
    const events: string[] = [];
    const jobs = [0, 1, 2].map((i) =>
      locks.request('n', { mode: 'shared' }, async () => {
        events.push(`${i} in ${sim.now}`);
        await sim.sleep(0, 10);
        if (i === 0) throw new Error('first fails');
        events.push(`${i} out ${sim.now}`);
        return i;
      }),
    );
    const settled = Promise.allSettled(jobs);
    await sim.run(Infinity);
    expect((await settled).map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(events).toEqual(['0 in 8', '1 in 26', '1 out 36', '2 in 44', '2 out 54']);
    // After the queue drained, a new request is again taken at once.
    const later = locks.request('n', { mode: 'exclusive' }, async () => sim.now);
    await sim.run(Infinity);
    expect(await later).toBe(54 + 8);
    expect(sim.pending()).toBe(0);
  });

  it('a localStorage that refuses the lease fails the request with the caller\'s error (or the cause itself); the callback never runs', async () => {
    for (const op of ['get', 'set'] as const) {
      const sim = new Sim(0);
      sim.refuse = (_tab, o) => o === op;
      let ran = false;
      const withRefused = sim.locks(0, { refused: (cause) => new Error(`refused: ${(cause as Error).name}`) }).request('n', { mode: 'exclusive' }, async () => void (ran = true));
      const bare = sim.locks(1, {}).request('n', { mode: 'exclusive' }, async () => void (ran = true));
      const results = Promise.allSettled([withRefused, bare]);
      await sim.run(Infinity);
      const [r1, r2] = await results;
      expect((r1 as PromiseRejectedResult).reason).toEqual(new Error('refused: QuotaExceededError'));
      expect(((r2 as PromiseRejectedResult).reason as DOMException).name).toBe('QuotaExceededError');
      expect(ran).toBe(false);
    }
  });

  it('a renewal or a release that storage refuses keeps the callback\'s result; an unrenewed lease lapses for the other tabs', async () => {
    const sim = new Sim(0);
    let refuse = false;
    sim.refuse = (tab) => tab === 0 && refuse;
    const a = sim.locks(0, { leaseMs: 60, settleMs: 8 });
    const events: string[] = [];
    const first = a.request('n', { mode: 'exclusive' }, async () => {
      refuse = true; // from now on tab 0's storage throws: no renewal, no release
      events.push(`a in ${sim.now}`);
      await sim.sleep(0, 200);
      events.push(`a out ${sim.now}`);
      return 'a result';
    });
    await sim.run(10);
    const second = sim.locks(1, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => void events.push(`b in ${sim.now}`));
    await sim.run(Infinity);
    expect(await first).toBe('a result');
    await second;
    // a's lease was written at 0 until 60 and never renewed: b takes the lock at 60 + 1 + 8 (a still works: best effort, as for a stalled tab).
    expect(events).toEqual(['a in 8', 'b in 69', 'a out 208']);
    expect(sim.pending()).toBe(0);
  });

  it('a release that storage refuses leaves the lease to lapse; the next request of the page still gets the lock', async () => {
    const sim = new Sim(0);
    let refuseRemove = true;
    sim.refuse = (_t, op) => op === 'remove' && refuseRemove;
    const locks = sim.locks(0, { leaseMs: 60, settleMs: 8 });
    expect(await (async () => {
      const p = locks.request('n', { mode: 'exclusive' }, async () => 'one');
      await sim.run(Infinity);
      return p;
    })()).toBe('one');
    refuseRemove = false;
    const next = locks.request('n', { mode: 'exclusive' }, async () => sim.now);
    const other = sim.locks(1, { leaseMs: 60, settleMs: 8 }).request('n', { mode: 'exclusive' }, async () => sim.now);
    await sim.run(Infinity);
    // The page's own stale lease (owner tab0:1, until 60) is not its next request's: that one waits for it to lapse, as the other tab does.
    expect(await next).toBeGreaterThanOrEqual(60);
    expect(await other).toBeGreaterThanOrEqual(60);
  });
});

describe('storage channel (no BroadcastChannel)', () => {
  it('carries each message to the other tabs of its name only, skips other keys, removals and junk, stops at close', async () => {
    const sim = new Sim(0);
    const a = createStorageChannel(sim.storage(0), 'ns:sessions');
    const b = createStorageChannel(sim.storage(1), 'ns:sessions');
    const c = createStorageChannel(sim.storage(2), 'other');
    const got: Record<string, unknown[]> = { a: [], b: [], c: [] };
    a.onmessage = (e) => got.a!.push(e.data);
    b.onmessage = (e) => got.b!.push(e.data);
    c.onmessage = (e) => got.c!.push(e.data);
    a.postMessage({ n: 1 });
    a.postMessage({ n: 1 });
    sim.storage(3).set('lock:x', JSON.stringify({ message: 'not a channel key' }));
    sim.storage(3).set('channel:ns:sessions', 'junk');
    sim.storage(3).set('channel:ns:sessions', JSON.stringify({ message: 'raw' }));
    await sim.run(Infinity);
    expect(got).toEqual({ a: ['raw'], b: [{ n: 1 }, { n: 1 }, 'raw'], c: [] });
    b.close();
    expect(b.onmessage).toBeNull();
    a.postMessage({ n: 2 });
    await sim.run(Infinity);
    expect(got.b).toHaveLength(3);
  });
});

describe('localLeaseStorage over a fake window', () => {
  afterEach(() => vi.unstubAllGlobals());

  function fakeStorage(refuse = false) {
    const map = new Map<string, string>();
    return {
      map,
      getItem: (k: string) => map.get(k) ?? null,
      setItem: (k: string, v: string) => {
        if (refuse) throw new DOMException('quota', 'QuotaExceededError');
        map.set(k, v);
      },
      removeItem: (k: string) => void map.delete(k),
    };
  }

  it('is undefined without localStorage, without window events, or when a write is refused', () => {
    const target = new EventTarget();
    vi.stubGlobal('localStorage', undefined);
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    expect(localLeaseStorage()).toBeUndefined();
    vi.stubGlobal('localStorage', fakeStorage());
    vi.stubGlobal('addEventListener', undefined);
    expect(localLeaseStorage()).toBeUndefined();
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    vi.stubGlobal('localStorage', fakeStorage(true));
    expect(localLeaseStorage()).toBeUndefined();
    Object.defineProperty(globalThis, 'localStorage', { configurable: true, get: () => { throw new DOMException('denied', 'SecurityError'); } });
    expect(localLeaseStorage()).toBeUndefined();
  });

  it('reads and writes localStorage, leaves no probe behind, and passes on `storage` events of that storage only until detached', () => {
    const target = new EventTarget();
    const ls = fakeStorage();
    vi.stubGlobal('localStorage', ls);
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    vi.stubGlobal('removeEventListener', target.removeEventListener.bind(target));
    const storage = localLeaseStorage()!;
    expect([...ls.map.keys()]).toEqual([]);
    storage.set('k', 'v');
    expect(ls.map.get('k')).toBe('v');
    expect(storage.get('k')).toBe('v');
    storage.remove('k');
    expect(storage.get('k')).toBeNull();
    const seen: Array<[string | null, string | null]> = [];
    const detach = storage.subscribe((k, v) => seen.push([k, v]));
    const fire = (storageArea: unknown, key: string | null, newValue: string | null) => target.dispatchEvent(Object.assign(new Event('storage'), { storageArea, key, newValue }));
    fire(ls, 'lock:n', 'x');
    fire({}, 'lock:n', 'from sessionStorage');
    fire(ls, null, null);
    detach();
    fire(ls, 'lock:n', 'after detach');
    expect(seen).toEqual([['lock:n', 'x'], [null, null]]);
  });

  it('a window without removeEventListener: detaching does nothing and does not throw', () => {
    const target = new EventTarget();
    vi.stubGlobal('localStorage', fakeStorage());
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
    vi.stubGlobal('removeEventListener', undefined);
    const detach = localLeaseStorage()!.subscribe(() => undefined);
    expect(() => detach()).not.toThrow();
  });
});
