// channel.ts on its own, with a fake channel host: every malformed message (not an object, null, no
// string `from`, or this tab's own `from`) is ignored without throwing; every well-formed one
// schedules a sync of its account (or of ALL when the hint is missing or empty). The coalescer runs
// at most one sync per key at a time and at most one more after it, whatever arrives meanwhile.
// Logouts (issue 31, I1): a tab on the memory store hears only `loggedOut` messages (and carries each out);
// a shared tab carries out a memory tab's logout and treats a shared tab's as a sync; a memory tab
// posts only its user's logouts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ALL, createCoalescer, createTabChannel } from '../../src/session/channel.js';
import type { ChannelLike, SessionHost } from '../../src/session/host.js';

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function fakeChannelHost(available = true) {
  const opened: (ChannelLike & { posted: unknown[]; closed: boolean })[] = [];
  const host = {
    openChannel(_name: string) {
      if (!available) return undefined;
      const ch = {
        onmessage: null as ((event: { data: unknown }) => void) | null,
        posted: [] as unknown[],
        closed: false,
        postMessage(m: unknown) {
          if (this.closed) throw new Error('closed');
          this.posted.push(m);
        },
        close() {
          this.closed = true;
        },
      };
      opened.push(ch as never);
      return ch as unknown as ChannelLike;
    },
  } as unknown as SessionHost;
  return { host, opened };
}

function setup(enabled = () => true, available = true) {
  const { host, opened } = fakeChannelHost(available);
  const synced: string[] = [];
  const tab = createTabChannel({ name: 'n', host, enabled, onSync: async (a) => void synced.push(a) });
  return { tab, opened, synced };
}

const deliver = (ch: ChannelLike, data: unknown) => (ch.onmessage as (e: { data: unknown }) => void)({ data });

describe('tab channel: parsing what other tabs send', () => {
  it('ignores every malformed message and delivers every well-formed one (generated messages)', async () => {
    const s = setup();
    s.tab.post('mine');
    const ch = s.opened[0]!;
    const ownId = (ch.posted[0] as { from: string }).from;
    expect(ch.posted[0]).toEqual({ from: ownId, account: 'mine' });
    const message = fc.oneof(
      fc.anything(),
      fc.record({ from: fc.oneof(fc.string(), fc.constant(ownId), fc.anything()), account: fc.oneof(fc.string(), fc.constantFrom('', 'acct-1'), fc.anything()) }, { requiredKeys: [] }),
    );
    await fc.assert(
      fc.asyncProperty(message, async (data) => {
        s.synced.length = 0;
        expect(() => deliver(ch, data)).not.toThrow();
        await flush();
        const d = data as { from?: unknown; account?: unknown } | null;
        const wellFormed = typeof d === 'object' && d !== null && typeof d.from === 'string' && d.from !== ownId;
        const key = wellFormed ? (typeof d.account === 'string' && d.account !== '' ? d.account : ALL) : undefined;
        expect(s.synced).toEqual(key === undefined ? [] : [key]);
      }),
      { numRuns: 400 },
    );
  });

  it('examples: null, own id, missing or empty or non-string account', async () => {
    const s = setup();
    s.tab.start();
    const ch = s.opened[0]!;
    expect(() => deliver(ch, null)).not.toThrow();
    deliver(ch, 'text');
    deliver(ch, { account: 'x' });
    deliver(ch, { from: 3, account: 'x' });
    await flush();
    expect(s.synced).toEqual([]);
    deliver(ch, { from: 'other', account: 'acct' });
    await flush();
    deliver(ch, { from: 'other', account: '' });
    await flush();
    deliver(ch, { from: 'other' });
    await flush();
    deliver(ch, { from: 'other', account: 7 });
    await flush();
    expect(s.synced).toEqual(['acct', ALL, ALL, ALL]);
    expect(ALL).toBe('*');
  });
});

function setupAs(memory: boolean) {
  const { host, opened } = fakeChannelHost();
  const synced: string[] = [];
  const logouts: string[] = [];
  const tab = createTabChannel({ name: 'n', host, enabled: () => true, shared: () => !memory, onSync: async (a) => void synced.push(a), onLoggedOut: (a) => void logouts.push(a) });
  tab.start();
  return { tab, ch: opened[0]!, synced, logouts };
}

describe('tab channel: logouts and tabs on the memory store (I1)', () => {
  it('which messages a shared or memory tab syncs on, carries out as a logout, or ignores (generated)', async () => {
    const message = fc.record(
      { from: fc.constantFrom('other', 7), account: fc.constantFrom('acct', '', 3), loggedOut: fc.constantFrom(true, 'yes', false), memory: fc.constantFrom(true, 1, false) },
      { requiredKeys: ['from'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), message, async (memory, data) => {
        const s = setupAs(memory);
        deliver(s.ch, data);
        await flush();
        const wellFormed = data.from === 'other';
        const account = data.account === 'acct' ? 'acct' : undefined;
        const logout = wellFormed && data.loggedOut === true && account !== undefined;
        const carriedOut = logout && (memory || data.memory === true);
        expect(s.logouts).toEqual(carriedOut ? ['acct'] : []);
        expect(s.synced).toEqual(!wellFormed || memory || carriedOut ? [] : [account ?? ALL]);
      }),
      { numRuns: 300 },
    );
  });

  it('posts: a shared tab posts every change (a logout flagged); a memory tab only its logouts, flagged as from memory', () => {
    const shared = setupAs(false);
    shared.tab.post('a');
    shared.tab.post('b', undefined, true);
    const id = (shared.ch.posted[0] as { from: string }).from;
    expect(shared.ch.posted).toEqual([{ from: id, account: 'a' }, { from: id, account: 'b', loggedOut: true }]);
    const memory = setupAs(true);
    memory.tab.post('a');
    memory.tab.post('b', undefined, true);
    const mid = (memory.ch.posted[0] as { from: string }).from;
    expect(memory.ch.posted).toEqual([{ from: mid, account: 'b', loggedOut: true, memory: true }]);
  });

  it('a channel without onLoggedOut: a logout a memory tab hears is ignored without throwing', async () => {
    const { host, opened } = fakeChannelHost();
    const synced: string[] = [];
    const tab = createTabChannel({ name: 'n', host, enabled: () => true, shared: () => false, onSync: async (a) => void synced.push(a) });
    tab.start();
    expect(() => deliver(opened[0]!, { from: 'other', account: 'a', loggedOut: true })).not.toThrow();
    await flush();
    expect(synced).toEqual([]);
  });
});

describe('tab channel: opening and closing', () => {
  it('opens once, lazily, only when enabled; posts carry this tab id', () => {
    let on = false;
    const s = setup(() => on);
    s.tab.start();
    s.tab.post('a');
    expect(s.opened).toHaveLength(0);
    on = true;
    s.tab.post('a');
    s.tab.post('b');
    s.tab.start();
    expect(s.opened).toHaveLength(1);
    const posted = s.opened[0]!.posted as { from: string; account: string }[];
    expect(posted.map((m) => m.account)).toEqual(['a', 'b']);
    expect(posted[0]!.from).toBe(posted[1]!.from);
    expect(typeof posted[0]!.from).toBe('string');
  });

  it('two tabs have different ids: each hears the other, not itself', async () => {
    const a = setup();
    const b = setup();
    a.tab.post('x');
    b.tab.post('y');
    const fromA = a.opened[0]!.posted[0];
    const fromB = b.opened[0]!.posted[0];
    deliver(a.opened[0]!, fromB);
    deliver(a.opened[0]!, fromA);
    await flush();
    expect(a.synced).toEqual(['y']);
  });

  it('close: closes the channel, drops its listener, never reopens; posting after close is silent', async () => {
    const s = setup();
    s.tab.start();
    const ch = s.opened[0]!;
    s.tab.close();
    expect(ch.closed).toBe(true);
    expect(ch.onmessage).toBeNull();
    s.tab.post('a');
    s.tab.start();
    expect(s.opened).toHaveLength(1);
    expect(ch.posted).toEqual([]);
    s.tab.close(); // idempotent
  });

  it('without a channel: start and post do nothing and do not throw', () => {
    const s = setup(() => true, false);
    expect(() => {
      s.tab.start();
      s.tab.post('a');
    }).not.toThrow();
  });
});

describe('coalescer', () => {
  it('per key: at most one running, at most one more after it; keys independent; a failure does not stop it (generated bursts)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.boolean()), { maxLength: 30 }), async (steps) => {
        const running = new Map<string, number>();
        const started: string[] = [];
        const pending: { key: string; finish: () => void }[] = [];
        let overlap = false;
        const schedule = createCoalescer((key) => {
          started.push(key);
          running.set(key, (running.get(key) ?? 0) + 1);
          if (running.get(key)! > 1) overlap = true;
          return new Promise<void>((resolve, reject) => {
            pending.push({ key, finish: () => {
              running.set(key, running.get(key)! - 1);
              if (started.length % 2 === 0) reject(new Error('sync failed'));
              else resolve();
            } });
          });
        });
        // Model: per key, idle | running | running+again.
        const model = new Map<string, 'running' | 'again'>();
        let expectedStarts = 0;
        for (const [key, finishOne] of steps) {
          if (finishOne) {
            const i = pending.findIndex((p) => p.key === key);
            if (i < 0) continue;
            pending.splice(i, 1)[0]!.finish();
            await flush();
            if (model.get(key) === 'again') {
              model.set(key, 'running');
              expectedStarts++;
            } else model.delete(key);
          } else {
            schedule(key);
            if (model.has(key)) model.set(key, 'again');
            else {
              model.set(key, 'running');
              expectedStarts++;
            }
          }
          expect(started).toHaveLength(expectedStarts);
          expect(overlap).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('three calls while one runs: exactly one more run', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const schedule = createCoalescer(() => {
      calls++;
      return new Promise<void>((r) => (release = r));
    });
    schedule('k');
    schedule('k');
    schedule('k');
    schedule('k');
    expect(calls).toBe(1);
    release();
    await flush();
    expect(calls).toBe(2);
    release();
    await flush();
    expect(calls).toBe(2);
    schedule('k');
    expect(calls).toBe(3);
  });
});
