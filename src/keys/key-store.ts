/**
 * The key store: non-extractable WebCrypto key pairs kept in IndexedDB (or memory when the browser
 * cannot store a CryptoKey), keyed by compressed public key hex, behind an in-memory cache so that
 * signing needs no IndexedDB read after a key's first load.
 */
import {
  generateRecipientKey,
  generateSessionKey,
  signerFromKey,
  type Signer,
} from '../crypto/index.js';
import { WalletError, invalidArgument } from '../errors.js';
import { createIndexedDbBackend, createMemoryBackend } from './backends.js';
import { createMetadataStore, type MetadataStore } from './metadata.js';
import { algorithmFor, checkKeyPair, makeRecord, matches, normaliseHex, optionalString, parseRecord } from './records.js';
import { probeKeyStorage } from './probe.js';
import { requestPersistentStorage } from './persist.js';
import {
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

/** Options of {@link createKeyStore}; every one has a default. */
export interface KeyStoreOptions {
  /** Where records live; default IndexedDB (database `embedded-wallet-signer`, store `keys`). */
  backend?: KeyStoreBackend;
  /**
   * Ask for `navigator.storage.persist()` at first use (IndexedDB only). Default false. The store
   * does not wait for the answer: Firefox asks the user, who may never reply.
   */
  persist?: boolean;
  /** Called once when an IndexedDB backend cannot be used and the store falls back to memory. */
  onFallback?(reason: FallbackReason, cause?: unknown): void;
  /** How long the first-use probe may take before IndexedDB is given up on; default 3000 ms. */
  probeTimeoutMs?: number;
  /** Clock for `createdAt`; default Date.now. */
  now?: () => number;
}

/** What {@link KeyStore.generate} makes a key for. */
export interface GenerateKeyArgs {
  /** What the key is for (ECDSA for `session` and `otp`, ECDH for `legacy-recipient`). */
  purpose: KeyPurpose;
  /** The account whose session it will back, when known. */
  accountId?: string;
  /** The session it backs, when known. */
  sessionId?: string;
}

/**
 * Non-extractable P-256 keys kept across reloads (IndexedDB, or memory where IndexedDB cannot hold
 * a CryptoKey), with session metadata beside them. Made by {@link createKeyStore}; `createWallet`
 * makes one unless given one.
 */
export interface KeyStore {
  /** 'pending' until the first operation (or `ready()`) has probed the backend. */
  readonly status: KeyStoreStatus;
  /** Set when the store fell back to memory. */
  readonly fallbackReason: FallbackReason | undefined;
  /** Result of the `persist` request: undefined when not asked, or not answered yet (Firefox asks the user). */
  readonly persisted: boolean | undefined;
  /** How often the backend was read and written, and how often the cache answered. */
  readonly stats: KeyStoreStats;
  /** Session metadata beside the keys (same backend: it falls back with them). */
  readonly meta: MetadataStore;
  /** Runs the first-use probe (once) and resolves to where records will live. */
  ready(): Promise<'indexeddb' | 'memory'>;
  /** Generates and stores a key: ECDSA for 'session'/'otp', ECDH for the recipient purposes. */
  generate(args: GenerateKeyArgs): Promise<StoredKey>;
  /** Stores (or replaces) a record. The private key must be non-extractable and match `publicKeyHex`. */
  put(record: KeyRecordInput): Promise<StoredKey>;
  /** Changes purpose / accountId / sessionId of a stored record; KEY_NOT_FOUND when absent. */
  update(publicKeyHex: string, patch: KeyRecordPatch): Promise<StoredKey>;
  /** The record, from cache or backend; undefined when absent. */
  get(publicKeyHex: string): Promise<StoredKey | undefined>;
  /** Like `get` but KEY_NOT_FOUND when absent. */
  require(publicKeyHex: string): Promise<StoredKey>;
  /** A Signer over a stored ECDSA key (for `stamp` and the transport); KEY_NOT_FOUND when absent. */
  signer(publicKeyHex: string): Promise<Signer>;
  /** Every key record matching the filter (reads the backend, so keys stored by other tabs appear). */
  list(filter?: KeyFilter): Promise<StoredKey[]>;
  /** Removes a key; resolves true when it was present. */
  delete(publicKeyHex: string): Promise<boolean>;
  /** Removes every key and every metadata record. */
  clear(): Promise<void>;
  /** Drops cached records (one, or all) so the next read goes to the backend (another tab changed them). */
  invalidate(publicKeyHex?: string): void;
}

const DEFAULT_PROBE_TIMEOUT_MS = 3000;
/** Builds a key store. Nothing is opened until the first call. */
export function createKeyStore(options: KeyStoreOptions = {}): KeyStore {
  const now = options.now ?? Date.now;
  const probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let backend: KeyStoreBackend = options.backend ?? createIndexedDbBackend();
  let status: KeyStoreStatus = 'pending';
  let fallbackReason: FallbackReason | undefined;
  let persisted: boolean | undefined;
  let readyPromise: Promise<'indexeddb' | 'memory'> | undefined;
  const cache = new Map<string, StoredKey>();
  const stats = { reads: 0, writes: 0, cacheHits: 0 };
  const countRead = (): void => { stats.reads++; };
  const countWrite = (): void => { stats.writes++; };

  async function probe(): Promise<'indexeddb' | 'memory'> {
    if (backend.kind === 'memory') {
      status = 'memory';
      return status;
    }
    const result = await probeKeyStorage(backend, probeTimeoutMs, { onRead: countRead, onWrite: countWrite });
    if (!result.ok) {
      backend = createMemoryBackend();
      status = 'memory';
      fallbackReason = result.reason ?? 'cryptokey-readback-failed';
      options.onFallback?.(fallbackReason, result.cause);
      return status;
    }
    status = 'indexeddb';
    // Not awaited: Firefox shows the user a prompt, and the store must not wait on it.
    if (options.persist === true) void requestPersistentStorage().then((answer) => (persisted = answer));
    return status;
  }

  function ready(): Promise<'indexeddb' | 'memory'> {
    readyPromise ??= probe().catch((error: unknown) => {
      readyPromise = undefined; // e.g. CRYPTO_UNAVAILABLE: let a later call try again
      throw error;
    });
    return readyPromise;
  }

  /** Runs a backend operation after the probe; storage failures become KEY_STORAGE_UNAVAILABLE. */
  async function io<T>(kind: 'read' | 'write', op: (b: KeyStoreBackend) => Promise<T>): Promise<T> {
    await ready();
    if (kind === 'read') countRead(); else countWrite();
    try {
      return await op(backend);
    } catch (cause) {
      throw new WalletError('KEY_STORAGE_UNAVAILABLE', `key store ${kind} failed`, { cause });
    }
  }

  async function write(record: StoredKey): Promise<StoredKey> {
    const value: Record<string, unknown> = { ...record };
    await io('write', (b) => b.set(record.publicKeyHex, value));
    cache.set(record.publicKeyHex, record);
    return record;
  }

  async function get(publicKeyHex: string): Promise<StoredKey | undefined> {
    const hex = normaliseHex(publicKeyHex);
    const cached = cache.get(hex);
    if (cached) {
      stats.cacheHits++;
      return cached;
    }
    const record = parseRecord(await io('read', (b) => b.get(hex)));
    if (record) cache.set(hex, record);
    return record;
  }

  async function requireKey(publicKeyHex: string): Promise<StoredKey> {
    const record = await get(publicKeyHex);
    if (!record) throw new WalletError('KEY_NOT_FOUND', `no key ${publicKeyHex.slice(0, 10)}… in the key store`);
    return record;
  }

  async function put(input: KeyRecordInput): Promise<StoredKey> {
    if (typeof input !== 'object' || input === null) throw invalidArgument('record', 'an object');
    const hex = normaliseHex(input.publicKeyHex, 'record.publicKeyHex');
    if (!KEY_PURPOSES.includes(input.purpose)) throw invalidArgument('record.purpose', KEY_PURPOSES.join(' | '));
    await checkKeyPair(input, hex);
    const createdAt = input.createdAt ?? now();
    if (!Number.isFinite(createdAt)) throw invalidArgument('record.createdAt', 'a number of milliseconds');
    return write(makeRecord({
      publicKeyHex: hex,
      privateKey: input.privateKey,
      publicKey: input.publicKey,
      purpose: input.purpose,
      accountId: optionalString(input.accountId, 'record.accountId'),
      sessionId: optionalString(input.sessionId, 'record.sessionId'),
      createdAt,
    }));
  }

  return {
    get status() { return status; },
    get fallbackReason() { return fallbackReason; },
    get persisted() { return persisted; },
    stats,
    meta: createMetadataStore((kind, op) => io(kind, op)),
    ready,
    async generate(args) {
      if (typeof args !== 'object' || args === null || !KEY_PURPOSES.includes(args.purpose)) {
        throw invalidArgument('args.purpose', KEY_PURPOSES.join(' | '));
      }
      const key = algorithmFor(args.purpose) === 'ECDSA' ? await generateSessionKey() : await generateRecipientKey();
      const input: KeyRecordInput = { publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: args.purpose };
      if (args.accountId !== undefined) input.accountId = args.accountId;
      if (args.sessionId !== undefined) input.sessionId = args.sessionId;
      return put(input);
    },
    put,
    async update(publicKeyHex, patch) {
      if (typeof patch !== 'object' || patch === null) throw invalidArgument('patch', 'an object');
      const current = await requireKey(publicKeyHex);
      const purpose = patch.purpose ?? current.purpose;
      if (!KEY_PURPOSES.includes(purpose) || algorithmFor(purpose) !== algorithmFor(current.purpose)) {
        throw invalidArgument('patch.purpose', `a purpose for a ${algorithmFor(current.purpose)} key`);
      }
      return write(makeRecord({
        ...current,
        purpose,
        accountId: 'accountId' in patch ? optionalString(patch.accountId, 'patch.accountId') : current.accountId,
        sessionId: 'sessionId' in patch ? optionalString(patch.sessionId, 'patch.sessionId') : current.sessionId,
      }));
    },
    get,
    require: requireKey,
    async signer(publicKeyHex) {
      const record = await requireKey(publicKeyHex);
      if (algorithmFor(record.purpose) !== 'ECDSA') throw invalidArgument('publicKeyHex', `a signing key (this one is a ${record.purpose} key)`);
      return signerFromKey(record);
    },
    async list(filter = {}) {
      const all = await io('read', (b) => b.entries());
      const out: StoredKey[] = [];
      for (const [key, value] of all) {
        if (key.includes(':')) continue; // metadata and probe records
        const record = parseRecord(value);
        if (!record) continue;
        cache.set(record.publicKeyHex, record);
        if (matches(record, filter)) out.push(record);
      }
      return out.sort((a, b) => a.createdAt - b.createdAt);
    },
    async delete(publicKeyHex) {
      const hex = normaliseHex(publicKeyHex);
      const present = cache.has(hex) || (await io('read', (b) => b.get(hex))) !== undefined;
      await io('write', (b) => b.delete(hex));
      cache.delete(hex);
      return present;
    },
    async clear() {
      await io('write', (b) => b.clear());
      cache.clear();
    },
    invalidate(publicKeyHex) {
      if (publicKeyHex === undefined) cache.clear();
      else cache.delete(normaliseHex(publicKeyHex));
    },
  };
}
