// A simulated origin for the lease locks of storage-lock.ts (I7), on a virtual clock: tabs, each
// with its own timers, over one localStorage whose writes another tab sees only `lag` ms later (its
// `storage` event fires then), as tabs in different processes do. A tab can die: its timers never
// fire again, it hears no more events, and a callback it was running never returns (its lease stays
// in storage until it lapses). Not a test file: lease-lock.test.ts and its properties use it.
import { createLeaseLocks, type LeaseStorage } from '../../src/session/storage-lock.js';

interface Timer { at: number; seq: number; tab: number; fn: () => void; cleared: boolean }
interface Write { at: number; tab: number; value: string | null }

/** Lets every promise chain that is not waiting on a virtual timer run to its end. */
// The leases, the simulated storage and timers are promises only: a few event-loop turns run all that is queued.
export const flush = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

export class Sim {
  now = 0;
  /** Added to `now` for the clock the leases are written on (a local clock set back or forward). */
  offset = 0;
  private seq = 0;
  private timers: Timer[] = [];
  readonly dead = new Set<number>();
  readonly log = new Map<string, Write[]>();
  private listeners = new Map<number, Set<(k: string | null, v: string | null) => void>>();
  /** Keys whose writes (or reads) throw, per tab: a localStorage that refuses. */
  refuse: (tab: number, op: 'get' | 'set' | 'remove', key: string) => boolean = () => false;

  constructor(readonly lag = 0) {}

  setTimer(tab: number, fn: () => void, ms: number): Timer {
    const t: Timer = { at: this.now + (Number.isFinite(ms) ? Math.max(0, ms) : 0), seq: ++this.seq, tab, fn, cleared: false };
    if (!this.dead.has(tab)) this.timers.push(t);
    return t;
  }

  clearTimer(handle: unknown): void {
    (handle as Timer).cleared = true;
  }

  sleep(tab: number, ms: number): Promise<void> {
    return new Promise((r) => this.setTimer(tab, r, ms));
  }

  /** Timers still set by live tabs (the test's own, tab -1, excluded). */
  pending(): number {
    return this.timers.filter((t) => !t.cleared && t.tab >= 0 && !this.dead.has(t.tab)).length;
  }

  /** Fires the timers due up to `until` in order, letting promises settle after each. */
  async run(until: number, limit = 100_000, afterStep?: () => void): Promise<void> {
    await flush();
    for (let n = 0; ; n++) {
      afterStep?.();
      if (n > limit) throw new Error(`no progress: more than ${limit} timers by ${this.now}`);
      this.timers = this.timers.filter((t) => !t.cleared && !this.dead.has(t.tab));
      let next: Timer | undefined;
      for (const t of this.timers) if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      if (!next || next.at > until) break;
      this.now = next.at;
      next.cleared = true;
      next.fn();
      await flush();
    }
    if (Number.isFinite(until)) this.now = Math.max(this.now, until);
  }

  kill(tab: number): void {
    this.dead.add(tab);
    this.listeners.delete(tab);
  }

  /** The value of `key` as tab `tab` reads it now: its own writes at once, the others' `lag` ms later. */
  read(tab: number, key: string): string | null {
    const writes = this.log.get(key) ?? [];
    for (let i = writes.length - 1; i >= 0; i--) {
      const w = writes[i]!;
      if (w.tab === tab || w.at + this.lag <= this.now) return w.value;
    }
    return null;
  }

  private write(tab: number, key: string, value: string | null): void {
    const writes = this.log.get(key) ?? [];
    this.log.set(key, writes);
    // localStorage fires no `storage` event for a write that changes nothing.
    const unchanged = (writes.at(-1)?.value ?? null) === value;
    writes.push({ at: this.now, tab, value });
    if (unchanged) return;
    // Each other tab hears of it when the write reaches it: its listeners attached by then.
    for (let other = 0; other < 16; other++) {
      if (other === tab) continue;
      this.setTimer(-1, () => {
        if (this.dead.has(other)) return;
        for (const l of [...(this.listeners.get(other) ?? [])]) l(key, value);
      }, this.lag);
    }
  }

  /** `localStorage.clear()` in tab `tab`: every key removed, one event with a null key. */
  clearAll(tab: number): void {
    for (const [, writes] of this.log) writes.push({ at: this.now, tab, value: null });
    for (let other = 0; other < 16; other++) {
      if (other === tab) continue;
      this.setTimer(-1, () => {
        if (this.dead.has(other)) return;
        for (const l of [...(this.listeners.get(other) ?? [])]) l(null, null);
      }, this.lag);
    }
  }

  storage(tab: number): LeaseStorage {
    const check = (op: 'get' | 'set' | 'remove', key: string): void => {
      if (this.refuse(tab, op, key)) throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
    };
    return {
      get: (k) => (check('get', k), this.read(tab, k)),
      set: (k, v) => (check('set', k), this.write(tab, k, v)),
      remove: (k) => (check('remove', k), this.write(tab, k, null)),
      subscribe: (l) => {
        const set = this.listeners.get(tab) ?? new Set();
        this.listeners.set(tab, set);
        set.add(l);
        return () => set.delete(l);
      },
    };
  }

  /** The lease locks of tab `tab`, on this clock and storage. */
  locks(tab: number, options: { leaseMs?: number; settleMs?: number; refused?: (cause: unknown) => Error; owner?: string } = {}) {
    return createLeaseLocks({
      storage: this.storage(tab),
      owner: options.owner ?? `tab${tab}`,
      // Date.now() is whole milliseconds (timers need not be).
      now: () => Math.floor(this.now) + this.offset,
      sleep: (ms) => this.sleep(tab, ms),
      setTimer: (fn, ms) => this.setTimer(tab, fn, ms),
      clearTimer: (h) => this.clearTimer(h),
      ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
      ...(options.settleMs !== undefined && { settleMs: options.settleMs }),
      ...(options.refused && { refused: options.refused }),
    });
  }

  /** The lease last written for `key` (the latest write, whoever made it), or null. */
  latest(key: string): { owner: string; until: number } | null {
    const writes = this.log.get(key) ?? [];
    const v = writes.at(-1)?.value;
    return v ? (JSON.parse(v) as { owner: string; until: number }) : null;
  }
}
