/** Durable storage: ask the browser not to evict our origin's IndexedDB under storage pressure. */

interface StorageManagerLike {
  persist?: () => Promise<boolean>;
  persisted?: () => Promise<boolean>;
}

/** Calls `navigator.storage[method]()`: false when the API is missing or throws, never a failure. */
async function ask(method: keyof StorageManagerLike): Promise<boolean> {
  const storage = (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator?.storage;
  if (typeof storage?.[method] !== 'function') return false;
  try {
    return (await storage[method]()) === true;
  } catch {
    return false;
  }
}

/**
 * Calls `navigator.storage.persist()`. Resolves true when storage is (now) persistent, false when the
 * browser declined, the API is missing or it threw: persistence is a wish, never a failure.
 */
export function requestPersistentStorage(): Promise<boolean> {
  return ask('persist');
}

/** `navigator.storage.persisted()`, or false when unavailable. */
export function isStoragePersisted(): Promise<boolean> {
  return ask('persisted');
}
