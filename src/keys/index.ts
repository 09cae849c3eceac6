export { createKeyStore, type GenerateKeyArgs, type KeyStore, type KeyStoreOptions } from './key-store.js';
export {
  createIndexedDbBackend,
  createMemoryBackend,
  DEFAULT_DB_NAME,
  DEFAULT_STORE_NAME,
  type IndexedDbBackendOptions,
} from './backends.js';
export { type MetadataStore } from './metadata.js';
export { loadBoundKey, type KeyBinding } from './eviction.js';
export { isStoragePersisted, requestPersistentStorage } from './persist.js';
export {
  KEY_PURPOSES,
  type FallbackReason,
  type KeyFilter,
  type KeyPurpose,
  type KeyRecordInput,
  type KeyRecordPatch,
  type KeyStoreBackend,
  type KeyStoreStats,
  type KeyStoreStatus,
  type StoredKey,
} from './types.js';
