import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import {
  createIndexedDbBackend,
  createKeyStore,
  createMemoryBackend,
  loadBoundKey,
  type KeyStoreBackend,
} from '../../src/keys/index.js';
import { generateRecipientKey, generateSessionKey, stamp } from '../../src/crypto/index.js';
import { stampVerifies } from './stamp-verifies.js';
import { walletErrorOf } from '../helpers/errors.js';

const g = globalThis as { indexedDB?: unknown };

describe('key store on the memory backend', () => {
  it('generates, stores, lists, updates and deletes keys', async () => {
    const onFallback = vi.fn();
    const store = createKeyStore({ backend: createMemoryBackend(), onFallback, now: () => 1000 });
    expect(store.status).toBe('pending');
    const session = await store.generate({ purpose: 'session', accountId: 'InternalAccount:1' });
    const otp = await store.generate({ purpose: 'otp' });
    const recipient = await store.generate({ purpose: 'legacy-recipient', accountId: 'InternalAccount:1' });
    expect(store.status).toBe('memory');
    expect(onFallback).not.toHaveBeenCalled();
    expect(session.publicKeyHex).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(session.privateKey.extractable).toBe(false);
    expect(session.createdAt).toBe(1000);
    expect(recipient.privateKey.algorithm.name).toBe('ECDH');

    expect((await store.list()).map((k) => k.publicKeyHex).sort()).toEqual([session, otp, recipient].map((k) => k.publicKeyHex).sort());
    expect(await store.list({ accountId: 'InternalAccount:1', purpose: 'session' })).toEqual([session]);

    const updated = await store.update(otp.publicKeyHex, { purpose: 'session', sessionId: 'Session:1', accountId: 'InternalAccount:1' });
    expect(updated).toMatchObject({ purpose: 'session', sessionId: 'Session:1', accountId: 'InternalAccount:1' });
    expect(await store.get(otp.publicKeyHex.toUpperCase())).toEqual(updated);
    expect((await walletErrorOf(store.update(recipient.publicKeyHex, { purpose: 'session' }))).code).toBe('INVALID_ARGUMENT');

    expect(await stampVerifies(await store.signer(session.publicKeyHex), 'payload')).toBe(true);
    expect((await walletErrorOf(store.signer(recipient.publicKeyHex))).code).toBe('INVALID_ARGUMENT');

    expect(await store.delete(session.publicKeyHex)).toBe(true);
    expect(await store.delete(session.publicKeyHex)).toBe(false);
    expect(await store.get(session.publicKeyHex)).toBeUndefined();
    expect((await walletErrorOf(store.require(session.publicKeyHex))).code).toBe('KEY_NOT_FOUND');
    await store.clear();
    expect(await store.list()).toEqual([]);
  });

  it('refuses extractable keys, mismatched public keys, bad hex and wrong algorithms', async () => {
    const store = createKeyStore({ backend: createMemoryBackend() });
    const good = await generateSessionKey();
    const other = await generateSessionKey();
    const extractable = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const recipient = await generateRecipientKey();
    const cases: Array<() => Promise<unknown>> = [
      () => store.put({ ...good, privateKey: extractable.privateKey, purpose: 'session' }),
      () => store.put({ ...good, publicKeyHex: other.publicKeyHex, purpose: 'session' }),
      () => store.put({ ...good, publicKeyHex: 'zz', purpose: 'session' }),
      () => store.put({ ...good, publicKeyHex: good.publicKeyUncompressedHex, purpose: 'session' }),
      () => store.put({ ...recipient, purpose: 'session' }),
      () => store.put({ ...good, purpose: 'legacy-recipient' }),
      () => store.put({ ...good, purpose: 'nope' as 'session' }),
      () => store.put({ ...good, purpose: 'session', accountId: '' }),
      () => store.get('not hex'),
    ];
    for (const c of cases) expect((await walletErrorOf(c())).code).toBe('INVALID_ARGUMENT');
    expect(await store.list()).toEqual([]);
  });

  it('keeps JSON-safe metadata beside the keys', async () => {
    const store = createKeyStore({ backend: createMemoryBackend() });
    const record = { sessionId: 'Session:1', expiresAt: '2030-01-01T00:00:00.000Z', dropped: undefined, nested: { a: [1, 2] } };
    await store.meta.put('session:InternalAccount:1', record);
    record.nested.a.push(3); // the stored value is a copy
    expect(await store.meta.get('session:InternalAccount:1')).toEqual({ sessionId: 'Session:1', expiresAt: '2030-01-01T00:00:00.000Z', nested: { a: [1, 2] } });
    await store.generate({ purpose: 'session' });
    expect(await store.meta.list()).toEqual([['session:InternalAccount:1', expect.any(Object)]]);
    expect((await store.list())).toHaveLength(1); // metadata is not listed as a key
    expect((await walletErrorOf(store.meta.put('x', { n: 1n }))).code).toBe('INVALID_ARGUMENT');
    expect((await walletErrorOf(store.meta.put('', {}))).code).toBe('INVALID_ARGUMENT');
    await store.meta.delete('session:InternalAccount:1');
    expect(await store.meta.get('session:InternalAccount:1')).toBeUndefined();
    await store.meta.put('y', 1);
    await store.clear();
    expect(await store.meta.list()).toEqual([]);
  });
});

describe('key store on IndexedDB (fake-indexeddb)', () => {
  beforeEach(() => {
    g.indexedDB = new IDBFactory(); // a fresh, empty IndexedDB per test
  });
  afterEach(() => {
    delete g.indexedDB;
  });

  it('probes, stores CryptoKeys and reads them back in a fresh instance (new connection, empty cache)', async () => {
    const onFallback = vi.fn();
    const first = createKeyStore({ onFallback });
    expect(await first.ready()).toBe('indexeddb');
    const key = await first.generate({ purpose: 'session', accountId: 'InternalAccount:1', sessionId: 'Session:1' });
    await first.meta.put('session', { publicKeyHex: key.publicKeyHex });
    expect(onFallback).not.toHaveBeenCalled();

    const second = createKeyStore();
    const back = await second.get(key.publicKeyHex);
    expect(second.status).toBe('indexeddb');
    expect(back).toMatchObject({ publicKeyHex: key.publicKeyHex, purpose: 'session', accountId: 'InternalAccount:1', sessionId: 'Session:1' });
    expect(back!.privateKey.extractable).toBe(false);
    expect(back!.privateKey.usages).toEqual(['sign']);
    expect(await stampVerifies(await second.signer(key.publicKeyHex), 'signed after reload')).toBe(true);
    expect(await second.meta.get('session')).toEqual({ publicKeyHex: key.publicKeyHex });
    // The probe left nothing behind; the record sits under the bare hex key.
    const raw = await createIndexedDbBackend().entries();
    expect(raw.map(([k]) => k).sort()).toEqual([key.publicKeyHex, 'meta:session'].sort());
  });

  it('serves signing from the cache: no backend read after the first load', async () => {
    const key = await createKeyStore().generate({ purpose: 'session' });
    const store = createKeyStore();
    await store.ready();
    const afterProbe = store.stats.reads;
    await store.signer(key.publicKeyHex);
    expect(store.stats.reads).toBe(afterProbe + 1);
    const before = store.stats.reads;
    for (let i = 0; i < 3; i++) await stamp(`p${i}`, await store.signer(key.publicKeyHex));
    expect(store.stats.reads).toBe(before);
    expect(store.stats.cacheHits).toBeGreaterThanOrEqual(3);
    store.invalidate(key.publicKeyHex);
    await store.get(key.publicKeyHex);
    expect(store.stats.reads).toBe(before + 1);
  });

  it('touches nothing before the first call', async () => {
    let touched = 0;
    const factory = new IDBFactory();
    Object.defineProperty(globalThis, 'indexedDB', { configurable: true, get: () => (touched++, factory) });
    const store = createKeyStore();
    expect(touched).toBe(0);
    expect(store.status).toBe('pending');
    await store.ready();
    expect(touched).toBeGreaterThan(0);
    delete g.indexedDB;
  });

  it('asks for persistent storage when told to', async () => {
    const persist = vi.fn(async () => true);
    vi.stubGlobal('navigator', { storage: { persist } });
    try {
      const store = createKeyStore({ persist: true });
      expect(store.persisted).toBeUndefined();
      await store.ready();
      expect(persist).toHaveBeenCalledTimes(1);
      await vi.waitFor(() => expect(store.persisted).toBe(true), { timeout: 15_000 });
      const denied = createKeyStore({ persist: true });
      persist.mockRejectedValueOnce(new Error('denied'));
      await denied.ready();
      await vi.waitFor(() => expect(denied.persisted).toBe(false), { timeout: 15_000 });
      // A browser that asks the user (Firefox) and gets no answer: the store is ready without it.
      persist.mockImplementationOnce(() => new Promise<boolean>(() => {}));
      const unanswered = createKeyStore({ persist: true });
      expect(await unanswered.ready()).toBe('indexeddb');
      expect(unanswered.persisted).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('reports a key gone while its session metadata survived as KEY_EVICTED, not SESSION_EXPIRED', async () => {
    const store = createKeyStore();
    const key = await store.generate({ purpose: 'session' });
    const expiresAt = new Date(Date.now() + 15 * 60_000).toISOString();
    await store.meta.put('session', { publicKeyHex: key.publicKeyHex, expiresAt });
    await expect(loadBoundKey(store, { publicKeyHex: key.publicKeyHex, expiresAt })).resolves.toMatchObject({ publicKeyHex: key.publicKeyHex });

    // Eviction: the key record disappears underneath us (another connection deletes it).
    await createIndexedDbBackend().delete(key.publicKeyHex);
    const reloaded = createKeyStore();
    const meta = await reloaded.meta.get<{ publicKeyHex: string; expiresAt: string }>('session');
    const evicted = await walletErrorOf(loadBoundKey(reloaded, meta!));
    expect(evicted.code).toBe('KEY_EVICTED');
    const expired = await walletErrorOf(loadBoundKey(reloaded, { ...meta!, expiresAt: new Date(Date.now() - 1000).toISOString() }));
    expect(expired.code).toBe('SESSION_EXPIRED');
  });
});

/** An 'indexeddb' backend over a Map that imitates a browser refusing to clone CryptoKeys. */
function refusingBackend(): KeyStoreBackend {
  const inner = createMemoryBackend();
  const hasKey = (v: unknown): boolean => typeof v === 'object' && v !== null && Object.values(v).some((x) => typeof x === 'object' && x !== null && 'extractable' in x);
  return {
    ...inner,
    kind: 'indexeddb',
    async set(key, value) {
      if (hasKey(value)) throw new DOMException('CryptoKey could not be cloned', 'DataCloneError');
      return inner.set(key, value);
    },
  };
}

describe('fallback to memory', () => {
  it('falls back when indexedDB is missing: onFallback once, login still works', async () => {
    delete g.indexedDB;
    const onFallback = vi.fn();
    const store = createKeyStore({ onFallback });
    const [a, b] = await Promise.all([store.generate({ purpose: 'otp' }), store.generate({ purpose: 'session' })]);
    expect(store.status).toBe('memory');
    expect(store.fallbackReason).toBe('indexeddb-missing');
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(onFallback).toHaveBeenCalledWith('indexeddb-missing', expect.anything());
    expect(await stampVerifies(await store.signer(b.publicKeyHex), 'x')).toBe(true);
    expect(await store.get(a.publicKeyHex)).toEqual(a);
  });

  it('falls back on DataCloneError (storing a CryptoKey refused); metadata goes to memory too', async () => {
    const backend = refusingBackend();
    const onFallback = vi.fn();
    const store = createKeyStore({ backend, onFallback });
    const key = await store.generate({ purpose: 'session' });
    await store.meta.put('session', { publicKeyHex: key.publicKeyHex });
    expect(store.status).toBe('memory');
    expect(store.fallbackReason).toBe('cryptokey-not-storable');
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(onFallback.mock.calls[0]?.[1]).toMatchObject({ name: 'DataCloneError' });
    expect(await stampVerifies(await store.signer(key.publicKeyHex), 'x')).toBe(true);
    expect(await backend.entries()).toEqual([]); // nothing claims a key that could not be kept
  });

  it('falls back when the backend hangs (blocked open) after probeTimeoutMs', async () => {
    const never = new Promise<never>(() => undefined);
    const hanging: KeyStoreBackend = { kind: 'indexeddb', get: () => never, set: () => never, delete: () => never, entries: () => never, clear: () => never };
    const onFallback = vi.fn();
    const store = createKeyStore({ backend: hanging, onFallback, probeTimeoutMs: 50 });
    expect(await store.ready()).toBe('memory');
    expect(onFallback).toHaveBeenCalledWith('indexeddb-timeout', undefined);
  });

  it('falls back when a stored key comes back unusable', async () => {
    const inner = createMemoryBackend();
    const lossy: KeyStoreBackend = { ...inner, kind: 'indexeddb', set: (k, v) => inner.set(k, JSON.parse(JSON.stringify(v))) };
    const store = createKeyStore({ backend: lossy });
    expect(await store.ready()).toBe('memory');
    expect(store.fallbackReason).toBe('cryptokey-readback-failed');
  });

  it('maps a backend failure after a good probe to KEY_STORAGE_UNAVAILABLE', async () => {
    const inner = createMemoryBackend();
    let broken = false;
    const flaky: KeyStoreBackend = { ...inner, kind: 'indexeddb', get: (k) => (broken ? Promise.reject(new Error('gone')) : inner.get(k)) };
    const store = createKeyStore({ backend: flaky });
    expect(await store.ready()).toBe('indexeddb');
    broken = true;
    expect((await walletErrorOf(store.get('02' + '11'.repeat(32)))).code).toBe('KEY_STORAGE_UNAVAILABLE');
  });
});
