/**
 * What a logout could not write, held in this tab's memory (storage refusing writes: a full disk, a
 * quota). A logout needs no storage to end sessions on the service; it must not fail, nor leave tabs
 * signing, because storage refused its records. So the records of a logout — the request (its
 * nonce, `logout:`), the pending ends (`ending:`) and the emptied state (`account:` with change
 * `logout`) — are held here when storage refuses them, and every read of the session layer in this
 * tab sees a held record over the stored one. Any other write that storage refuses still fails (a
 * login or refresh that cannot be stored fails, as before).
 *
 * Each write storage accepts, and each time the page comes back (manager.ts), first writes what is
 * held (storage came back), oldest first, each only where storage has nothing newer: a held state
 * only over an older generation, a held logout request only while no commit landed after what it
 * saw, a held list of pending ends merged with the stored one (an end listed twice is tried again
 * and found gone: nothing is lost). Held records are lost with the tab: the next tab finds what
 * storage holds (the sessions the logout ended, with their keys — see `withHeldRecords` — which the
 * service then refuses: judged revoked at their first use, I6).
 */
import type { KeyStore, MetadataStore } from '../keys/index.js';
import { ACCOUNT_PREFIX, ENDING_PREFIX, LOGOUT_PREFIX } from './state.js';
import { isRecord } from '../types.js';

/** A metadata store that holds a logout's records in memory when storage refuses them. */
export interface HoldingStore extends MetadataStore {
  /** Whether the record is held here (storage refused it), not stored. */
  isHeld(name: string): boolean;
  /** Writes what is held where storage has nothing newer; rejects (keeping the rest held) when storage still refuses. */
  flush(): Promise<void>;
}

/** Records a logout writes: held when storage refuses them. */
function holdable(name: string, value: unknown): boolean {
  if (name.startsWith(LOGOUT_PREFIX) || name.startsWith(ENDING_PREFIX)) return true;
  return name.startsWith(ACCOUNT_PREFIX) && isRecord(value) && value.change === 'logout';
}

/**
 * `onStored`: a held record of an account reached storage (the other tabs are told: manager.ts);
 * `onFlushed`: nothing is held any more (every held record written or dropped as older).
 */
export function holdingStore(inner: MetadataStore, onStored: (accountId: string) => void = () => undefined, onFlushed: () => Promise<void> = async () => undefined): HoldingStore {
  /**
   * name → the value held (undefined: a delete storage refused) and what storage held then (JSON):
   * should storage change since (another tab wrote it), storage is newer. In write order.
   */
  const held = new Map<string, { value: unknown; over: string }>();
  const snapshot = async (name: string): Promise<string> => JSON.stringify((await inner.get(name).catch(() => undefined)) ?? null);

  /**
   * What a held record stands for, given what storage holds now; undefined when storage is newer
   * (the held record is dropped). A list of pending ends: merged with the stored one.
   */
  async function reconciled(name: string, { value, over }: { value: unknown; over: string }): Promise<{ value: unknown } | undefined> {
    if (name.startsWith(ENDING_PREFIX)) {
      const stored = await inner.get(name);
      const mine = Array.isArray(value) ? (value as unknown[]) : [];
      const ids = new Set(mine.map((e) => (isRecord(e) ? e.id : undefined)));
      const merged = [...mine, ...(Array.isArray(stored) ? stored.filter((e: unknown) => !(isRecord(e) && ids.has(e.id))) : [])];
      return { value: merged.length > 0 ? merged : undefined };
    }
    if ((await snapshot(name)) !== over) return undefined; // written since by another tab: storage is newer
    const account = name.startsWith(LOGOUT_PREFIX) ? ACCOUNT_PREFIX + name.slice(LOGOUT_PREFIX.length) : name;
    const stored = await inner.get(account);
    const storedGeneration = isRecord(stored) && typeof stored.generation === 'number' ? stored.generation : 0;
    const generation = isRecord(value) && typeof value.generation === 'number' ? value.generation : 0;
    if (name === account) return storedGeneration < generation ? { value } : undefined; // a state: only over an older one
    // A logout request: while no commit came after what it saw, or the one that did carried it out.
    const carried = isRecord(stored) && isRecord(value) && stored.under === value.nonce;
    return storedGeneration <= generation || carried ? { value } : undefined;
  }

  /** The held record's value as it stands now, or storage's (the held one dropped when storage is newer). */
  async function read(name: string): Promise<{ value: unknown } | undefined> {
    const h = held.get(name);
    if (!h) return undefined;
    const now = await reconciled(name, h);
    if (!now && held.get(name) === h) held.delete(name);
    return now;
  }

  /** Writes what is held, oldest first; stops at the first refusal (the rest kept held). */
  async function flush(): Promise<void> {
    for (const [name, h] of [...held]) {
      const next = await reconciled(name, h);
      if (next) await (next.value === undefined ? inner.delete(name) : inner.put(name, next.value));
      if (held.get(name) === h) held.delete(name);
      if (next && name.startsWith(ACCOUNT_PREFIX)) onStored(name.slice(ACCOUNT_PREFIX.length));
    }
    if (held.size === 0) await onFlushed();
  }

  async function write(name: string, value: unknown): Promise<void> {
    try {
      await flush();
      await (value === undefined ? inner.delete(name) : inner.put(name, value));
      held.delete(name);
      if (held.size === 0) await onFlushed();
    } catch (error) {
      if (!holdable(name, value)) throw error;
      const over = held.get(name)?.over ?? (await snapshot(name));
      held.delete(name); // re-inserted last: the newest write
      held.set(name, { value, over });
    }
  }

  return {
    isHeld: (name) => held.has(name),
    flush,
    put: (name, value) => write(name, value),
    delete: (name) => write(name, undefined),
    async get<T>(name: string): Promise<T | undefined> {
      const h = await read(name);
      return h ? (h.value as T | undefined) : inner.get<T>(name);
    },
    async list() {
      const out = new Map(await inner.list());
      for (const name of [...held.keys()]) {
        const h = await read(name);
        if (h === undefined) continue;
        if (h.value === undefined) out.delete(name);
        else out.set(name, h.value);
      }
      return [...out];
    },
  };
}

/** The session keys (compressed hex) a metadata record names: an account state's sessions, a list of pending ends. */
function keysNamed(name: string, value: unknown): string[] {
  const list = name.startsWith(ENDING_PREFIX) ? value : name.startsWith(ACCOUNT_PREFIX) && isRecord(value) ? value.sessions : undefined;
  return Array.isArray(list) ? list.flatMap((e: unknown) => (isRecord(e) && typeof e.publicKeyHex === 'string' ? [e.publicKeyHex] : [])) : [];
}

/**
 * The key store with its metadata seen through a {@link HoldingStore}.
 *
 * Decision (I1, I8; issue 31): a session key is deleted only once no record names its session —
 * neither storage (what another tab, or the next one to load, reads) nor this tab's held records.
 * An end that finished while storage refused the logout's records (the emptied state, the shorter
 * list of pending ends: held here) would otherwise leave storage naming a session whose key is gone.
 * Such a delete waits (`deferred`) until what is held reached storage, then runs where nothing names
 * the key any more; should this tab close first, storage keeps the session with its key (the service
 * ended it: judged revoked at its first use, I6), never a session without its key.
 */
export function withHeldRecords(keyStore: KeyStore, onStored?: (accountId: string) => void): KeyStore & { meta: HoldingStore } {
  const deferred = new Set<string>();
  const named = async (hex: string): Promise<boolean> => {
    const records = [...(await keyStore.meta.list()), ...(await meta.list())];
    return records.some(([name, value]) => keysNamed(name, value).includes(hex));
  };
  /** Deletes the deferred keys that nothing names now (storage took what was held); never fails (a key left is kept for the next). */
  const drain = async (): Promise<void> => {
    for (const hex of [...deferred]) {
      if (await named(hex).catch(() => true)) continue;
      if (await keyStore.delete(hex).then(() => true, () => false)) deferred.delete(hex);
    }
  };
  const meta = holdingStore(keyStore.meta, onStored, drain);
  const remove = async (publicKeyHex: string): Promise<boolean> => {
    if (await named(publicKeyHex.toLowerCase()).catch(() => true)) {
      deferred.add(publicKeyHex.toLowerCase());
      return false;
    }
    return keyStore.delete(publicKeyHex);
  };
  return new Proxy(keyStore, {
    get(target, prop) {
      if (prop === 'meta') return meta;
      if (prop === 'delete') return remove;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as KeyStore & { meta: HoldingStore };
}
