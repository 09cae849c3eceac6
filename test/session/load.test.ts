// load.ts on its own: the first look at storage. Every stored account state is adopted silently;
// then each account drops what expired (asked of the service, I6) or lost its key (evicted); keys that
// no state and no pending end names are sorted (I8): one naming an account → that account is named for
// endOrphans; one naming none → deleted once older than two minutes (a commit under way is spared);
// a key backing no session, or not a session key, is left alone. Real keys, in-memory key store.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import type { KeyStore } from '../../src/keys/index.js';
import { loadStored } from '../../src/session/load.js';
import { ENDING_PREFIX, LAST_ACCOUNT, readSnapshot } from '../../src/session/state.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, listingService, makeKeys, newKeyStore, runIn, sessionOf, storeState } from './ops-fixture.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(8);
});
afterEach(() => {
  vi.useRealTimers();
});

async function putKey(keyStore: KeyStore, i: number, over: { accountId?: string; sessionId?: string; createdAt?: number; purpose?: 'session' | 'otp' } = {}): Promise<void> {
  const k = keys[i]!;
  await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: over.purpose ?? 'session', ...over });
}

describe('loadStored: adopt, then drop what expired or lost its key', () => {
  it('adopts silently; drops the expired session the service no longer lists and the one whose key is gone; keeps the rest', async () => {
    const keyStore = newKeyStore();
    const live = sessionOf(keys, 0, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() });
    const noKey = sessionOf(keys, 1, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() });
    const expired = sessionOf(keys, 2);
    const expiredListed = sessionOf(keys, 3);
    await storeState(keyStore, keys, [live, noKey, expired, expiredListed], {}, (s) => s.id !== noKey.id);
    await keyStore.meta.put(LAST_ACCOUNT, { accountId: ACCOUNT });
    const ctx = contextOf(keyStore, listingService(() => [live.id, noKey.id, expiredListed.id]), () => T0 + LIFETIME_MS + 1);
    const calls: string[] = [];
    const out = await loadStored(ctx, runIn(keyStore, calls));
    expect(out).toEqual({ lastAccountId: ACCOUNT, ending: [], orphaned: [] });
    expect(calls).toEqual([ACCOUNT, ACCOUNT]);
    const stored = (await readSnapshot(keyStore.meta, ACCOUNT)).state;
    expect(stored.sessions.map((s) => s.id)).toEqual([live.id, expiredListed.id]);
    expect(stored.current).toBe(live.id);
    expect(ctx.view.get(ACCOUNT).sessions.map((s) => s.id)).toEqual([live.id, expiredListed.id]);
    expect(await keyStore.get(expired.publicKeyHex)).toBeUndefined();
    expect(await keyStore.get(live.publicKeyHex)).toBeDefined();
    // Adopting says nothing (nothing changed); the drops say what they dropped, nothing else.
    expect(ctx.events.map(([name, e]) => `${name}:${(e as { id?: string; session?: { id: string } }).id ?? (e as { session: { id: string } }).session.id}`).sort()).toEqual([`expired:${expired.id}`, `key-evicted:${noKey.id}`].sort());
  });

  it('nothing stored: nothing asked, nothing named', async () => {
    const keyStore = newKeyStore();
    const svc = listingService(() => []);
    const calls: string[] = [];
    expect(await loadStored(contextOf(keyStore, svc), runIn(keyStore, calls))).toEqual({ lastAccountId: undefined, ending: [], orphaned: [] });
    expect(calls).toEqual([]);
    expect(svc.asked).toBe(0);
  });

  it('the old layout (version 0.1) is converted first', async () => {
    const keyStore = newKeyStore();
    const s = sessionOf(keys, 0);
    await putKey(keyStore, 0, { accountId: ACCOUNT, sessionId: s.id });
    await keyStore.meta.put(`session:${s.id}`, s);
    await keyStore.meta.put(`current:${ACCOUNT}`, { sessionId: s.id });
    const ctx = contextOf(keyStore, listingService(() => [s.id]));
    const out = await loadStored(ctx, runIn(keyStore));
    expect(out.orphaned).toEqual([]);
    expect(ctx.view.get(ACCOUNT).current).toBe(s.id);
    expect((await keyStore.meta.list()).map(([name]) => name).filter((n) => n.startsWith('session:'))).toEqual([]);
  });
});

describe('loadStored: keys no state and no pending end names (I8)', () => {
  it('names the accounts of orphan session keys; spares held keys, pending ends, keys of no session and other purposes', async () => {
    const keyStore = newKeyStore();
    const held = sessionOf(keys, 0);
    await storeState(keyStore, keys, [held]);
    await putKey(keyStore, 1, { accountId: 'InternalAccount:orphan', sessionId: 'Session:o' });
    await putKey(keyStore, 2, { accountId: 'InternalAccount:ending', sessionId: 'Session:e' });
    await keyStore.meta.put(ENDING_PREFIX + 'InternalAccount:ending', [{ id: 'Session:e', publicKeyHex: keys[2]!.publicKeyHex, expiresAt: held.expiresAt }]);
    await putKey(keyStore, 3, { accountId: 'InternalAccount:nosession' }); // a key generated, no session yet
    await putKey(keyStore, 4, { accountId: 'InternalAccount:otp', sessionId: 'Session:otp', purpose: 'otp' });
    const ctx = contextOf(keyStore, listingService(() => [held.id]));
    const out = await loadStored(ctx, runIn(keyStore));
    expect(out.orphaned).toEqual(['InternalAccount:orphan']);
    expect(out.ending).toEqual(['InternalAccount:ending']);
    for (const i of [0, 1, 2, 3, 4]) expect(await keyStore.get(keys[i]!.publicKeyHex)).toBeDefined();
  });

  it('an orphan key naming no account: deleted once older than two minutes, kept at or under it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const keyStore = newKeyStore();
    const AGE = 2 * 60 * 1000;
    await putKey(keyStore, 5, { sessionId: 'Session:old', createdAt: T0 - AGE - 1 });
    await putKey(keyStore, 6, { sessionId: 'Session:edge', createdAt: T0 - AGE });
    await putKey(keyStore, 7, { sessionId: 'Session:young', createdAt: T0 - 1000 });
    const out = await loadStored(contextOf(keyStore, listingService(() => [])), runIn(keyStore));
    expect(out.orphaned).toEqual([]);
    expect(await keyStore.get(keys[5]!.publicKeyHex)).toBeUndefined();
    expect(await keyStore.get(keys[6]!.publicKeyHex)).toBeDefined();
    expect(await keyStore.get(keys[7]!.publicKeyHex)).toBeDefined();
  });

  it('a key store that cannot list: the load still completes, nothing named', async () => {
    const keyStore = newKeyStore();
    await putKey(keyStore, 1, { accountId: 'InternalAccount:orphan', sessionId: 'Session:o' });
    const failing = { ...keyStore, list: () => Promise.reject(new Error('list failed')) };
    const out = await loadStored(contextOf(failing, listingService(() => [])), runIn(keyStore));
    expect(out.orphaned).toEqual([]);
  });
});
