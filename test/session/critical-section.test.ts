// critical-section.ts: the account's critical section, its login lock and its refresh lock, over
// Web Locks (web-locks-fake.ts, shared by "tabs"), over the realm's own locks (no Web Locks), or over
// a manager's own locks (coordination off). Generated schedules of operations from several managers
// (namespace, coordination, lock manager drawn per manager), judged after every step by an oracle of
// what must exclude what: two operations conflict iff they name the same lock (same lock manager
// scope, namespace, kind and account) and are not both shared logins; conflicting operations are
// never inside at once; an operation waits only behind a conflicting one that is inside or was asked
// for earlier; each manager's sections of an account run in call order; every operation settles with
// its own result or error. Examples: a lock manager that changes between calls, readers-writer order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Sim } from './lease-sim.js';
import { FakeWebLocks } from './web-locks-fake.js';
import { createCriticalSections } from '../../src/session/critical-section.js';
import type { LockManagerLike } from '../../src/session/host.js';

type Kind = 'run' | 'loginShared' | 'loginExclusive' | 'refresh';
interface Op { mgr: number; kind: Kind; account: string; at: number; hold: number; fail: boolean }
interface Mgr { namespace: string; shared: boolean; web: boolean }
interface Track { op: Op; seq: number; entered?: number; exited?: number; settled?: { ok: boolean; value: unknown } }

let unique = 0;

const lockKind = (k: Kind) => (k === 'run' ? 'account' : k === 'refresh' ? 'refresh' : 'logins');

async function runSchedule(mgrs: Mgr[], ops: Op[]) {
  const sim = new Sim(0);
  const web = new FakeWebLocks();
  const tag = `t${++unique}`; // the realm's locks outlive a run: each run names its own namespaces
  const sections = mgrs.map((m) => createCriticalSections({ namespace: `${tag}-${m.namespace}`, shared: () => m.shared, locks: () => (m.web ? (web as unknown as LockManagerLike) : undefined) }));
  const keyOf = (op: Op): string => {
    const m = mgrs[op.mgr]!;
    const scope = !m.shared ? `own${op.mgr}` : m.web ? 'web' : 'realm';
    return `${scope}|${m.namespace}|${lockKind(op.kind)}|${op.account}`;
  };
  const conflict = (a: Op, b: Op) => keyOf(a) === keyOf(b) && !(a.kind === 'loginShared' && b.kind === 'loginShared');
  const tracks: Track[] = [];
  const violations: string[] = [];
  const insideNow = () => tracks.filter((t) => t.entered !== undefined && t.exited === undefined);
  let seq = 0;
  for (const op of ops) {
    sim.setTimer(-1, () => {
      const track: Track = { op, seq: ++seq };
      tracks.push(track);
      const fn = async () => {
        track.entered = sim.now;
        for (const other of insideNow()) if (other !== track && conflict(other.op, op)) violations.push(`#${track.seq} ${op.kind}(${op.mgr}) entered while #${other.seq} ${other.op.kind}(${other.op.mgr}) is inside`);
        await sim.sleep(0, op.hold);
        track.exited = sim.now;
        if (op.fail) throw new Error(`#${track.seq}`);
        return track.seq;
      };
      const s = sections[op.mgr]!;
      const p = op.kind === 'run' ? s.run(op.account, fn) : op.kind === 'refresh' ? s.refreshing(op.account, fn) : s.logins(op.account, op.kind === 'loginShared' ? 'shared' : 'exclusive', fn);
      p.then(
        (value) => (track.settled = { ok: true, value }),
        (e: unknown) => (track.settled = { ok: false, value: (e as Error).message }),
      );
    }, op.at);
  }
  const observe = () => {
    for (const w of tracks) {
      if (w.entered !== undefined) continue;
      const blocker = tracks.find((c) => c !== w && conflict(c.op, w.op) && ((c.entered !== undefined && c.exited === undefined) || (c.entered === undefined && c.seq < w.seq)));
      if (!blocker) violations.push(`#${w.seq} ${w.op.kind}(${w.op.mgr}, ${w.op.account}) waits at ${sim.now} behind nothing`);
    }
  };
  await sim.run(Infinity, 20_000, observe);
  observe();
  for (const t of tracks) {
    const want = t.op.fail ? { ok: false, value: `#${t.seq}` } : { ok: true, value: t.seq };
    if (JSON.stringify(t.settled) !== JSON.stringify(want)) violations.push(`#${t.seq} settled ${JSON.stringify(t.settled)}`);
  }
  // A manager's sections of one account run in call order.
  for (const a of tracks) for (const b of tracks) {
    if (a.op.kind === 'run' && b.op.kind === 'run' && a.op.mgr === b.op.mgr && a.op.account === b.op.account && a.seq < b.seq && !(a.entered! < b.entered! || (a.entered === b.entered && a.exited! <= b.entered!))) violations.push(`run #${b.seq} entered before #${a.seq}`);
  }
  // Login and refresh locks are granted in request order among conflicting requests.
  for (const a of tracks) for (const b of tracks) {
    if (a.op.kind !== 'run' && b.op.kind !== 'run' && a.seq < b.seq && conflict(a.op, b.op) && b.entered! < a.entered!) violations.push(`#${b.seq} granted before the earlier #${a.seq}`);
  }
  return violations;
}

describe('critical sections: generated schedules (oracle after every step)', () => {
  it('exclusion by lock identity, waits only behind a conflicting operation, call order, every operation settles', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ namespace: fc.constantFrom('a', 'b'), shared: fc.boolean(), web: fc.boolean() }), { minLength: 1, maxLength: 3 }).chain((mgrs) =>
          fc.record({
            mgrs: fc.constant(mgrs),
            ops: fc.array(
              fc.record({
                mgr: fc.nat(mgrs.length - 1),
                kind: fc.constantFrom<Kind>('run', 'run', 'loginShared', 'loginExclusive', 'refresh'),
                account: fc.constantFrom('A', 'B'),
                at: fc.integer({ min: 0, max: 30 }),
                hold: fc.integer({ min: 0, max: 12 }),
                fail: fc.boolean(),
              }),
              { minLength: 1, maxLength: 16 },
            ),
          }),
        ),
        async ({ mgrs, ops }) => {
          expect(await runSchedule(mgrs, ops)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('critical sections: examples', () => {
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
  };
  const gate = () => {
    let open!: () => void;
    const p = new Promise<void>((r) => (open = r));
    return { p, open };
  };

  it('a lock manager that changes between calls (Web Locks found later): the account\'s sections still run one at a time, in call order', async () => {
    // Each call gets a lock manager of its own (nothing shared between them): only the in-page queue orders them.
    const sections = createCriticalSections({ namespace: `x${++unique}`, shared: () => true, locks: () => new FakeWebLocks() as unknown as LockManagerLike });
    const log: string[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      sections.run('A', async () => {
        log.push(`${i} in`);
        await g.p;
        log.push(`${i} out`);
        if (i === 0) throw new Error('first fails');
        return i;
      }),
    );
    await flush();
    expect(log).toEqual(['0 in']);
    gates[0]!.open();
    await flush();
    expect(log).toEqual(['0 in', '0 out', '1 in']);
    // A call made while 1 runs (after 0 settled) still waits for 1, 2 and 3.
    const late = sections.run('A', async () => void log.push('late in'));
    gates[1]!.open();
    gates[2]!.open();
    await flush();
    expect(log).toEqual(['0 in', '0 out', '1 in', '1 out', '2 in', '2 out', '3 in']);
    gates[3]!.open();
    const settled = await Promise.allSettled([...runs, late]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(log.at(-1)).toBe('late in');
    // Another account is not held up by A.
    const g = gate();
    const a = sections.run('A', () => g.p);
    let bRan = false;
    await sections.run('B', async () => void (bRan = true));
    expect(bRan).toBe(true);
    g.open();
    await a;
  });

  it('asks for one Web Lock per section at a time: a manager\'s queued sections wait in the page, not at the lock manager', async () => {
    const web = new FakeWebLocks();
    const sections = createCriticalSections({ namespace: 'q', shared: () => true, locks: () => web as unknown as LockManagerLike });
    const g = gate();
    const first = sections.run('A', () => g.p);
    const rest = [sections.run('A', async () => 1), sections.run('A', async () => 2)];
    await flush();
    expect(web.query()).toEqual({ held: [{ name: 'q:account:A', mode: 'exclusive', clientId: 'client' }], pending: [] });
    g.open();
    await Promise.all([first, ...rest]);
    expect(web.requests).toEqual([
      { name: 'q:account:A', mode: 'exclusive' },
      { name: 'q:account:A', mode: 'exclusive' },
      { name: 'q:account:A', mode: 'exclusive' },
    ]);
  });

  it('the realm\'s locks (no Web Locks): readers-writer in request order; shared logins together, an exclusive one alone; released on failure', async () => {
    const ns = `r${++unique}`;
    const one = createCriticalSections({ namespace: ns, shared: () => true, locks: () => undefined });
    const two = createCriticalSections({ namespace: ns, shared: () => true, locks: () => undefined });
    const log: string[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const hold = (label: string, g: { p: Promise<void> }, fail = false) => async () => {
      log.push(`${label} in`);
      await g.p;
      log.push(`${label} out`);
      if (fail) throw new Error(label);
      return label;
    };
    const s1 = one.logins('A', 'shared', hold('s1', gates[0]!, true));
    s1.catch(() => undefined);
    const s2 = two.logins('A', 'shared', hold('s2', gates[1]!));
    const x = one.logins('A', 'exclusive', hold('x', gates[2]!));
    const s3 = two.logins('A', 'shared', hold('s3', gates[3]!));
    await flush();
    expect(log).toEqual(['s1 in', 's2 in']);
    gates[0]!.open();
    await flush();
    expect(log).toEqual(['s1 in', 's2 in', 's1 out']);
    gates[1]!.open();
    await flush();
    expect(log).toEqual(['s1 in', 's2 in', 's1 out', 's2 out', 'x in']);
    gates[2]!.open();
    await flush();
    expect(log.slice(5)).toEqual(['x out', 's3 in']);
    gates[3]!.open();
    expect(await Promise.allSettled([s1, s2, x, s3])).toEqual([
      { status: 'rejected', reason: new Error('s1') },
      { status: 'fulfilled', value: 's2' },
      { status: 'fulfilled', value: 'x' },
      { status: 'fulfilled', value: 's3' },
    ]);
    // All released: a new exclusive request of each kind is granted at once.
    await one.logins('A', 'exclusive', async () => undefined);
    await two.refreshing('A', async () => undefined);
    await one.run('A', async () => undefined);
  });

  it('coordination off: two managers of one namespace do not exclude each other; with it on they do', async () => {
    const ns = `o${++unique}`;
    for (const shared of [false, true]) {
      const a = createCriticalSections({ namespace: ns, shared: () => shared, locks: () => undefined });
      const b = createCriticalSections({ namespace: ns, shared: () => shared, locks: () => undefined });
      const g = gate();
      const held = a.run('A', () => g.p);
      let bRan = false;
      const other = b.run('A', async () => void (bRan = true));
      await flush();
      expect([shared, bRan]).toEqual([shared, !shared]);
      g.open();
      await Promise.all([held, other]);
      expect(bRan).toBe(true);
    }
  });
});
