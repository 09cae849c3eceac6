// held.ts on its own (fast, no sandbox): a logout's records that storage refuses are held in this
// tab's memory and seen over storage; every other refused write fails as before. fast-check draws
// sequences of this tab's writes (a logout's request, its pending ends, its emptied state, and records
// that are not a logout's), another tab's writes straight to storage, storage refusing or accepting,
// reads, lists and flushes; the oracle is held.ts's rules, written out below from its header (what a
// held record stands for, given what storage holds now), over a plain Map of what storage holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyStore, createMemoryBackend, type MetadataStore } from '../../src/keys/index.js';
import { holdingStore, withHeldRecords } from '../../src/session/held.js';
import { ACCOUNT_PREFIX, ENDING_PREFIX, LAST_ACCOUNT, LOGOUT_PREFIX } from '../../src/session/state.js';

/** Storage: JSON copies in a Map; `refuse` makes every put and delete fail as a full disk does. */
class Storage implements MetadataStore {
  readonly map = new Map<string, string>();
  refuse = false;
  async put(name: string, value: unknown): Promise<void> {
    if (this.refuse) throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
    this.map.set(name, JSON.stringify(value));
  }
  async delete(name: string): Promise<void> {
    if (this.refuse) throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
    this.map.delete(name);
  }
  async get<T>(name: string): Promise<T | undefined> {
    const v = this.map.get(name);
    return v === undefined ? undefined : (JSON.parse(v) as T);
  }
  async list(): Promise<Array<[string, unknown]>> {
    return [...this.map].map(([k, v]) => [k, JSON.parse(v) as unknown]);
  }
  /** Another tab writes (its storage took it): undefined deletes. */
  other(name: string, value: unknown): void {
    if (value === undefined) this.map.delete(name);
    else this.map.set(name, JSON.stringify(value));
  }
  peek(name: string): unknown {
    const v = this.map.get(name);
    return v === undefined ? undefined : JSON.parse(v);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const genOf = (v: unknown): number => (isObj(v) && typeof v.generation === 'number' ? v.generation : 0);

/** The oracle: held.ts's rules over what storage holds. */
class Oracle {
  /** name → value held (undefined: a delete) and storage's JSON when first refused; in write order. */
  readonly held = new Map<string, { value: unknown; over: string }>();
  readonly stored: string[] = [];
  constructor(private readonly storage: Storage) {}

  /** A logout's records: its request, its pending ends, its emptied state (change `logout`). */
  static holdable(name: string, value: unknown): boolean {
    if (name.startsWith(LOGOUT_PREFIX) || name.startsWith(ENDING_PREFIX)) return true;
    return name.startsWith(ACCOUNT_PREFIX) && isObj(value) && value.change === 'logout';
  }

  private snap(name: string): string {
    return JSON.stringify(this.storage.peek(name) ?? null);
  }

  /** What the held record stands for now; undefined when storage is newer. */
  standsFor(name: string, h: { value: unknown; over: string }): { value: unknown } | undefined {
    if (name.startsWith(ENDING_PREFIX)) {
      // Merged with the stored list: the held ends first, then stored ones of other ids.
      const mine = Array.isArray(h.value) ? (h.value as unknown[]) : [];
      const stored = this.storage.peek(name);
      const ids = new Set(mine.map((e) => (isObj(e) ? e.id : undefined)));
      const merged = [...mine, ...(Array.isArray(stored) ? stored.filter((e) => !(isObj(e) && ids.has(e.id))) : [])];
      return { value: merged.length > 0 ? merged : undefined };
    }
    if (this.snap(name) !== h.over) return undefined; // another tab wrote it since
    const accountName = name.startsWith(LOGOUT_PREFIX) ? ACCOUNT_PREFIX + name.slice(LOGOUT_PREFIX.length) : name;
    const stored = this.storage.peek(accountName);
    if (name.startsWith(ACCOUNT_PREFIX)) return genOf(stored) < genOf(h.value) ? { value: h.value } : undefined;
    const carried = isObj(stored) && isObj(h.value) && stored.under === h.value.nonce;
    return genOf(stored) <= genOf(h.value) || carried ? { value: h.value } : undefined;
  }

  read(name: string): { value: unknown } | undefined {
    const h = this.held.get(name);
    if (!h) return undefined;
    const now = this.standsFor(name, h);
    if (!now) this.held.delete(name);
    return now;
  }

  get(name: string): unknown {
    const h = this.read(name);
    return h ? h.value : this.storage.peek(name);
  }

  list(): Array<[string, unknown]> {
    const out = new Map<string, unknown>([...this.storage.map].map(([k, v]) => [k, JSON.parse(v) as unknown]));
    for (const name of [...this.held.keys()]) {
      const h = this.read(name);
      if (!h) continue;
      if (h.value === undefined) out.delete(name);
      else out.set(name, h.value);
    }
    return [...out].sort(([a], [b]) => (a < b ? -1 : 1));
  }

  /** Oldest first; false at the first write storage refuses (the rest kept). */
  flush(): boolean {
    for (const [name, h] of [...this.held]) {
      const next = this.standsFor(name, h);
      if (next) {
        if (this.storage.refuse) return false;
        this.storage.other(name, next.value);
      }
      this.held.delete(name);
      if (next && name.startsWith(ACCOUNT_PREFIX)) this.stored.push(name.slice(ACCOUNT_PREFIX.length));
    }
    return true;
  }

  /** This tab's write: true when it resolves. */
  write(name: string, value: unknown): boolean {
    if (this.flush() && !this.storage.refuse) {
      this.storage.other(name, value);
      this.held.delete(name);
      return true;
    }
    if (!Oracle.holdable(name, value)) return false;
    const over = this.held.get(name)?.over ?? this.snap(name);
    this.held.delete(name);
    this.held.set(name, { value, over });
    return true;
  }
}

const ACCOUNTS = ['A', 'B'];
const nonce = fc.constantFrom('n1', 'n2', 'n3');
const generation = fc.integer({ min: 0, max: 3 });
const stateOf = (a: string) =>
  fc.record({ accountId: fc.constant(a), generation, change: fc.constantFrom('logout', 'login', 'refresh'), under: fc.option(nonce, { nil: undefined }), sessions: fc.constant([]) }, { requiredKeys: ['accountId', 'generation', 'change', 'sessions'] });
const ends = fc.uniqueArray(fc.record({ id: fc.constantFrom('S1', 'S2', 'S3'), n: fc.integer({ min: 0, max: 2 }) }), { selector: (e) => e.id, maxLength: 3 });
/** A record name and a value for it (undefined: a delete). */
const record = fc.oneof(
  ...ACCOUNTS.flatMap((a) => [
    fc.tuple(fc.constant(LOGOUT_PREFIX + a), fc.option(fc.record({ nonce, generation }), { nil: undefined, freq: 4 })),
    fc.tuple(fc.constant(ENDING_PREFIX + a), fc.option(ends, { nil: undefined, freq: 4 })),
    fc.tuple(fc.constant(ACCOUNT_PREFIX + a), fc.option(stateOf(a), { nil: undefined, freq: 6 })),
  ]),
  fc.tuple(fc.constant(LAST_ACCOUNT), fc.option(fc.constantFrom(...ACCOUNTS), { nil: undefined })),
);
const NAMES = [...ACCOUNTS.flatMap((a) => [LOGOUT_PREFIX + a, ENDING_PREFIX + a, ACCOUNT_PREFIX + a]), LAST_ACCOUNT];

type Command =
  | { kind: 'write'; name: string; value: unknown }
  | { kind: 'other'; name: string; value: unknown }
  | { kind: 'refuse'; on: boolean }
  | { kind: 'get'; name: string }
  | { kind: 'list' }
  | { kind: 'flush' };
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: record.map(([name, value]): Command => ({ kind: 'write', name, value })), weight: 6 },
  { arbitrary: record.map(([name, value]): Command => ({ kind: 'other', name, value })), weight: 2 },
  { arbitrary: fc.boolean().map((on): Command => ({ kind: 'refuse', on })), weight: 3 },
  { arbitrary: fc.constantFrom(...NAMES).map((name): Command => ({ kind: 'get', name })), weight: 3 },
  { arbitrary: fc.constant<Command>({ kind: 'list' }), weight: 1 },
  { arbitrary: fc.constant<Command>({ kind: 'flush' }), weight: 2 },
);

async function settles(p: Promise<unknown>): Promise<boolean> {
  return p.then(
    () => true,
    () => false,
  );
}

describe('holdingStore: a logout’s records held where storage refuses them', () => {
  it('generated writes, other tabs’ writes, refusals, reads and flushes: every answer is the oracle’s', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 30 }), async (commands) => {
        const storage = new Storage();
        const stored: string[] = [];
        const store = holdingStore(storage, (a) => void stored.push(a));
        const oracle = new Oracle(storage);
        for (const c of commands) {
          switch (c.kind) {
            case 'write': {
              const expected = oracle.write.bind(oracle);
              // Storage changes as the write runs: the oracle runs on a copy of the outcome, so compare after.
              const before = new Map(storage.map);
              const done = await settles(c.value === undefined ? store.delete(c.name) : store.put(c.name, c.value));
              const after = new Map(storage.map);
              storage.map.clear();
              for (const [k, v] of before) storage.map.set(k, v);
              const want = expected(c.name, c.value);
              expect(done, `${c.name} written`).toBe(want);
              expect([...after].sort()).toEqual([...storage.map].sort());
              break;
            }
            case 'other':
              storage.other(c.name, c.value);
              break;
            case 'refuse':
              storage.refuse = c.on;
              break;
            case 'get':
              expect(await store.get(c.name), c.name).toEqual(oracle.get(c.name));
              break;
            case 'list':
              expect((await store.list()).sort(([a], [b]) => (a < b ? -1 : 1))).toEqual(oracle.list());
              break;
            case 'flush': {
              const before = new Map(storage.map);
              const done = await settles(store.flush());
              const after = new Map(storage.map);
              storage.map.clear();
              for (const [k, v] of before) storage.map.set(k, v);
              expect(done, 'flushed').toBe(oracle.flush());
              expect([...after].sort()).toEqual([...storage.map].sort());
              break;
            }
          }
          for (const name of NAMES) expect(store.isHeld(name), `${name} held`).toBe(oracle.held.has(name));
          expect(stored).toEqual(oracle.stored);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a logout with storage full: its three records read back, storage untouched; written once storage takes them, the other tabs told', async () => {
    const storage = new Storage();
    storage.other(ACCOUNT_PREFIX + 'A', { accountId: 'A', generation: 2, change: 'login', sessions: [{ id: 'S1' }] });
    const told: string[] = [];
    const store = holdingStore(storage, (a) => void told.push(a));
    storage.refuse = true;
    const request = { nonce: 'n1', generation: 2 };
    const emptied = { accountId: 'A', generation: 3, change: 'logout', under: 'n1', sessions: [] };
    await store.put(LOGOUT_PREFIX + 'A', request);
    await store.put(ENDING_PREFIX + 'A', [{ id: 'S1' }]);
    await store.put(ACCOUNT_PREFIX + 'A', emptied);
    // Not a logout's: refused as before.
    await expect(store.put(LAST_ACCOUNT, 'A')).rejects.toThrow(/quota/);
    await expect(store.put(ACCOUNT_PREFIX + 'A', { ...emptied, change: 'login' })).rejects.toThrow(/quota/);
    await expect(store.delete(ACCOUNT_PREFIX + 'A')).rejects.toThrow(/quota/);
    expect(await store.get(LOGOUT_PREFIX + 'A')).toEqual(request);
    expect(await store.get(ENDING_PREFIX + 'A')).toEqual([{ id: 'S1' }]);
    expect(await store.get(ACCOUNT_PREFIX + 'A')).toEqual(emptied);
    expect(new Map(await store.list())).toEqual(new Map<string, unknown>([[LOGOUT_PREFIX + 'A', request], [ENDING_PREFIX + 'A', [{ id: 'S1' }]], [ACCOUNT_PREFIX + 'A', emptied]]));
    expect(storage.peek(LOGOUT_PREFIX + 'A')).toBeUndefined();
    await expect(store.flush()).rejects.toThrow(/quota/);
    expect([LOGOUT_PREFIX, ENDING_PREFIX, ACCOUNT_PREFIX].map((p) => store.isHeld(p + 'A'))).toEqual([true, true, true]);
    expect(told).toEqual([]);
    storage.refuse = false;
    await store.flush();
    expect(storage.peek(LOGOUT_PREFIX + 'A')).toEqual(request);
    expect(storage.peek(ENDING_PREFIX + 'A')).toEqual([{ id: 'S1' }]);
    expect(storage.peek(ACCOUNT_PREFIX + 'A')).toEqual(emptied);
    expect([LOGOUT_PREFIX, ENDING_PREFIX, ACCOUNT_PREFIX].map((p) => store.isHeld(p + 'A'))).toEqual([false, false, false]);
    expect(told).toEqual(['A']);
  });

  it('a held logout request is dropped once a commit after what it saw is stored, kept when that commit carried it out', async () => {
    for (const carried of [false, true]) {
      const storage = new Storage();
      const store = holdingStore(storage);
      storage.other(ACCOUNT_PREFIX + 'A', { generation: 1, change: 'login', sessions: [] });
      storage.refuse = true;
      await store.put(LOGOUT_PREFIX + 'A', { nonce: 'n1', generation: 1 });
      // Another tab commits (generation 2), carrying this logout out or not.
      storage.other(ACCOUNT_PREFIX + 'A', { generation: 2, change: 'logout', sessions: [], ...(carried && { under: 'n1' }) });
      expect(await store.get(LOGOUT_PREFIX + 'A')).toEqual(carried ? { nonce: 'n1', generation: 1 } : undefined);
      expect(store.isHeld(LOGOUT_PREFIX + 'A')).toBe(carried);
    }
  });

  it('a record written again while still held keeps what storage held when first refused: another tab’s write in between wins', async () => {
    const storage = new Storage();
    const store = holdingStore(storage);
    storage.refuse = true;
    // Held first: the flush each write begins with stops at it (storage refuses), before the request.
    await store.put(ENDING_PREFIX + 'A', [{ id: 'S1' }]);
    await store.put(LOGOUT_PREFIX + 'A', { nonce: 'n1', generation: 0 });
    storage.other(LOGOUT_PREFIX + 'A', { nonce: 'n2', generation: 0 });
    await store.put(LOGOUT_PREFIX + 'A', { nonce: 'n3', generation: 0 });
    expect(await store.get(LOGOUT_PREFIX + 'A')).toEqual({ nonce: 'n2', generation: 0 });
    expect(store.isHeld(LOGOUT_PREFIX + 'A')).toBe(false);
  });
});

describe('holdingStore: what a held record stands for, at its edges', () => {
  it('held pending ends are merged with the stored list: the held entry of an id first, stored ones of other ids (and entries that are not records) after', async () => {
    const storage = new Storage();
    const store = holdingStore(storage);
    storage.other(ENDING_PREFIX + 'A', [{ id: 'S1', n: 0 }, { id: 'S2', n: 0 }, 'junk']);
    storage.refuse = true;
    await store.put(ENDING_PREFIX + 'A', [{ id: 'S1', n: 1 }, { id: 'S3', n: 0 }]);
    expect(await store.get(ENDING_PREFIX + 'A')).toEqual([{ id: 'S1', n: 1 }, { id: 'S3', n: 0 }, { id: 'S2', n: 0 }, 'junk']);
  });

  it('a generation that is not a number counts as 0, stored or held', async () => {
    const storage = new Storage();
    const store = holdingStore(storage);
    // A stored state whose generation is text: a held state of generation 1 is newer.
    storage.other(ACCOUNT_PREFIX + 'A', { generation: 'x', change: 'login', sessions: [] });
    storage.refuse = true;
    const emptied = { generation: 1, change: 'logout', sessions: [] };
    await store.put(ACCOUNT_PREFIX + 'A', emptied);
    expect(await store.get(ACCOUNT_PREFIX + 'A')).toEqual(emptied);
    // A held request whose generation is text saw generation 0: a stored commit of generation 1 came after it.
    const second = new Storage();
    const other = holdingStore(second);
    second.other(ACCOUNT_PREFIX + 'A', { generation: 1, change: 'login', sessions: [] });
    second.refuse = true;
    await other.put(LOGOUT_PREFIX + 'A', { nonce: 'n1', generation: '5' });
    expect(await other.get(LOGOUT_PREFIX + 'A')).toBeUndefined();
  });
});

describe('withHeldRecords', () => {
  it('the key store as it was, its metadata seen through the holding store', async () => {
    const backend = createMemoryBackend();
    const keyStore = createKeyStore({ backend });
    const told: string[] = [];
    const held = withHeldRecords(keyStore, (a) => void told.push(a));
    expect(held.meta).not.toBe(keyStore.meta);
    expect(held.meta).toBe(held.meta);
    expect(typeof held.meta.isHeld).toBe('function');
    expect(held.fallbackReason).toBe(keyStore.fallbackReason);
    await held.ready();
    await held.meta.put(ACCOUNT_PREFIX + 'A', { generation: 1, change: 'logout', sessions: [] });
    expect(await keyStore.meta.get(ACCOUNT_PREFIX + 'A')).toEqual({ generation: 1, change: 'logout', sessions: [] });
    expect(await held.list()).toEqual(await keyStore.list());
  });
});
