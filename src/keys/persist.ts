/** Durable storage: ask the browser not to evict our origin's IndexedDB under storage pressure. */

interface StorageManagerLike {
  persist?: () => Promise<boolean>;
  persisted?: () => Promise<boolean>;
}

function storageManager(): StorageManagerLike | undefined {
  const nav = (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator;
  return nav?.storage;
}

/**
 * Calls `navigator.storage.persist()`. Resolves true when storage is (now) persistent, false when the
 * browser declined, the API is missing or it threw: persistence is a wish, never a failure.
 */
export async function requestPersistentStorage(): Promise<boolean> {
  const storage = storageManager();
  if (typeof storage?.persist !== 'function') return false;
  try {
    return (await storage.persist()) === true;
  } catch {
    return false;
  }
}

/** `navigator.storage.persisted()`, or false when unavailable. */
export async function isStoragePersisted(): Promise<boolean> {
  const storage = storageManager();
  if (typeof storage?.persisted !== 'function') return false;
  try {
    return (await storage.persisted()) === true;
  } catch {
    return false;
  }
}
