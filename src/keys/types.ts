/** Shapes of the key store: records, filters, backends. */

/**
 * What a stored key is for. There is no export purpose: a wallet export's recipient key lives in
 * that call's memory only and is never stored (src/actions/export.ts).
 */
export type KeyPurpose = 'session' | 'otp' | 'legacy-recipient';

/** Every {@link KeyPurpose}. */
export const KEY_PURPOSES: readonly KeyPurpose[] = ['session', 'otp', 'legacy-recipient'];

/** One stored key pair, keyed by its compressed public key hex. */
export interface StoredKey {
  /** Compressed SEC1 public key, lowercase hex (66 characters): the record's key. */
  readonly publicKeyHex: string;
  /** Non-extractable private key (ECDSA 'sign' for session/OTP keys, ECDH 'deriveBits' for recipients). */
  readonly privateKey: CryptoKey;
  /** The public half, as a CryptoKey. */
  readonly publicKey: CryptoKey;
  /** What the key is for. */
  readonly purpose: KeyPurpose;
  /** The account whose session the key backs, once known. */
  readonly accountId?: string;
  /** The session (`Session:<uuid>`) the key backs, once known. */
  readonly sessionId?: string;
  /** Milliseconds since the epoch (local clock) when the record was first stored. */
  readonly createdAt: number;
}

/** What `put` accepts: a StoredKey whose `createdAt` may be left to the store. */
export interface KeyRecordInput {
  /** Compressed SEC1 public key, lowercase hex: the record's key. */
  publicKeyHex: string;
  /** The non-extractable private key. */
  privateKey: CryptoKey;
  /** The public half. */
  publicKey: CryptoKey;
  /** What the key is for. */
  purpose: KeyPurpose;
  /** The account whose session the key backs. */
  accountId?: string;
  /** The session the key backs. */
  sessionId?: string;
  /** Milliseconds since the epoch; now when absent. */
  createdAt?: number;
}

/** Fields `update` may change on an existing record. */
export interface KeyRecordPatch {
  /** A new purpose. */
  purpose?: KeyPurpose;
  /** The account whose session the key now backs. */
  accountId?: string;
  /** The session the key now backs. */
  sessionId?: string;
}

/** `list` filter: every given field must match. */
export interface KeyFilter {
  /** Only keys with this purpose. */
  purpose?: KeyPurpose;
  /** Only keys of this account. */
  accountId?: string;
  /** Only the key of this session. */
  sessionId?: string;
}

/**
 * Where records live. Keys are strings: a compressed public key hex for key records, `meta:<name>`
 * for metadata, `probe:<n>` for the storage probe (hex never contains ':', so they cannot collide).
 * Values must survive the structured clone algorithm (the IndexedDB backend stores them as given).
 */
export interface KeyStoreBackend {
  /** 'indexeddb' backends are probed at first use and replaced by memory when they cannot hold a CryptoKey. */
  readonly kind: 'indexeddb' | 'memory';
  /** The value stored under `key`, or undefined. */
  get(key: string): Promise<unknown>;
  /** Stores `value` (structured-cloneable) under `key`. */
  set(key: string, value: unknown): Promise<void>;
  /** Removes `key` (nothing when absent). */
  delete(key: string): Promise<void>;
  /** Every stored `[key, value]`. */
  entries(): Promise<Array<[string, unknown]>>;
  /** Removes everything. */
  clear(): Promise<void>;
}

/** Where the store ended up after its first-use probe ('pending' until then). */
export type KeyStoreStatus = 'pending' | 'indexeddb' | 'memory';

/** Why an IndexedDB store fell back to memory. */
export type FallbackReason =
  /** `indexedDB` is not defined in this context (old browser, some workers, Node without a polyfill). */
  | 'indexeddb-missing'
  /** Opening the database failed (Firefox private mode, storage disabled, SecurityError). */
  | 'indexeddb-open-failed'
  /** The probe did not finish in time (open blocked or hanging). */
  | 'indexeddb-timeout'
  /** Storing a CryptoKey threw DataCloneError (Safari private browsing / Lockdown Mode). */
  | 'cryptokey-not-storable'
  /** A stored CryptoKey came back as something else, or the probe failed in another way. */
  | 'cryptokey-readback-failed';

/** Counters a caller (or a test) can read to see how often the backend was touched. */
export interface KeyStoreStats {
  /** Backend reads (get and entries), the probe included. */
  readonly reads: number;
  /** Backend writes (set, delete and clear), the probe included. */
  readonly writes: number;
  /** Key lookups answered from the in-memory cache. */
  readonly cacheHits: number;
}
