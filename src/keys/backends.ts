/**
 * Key store backends: a Map in memory, and IndexedDB through idb-keyval with a store of our own.
 * Neither touches a global until one of its methods is called.
 */
import { clear, createStore, del, entries, get, set, type UseStore } from 'idb-keyval';
import type { KeyStoreBackend } from './types.js';

export const DEFAULT_DB_NAME = 'embedded-wallet-signer';
export const DEFAULT_STORE_NAME = 'keys';

/** A backend that forgets everything when the page goes away. Values are kept as given (no cloning). */
export function createMemoryBackend(): KeyStoreBackend {
  const map = new Map<string, unknown>();
  return {
    kind: 'memory',
    async get(key) {
      return map.get(key);
    },
    async set(key, value) {
      map.set(key, value);
    },
    async delete(key) {
      map.delete(key);
    },
    async entries() {
      return [...map.entries()];
    },
    async clear() {
      map.clear();
    },
  };
}

/** Thrown (and caught by the probe) when there is no `indexedDB` global. */
export class IndexedDbMissingError extends Error {
  override readonly name = 'IndexedDbMissingError';
}

/** Where {@link createIndexedDbBackend} keeps its records. */
export interface IndexedDbBackendOptions {
  /** Database name; default `embedded-wallet-signer`. */
  dbName?: string;
  /** Object store name; default `keys`. */
  storeName?: string;
}

/**
 * IndexedDB through idb-keyval. Each backend opens its own connection lazily on first use (so a
 * second backend over the same database behaves like a page after a reload: new connection, no cache).
 */
export function createIndexedDbBackend(options: IndexedDbBackendOptions = {}): KeyStoreBackend {
  const dbName = options.dbName ?? DEFAULT_DB_NAME;
  const storeName = options.storeName ?? DEFAULT_STORE_NAME;
  let store: UseStore | undefined;
  const use = (): UseStore => {
    if (typeof (globalThis as { indexedDB?: unknown }).indexedDB === 'undefined') {
      throw new IndexedDbMissingError('indexedDB is not available in this context');
    }
    store ??= createStore(dbName, storeName);
    return store;
  };
  return {
    kind: 'indexeddb',
    get: async (key) => get<unknown>(key, use()),
    set: async (key, value) => set(key, value, use()),
    delete: async (key) => del(key, use()),
    entries: async () => entries<string, unknown>(use()),
    clear: async () => clear(use()),
  };
}
