/**
 * A small cache of "who owns this id", for the ownership checks.
 *
 * Why it is shaped like this:
 * - **Only positive facts are kept** ("Quote:… belongs to account X"), and only facts the service
 *   never changes: a quote's source, a delegated key's accounts, a transaction's customer, a
 *   credential's or session's account. Such a fact can only go stale by the id being deleted, and
 *   then the service itself answers 404 to the forwarded call: no harm. Not every owner is fixed: a
 *   card's funding source can be changed (`PATCH /cards/{id}`, spec §4.6), so ownership.ts never
 *   puts a card's owner here (invariant S10 of scope.ts); a fact that can change must not be cached.
 * - **"Not found" is never cached.** Ids are created by the service all the time (a refresh makes a
 *   new session id, adding a credential an AuthMethod id, a quote a transaction): caching a miss
 *   would refuse the owner's brand-new id for as long as it lived. A miss costs one lookup per
 *   request, which is bounded by the request rate the app already accepts.
 * - **Bounded size** (oldest entry evicted first) so that a user sending many ids cannot grow the
 *   backend's memory, and a **TTL** (default 60 s) so that facts about deleted ids, and accounts
 *   listed for a customer, do not stay around for the life of the process.
 */
export interface OwnerCacheOptions {
  /** How long a fact is kept, in ms. Default 60 000. */
  readonly ttlMs?: number;
  /** Most facts kept. Default 10 000. */
  readonly maxEntries?: number;
}

export class OwnerCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>();
  readonly ttlMs: number;
  readonly maxEntries: number;

  constructor(
    options: OwnerCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
