// The key store in real Chromium, Firefox and WebKit: IndexedDB holding non-extractable CryptoKeys across a "reload"
// (a fresh store instance: new connection, empty cache), the memory fallback when storing a
// CryptoKey throws, eviction reported as KEY_EVICTED, and signing from cache with 0 IndexedDB reads.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIndexedDbBackend, createKeyStore, loadBoundKey } from '../../src/keys/index.js';
import { stamp } from '../../src/crypto/index.js';
import { stampVerifies } from './stamp-verifies.js';
import { walletErrorOf } from '../helpers/errors.js';
import { engine } from '../helpers/engine.js';

const restores: Array<() => void> = [];
afterEach(async () => {
  for (const restore of restores.splice(0)) restore();
  await createKeyStore().clear();
});

/** Counts every IndexedDB read request made through IDBObjectStore. */
function countIdbReads(): { readonly count: number } {
  const counter = { count: 0 };
  const proto = IDBObjectStore.prototype;
  for (const name of ['get', 'getAll', 'getAllKeys', 'openCursor', 'openKeyCursor', 'count'] as const) {
    const original = proto[name] as (...args: unknown[]) => unknown;
    (proto as unknown as Record<string, unknown>)[name] = function (this: IDBObjectStore, ...args: unknown[]) {
      counter.count++;
      return original.apply(this, args);
    };
    restores.push(() => {
      (proto as unknown as Record<string, unknown>)[name] = original;
    });
  }
  return counter;
}

describe('key store in the browser', () => {
  it('keeps keys across a reload (fresh instance), non-extractable and still signing', async () => {
    const onFallback = vi.fn();
    const before = createKeyStore({ onFallback, persist: true });
    expect(await before.ready()).toBe('indexeddb');
    // persist() is asked, never waited for: Firefox answers only once the user does (no one does here).
    if (engine === 'firefox') expect(before.persisted).toBeUndefined();
    else await expect.poll(() => typeof before.persisted).toBe('boolean');
    const key = await before.generate({ purpose: 'session', accountId: 'InternalAccount:1', sessionId: 'Session:1' });
    await before.meta.put('session:InternalAccount:1', { publicKeyHex: key.publicKeyHex, sessionId: 'Session:1' });
    expect(onFallback).not.toHaveBeenCalled();

    const after = createKeyStore();
    const back = await after.get(key.publicKeyHex);
    expect(after.status).toBe('indexeddb');
    expect(back).toBeDefined();
    expect(back!.privateKey).toBeInstanceOf(CryptoKey);
    expect(back!.privateKey.extractable).toBe(false);
    expect(back!.privateKey.usages).toEqual(['sign']);
    await expect(crypto.subtle.exportKey('pkcs8', back!.privateKey)).rejects.toThrow();
    expect(back).toMatchObject({ purpose: 'session', accountId: 'InternalAccount:1', sessionId: 'Session:1' });
    expect(await stampVerifies(await after.signer(key.publicKeyHex), 'after reload')).toBe(true);
    expect(await after.meta.get('session:InternalAccount:1')).toEqual({ publicKeyHex: key.publicKeyHex, sessionId: 'Session:1' });
    expect((await after.list({ accountId: 'InternalAccount:1' })).map((k) => k.publicKeyHex)).toEqual([key.publicKeyHex]);
  });

  it('falls back to memory when storing a CryptoKey throws DataCloneError; login (sign) still works', async () => {
    const proto = IDBObjectStore.prototype;
    const put = proto.put;
    proto.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      const holdsKey = typeof value === 'object' && value !== null && Object.values(value).some((v) => v instanceof CryptoKey);
      if (holdsKey) throw new DOMException('Failed to execute put: CryptoKey could not be cloned', 'DataCloneError');
      return put.call(this, value, key);
    };
    restores.push(() => {
      proto.put = put;
    });
    const onFallback = vi.fn();
    const store = createKeyStore({ onFallback });
    const key = await store.generate({ purpose: 'session' });
    expect(store.status).toBe('memory');
    expect(store.fallbackReason).toBe('cryptokey-not-storable');
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(onFallback.mock.calls[0]?.[0]).toBe('cryptokey-not-storable');
    expect(await stampVerifies(await store.signer(key.publicKeyHex), 'login in memory')).toBe(true);
    await store.meta.put('session', { publicKeyHex: key.publicKeyHex });
    // Nothing of it reached IndexedDB.
    expect(await createIndexedDbBackend().entries()).toEqual([]);
  });

  it('falls back to memory when IndexedDB cannot be opened', async () => {
    const open = IDBFactory.prototype.open;
    IDBFactory.prototype.open = function () {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    };
    restores.push(() => {
      IDBFactory.prototype.open = open;
    });
    const onFallback = vi.fn();
    const store = createKeyStore({ onFallback });
    const key = await store.generate({ purpose: 'otp' });
    expect(store.fallbackReason).toBe('indexeddb-open-failed');
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(await stampVerifies(await store.signer(key.publicKeyHex), 'x')).toBe(true);
  });

  it('reports a key evicted under surviving session metadata as KEY_EVICTED', async () => {
    const store = createKeyStore();
    const key = await store.generate({ purpose: 'session' });
    const expiresAt = new Date(Date.now() + 15 * 60_000).toISOString();
    await store.meta.put('session', { publicKeyHex: key.publicKeyHex, expiresAt });
    // The browser evicts the key record (only the key: the metadata survives).
    await createIndexedDbBackend().delete(key.publicKeyHex);

    const reloaded = createKeyStore();
    const meta = await reloaded.meta.get<{ publicKeyHex: string; expiresAt: string }>('session');
    expect(meta).toEqual({ publicKeyHex: key.publicKeyHex, expiresAt });
    const error = await walletErrorOf(loadBoundKey(reloaded, meta!));
    expect(error.code).toBe('KEY_EVICTED');
    expect(error.code).not.toBe('SESSION_EXPIRED');
    expect((await walletErrorOf(loadBoundKey(reloaded, { ...meta!, expiresAt: Date.now() - 1 }))).code).toBe('SESSION_EXPIRED');
  });

  it('stamps after the first load with 0 IndexedDB reads', async () => {
    const key = await createKeyStore().generate({ purpose: 'session' });
    const reads = countIdbReads();
    const store = createKeyStore();
    await stamp('first', await store.signer(key.publicKeyHex));
    expect(reads.count).toBeGreaterThan(0); // probe + first load
    const idbBefore = reads.count;
    const statsBefore = store.stats.reads;
    for (let i = 0; i < 5; i++) {
      expect(await stampVerifies(await store.signer(key.publicKeyHex), `payload ${i}`)).toBe(true);
    }
    expect(reads.count - idbBefore).toBe(0);
    expect(store.stats.reads - statsBefore).toBe(0);
  });
});
