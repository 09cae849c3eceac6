// refusal.ts on its own (I6): which refusal of a signed call means 'expired', 'revoked' or "the
// error as it is", what the thrown error carries, and what is dropped (the session, its key) with
// it; keyIn's expiry (asked of the service) and evicted key. fast-check draws status codes × error
// codes × clocks × service answers; the oracle is written out beside each property.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { judge, keyIn, refused, rejected, rejection } from '../../src/session/refusal.js';
import { readSnapshot } from '../../src/session/state.js';
import { ACCOUNT, LIFETIME_MS, T0, contextOf, listingService, makeKeys, newKeyStore, runIn, sessionOf, storeState, twoSessionsStored } from './ops-fixture.js';

let keys: SessionKey[] = [];
beforeAll(async () => {
  keys = await makeKeys(3);
});

const STATUS = fc.constantFrom(undefined, 400, 401, 403, 404, 409, 500);
const CODE = fc.constantFrom('WALLET_SIGNATURE_INVALID', 'SESSION_NOT_FOUND', 'NETWORK_ERROR', 'SESSION_EXPIRED', 'INVALID_ARGUMENT');
/** Clock offset from the session's expiry: before it, at it, after it. */
const AT = fc.constantFrom(-60_000, -1, 0, 1, 60_000);
/** The service lists: the session (and another), only another, nothing, or cannot be asked. */
const LISTED = fc.constantFrom<'it' | 'other' | 'none' | 'offline'>('it', 'other', 'none', 'offline');

function errorOf(status: number | undefined, code: string): WalletError {
  return new WalletError(code as never, 'refused', status === undefined ? {} : { status });
}

function listFor(listed: 'it' | 'other' | 'none' | 'offline', id: string): () => string[] | undefined {
  return () => (listed === 'offline' ? undefined : listed === 'it' ? ['Session:other', id] : listed === 'other' ? ['Session:other'] : []);
}

/** The oracle of a verdict. */
function expected(status: number | undefined, code: string, at: number, listed: string): 'expired' | 'revoked' | undefined {
  const suspicious = (status === 401 && code === 'WALLET_SIGNATURE_INVALID') || (status === 404 && code === 'SESSION_NOT_FOUND');
  if (!suspicious) return undefined;
  if (at >= 0) return 'expired';
  if (listed === 'offline' || listed === 'it') return undefined;
  return 'revoked';
}

describe('judge: the verdict on a refused signature (I6)', () => {
  it('only 401 WALLET_SIGNATURE_INVALID / 404 SESSION_NOT_FOUND are judged; expired on the clock, else revoked when the service no longer lists it (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(STATUS, CODE, AT, LISTED, async (status, code, at, listed) => {
        const s = sessionOf(keys, 0);
        const svc = listingService(listFor(listed, s.id));
        const ctx = contextOf(newKeyStore(), svc, () => T0 + LIFETIME_MS + at);
        const verdict = await judge(ctx, s, errorOf(status, code));
        expect(verdict).toBe(expected(status, code, at, listed));
        // The service is asked only about a suspicious refusal of a session not expired on the clock.
        const suspicious = expected(status, code, -1, 'none') !== undefined;
        expect(svc.asked).toBe(suspicious && at < 0 ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('rejection: the error thrown for a verdict', () => {
  it('expired → SESSION_EXPIRED, revoked → SESSION_REVOKED; the cause and its status are carried (drawn)', () => {
    fc.assert(
      fc.property(fc.constantFrom<'expired' | 'revoked'>('expired', 'revoked'), STATUS, (verdict, status) => {
        const cause = errorOf(status, 'WALLET_SIGNATURE_INVALID');
        const e = rejection(verdict, sessionOf(keys, 0), cause);
        expect(isWalletError(e)).toBe(true);
        expect(e.code).toBe(verdict === 'expired' ? 'SESSION_EXPIRED' : 'SESSION_REVOKED');
        expect(e.cause).toBe(cause);
        expect(e.status).toBe(status);
      }),
    );
  });
});

describe('refused / rejected: a gone session is dropped with its key; any other refusal stands', () => {
  for (const via of ['refused', 'rejected'] as const) {
    it(`${via}: verdict → the session and its key removed (the other kept), the verdict's error; none → same error, nothing removed (drawn)`, async () => {
      await fc.assert(
        fc.asyncProperty(STATUS, CODE, AT, LISTED, async (status, code, at, listed) => {
          const keyStore = newKeyStore();
          const a = sessionOf(keys, 0);
          const b = sessionOf(keys, 1, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() });
          await storeState(keyStore, keys, [a, b]);
          const ctx = contextOf(keyStore, listingService(listFor(listed, a.id)), () => T0 + LIFETIME_MS + at);
          const error = errorOf(status, code);
          const calls: string[] = [];
          const out = via === 'refused' ? await refused(ctx, await readSnapshot(keyStore.meta, ACCOUNT), a, error) : await rejected(ctx, a, error, runIn(keyStore, calls));
          const verdict = expected(status, code, at, listed);
          const after = await readSnapshot(keyStore.meta, ACCOUNT);
          if (verdict === undefined) {
            expect(out).toBe(error);
            expect(after.state.generation).toBe(1);
            expect(await keyStore.get(a.publicKeyHex)).toBeDefined();
            expect(calls).toEqual([]);
          } else {
            expect(isWalletError(out, verdict === 'expired' ? 'SESSION_EXPIRED' : 'SESSION_REVOKED')).toBe(true);
            expect((out as WalletError).cause).toBe(error);
            expect(after.state.sessions.map((s) => s.id)).toEqual([b.id]);
            expect(after.state.current).toBe(b.id);
            expect(after.state.change).toBe(verdict);
            expect(await keyStore.get(a.publicKeyHex)).toBeUndefined();
            expect(await keyStore.get(b.publicKeyHex)).toBeDefined();
            if (via === 'rejected') expect(calls).toEqual([ACCOUNT]);
          }
        }),
        { numRuns: 120 },
      );
    });
  }

  it('refused: an error that is not a WalletError is returned as it is, nothing asked or removed', async () => {
    const keyStore = newKeyStore();
    const a = sessionOf(keys, 0);
    await storeState(keyStore, keys, [a]);
    const svc = listingService(() => []);
    const ctx = contextOf(keyStore, svc, () => T0 + 2 * LIFETIME_MS);
    const odd = Object.assign(new Error('boom'), { status: 401, code: 'WALLET_SIGNATURE_INVALID' });
    expect(await refused(ctx, await readSnapshot(keyStore.meta, ACCOUNT), a, odd)).toBe(odd);
    expect(svc.asked).toBe(0);
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(1);
  });
});

describe('keyIn: the key of the session that signs', () => {
  it('expired on the clock and not listed → SESSION_EXPIRED, removed; listed or not expired → its key (drawn)', async () => {
    await fc.assert(
      fc.asyncProperty(AT, LISTED, async (at, listed) => {
        const keyStore = newKeyStore();
        const a = sessionOf(keys, 0);
        const b = sessionOf(keys, 1, { expiresAt: new Date(T0 + 10 * LIFETIME_MS).toISOString() });
        await storeState(keyStore, keys, [a, b]);
        const ctx = contextOf(keyStore, listingService(listFor(listed, a.id)), () => T0 + LIFETIME_MS + at);
        const gone = at >= 0 && (listed === 'other' || listed === 'none');
        const got = await keyIn(ctx, await readSnapshot(keyStore.meta, ACCOUNT), a).then(
          (k) => k,
          (e: unknown) => e,
        );
        if (gone) {
          expect(isWalletError(got, 'SESSION_EXPIRED')).toBe(true);
          expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions.map((s) => s.id)).toEqual([b.id]);
        } else {
          expect((got as { publicKeyHex: string }).publicKeyHex).toBe(a.publicKeyHex);
          expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(2);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a missing key → KEY_EVICTED, that session dropped (change evicted), the other kept with its key', async () => {
    const { keyStore, a, b, ctx } = await twoSessionsStored(keys, {}, (s) => s.id !== 'Session:0');
    await expect(keyIn(ctx, await readSnapshot(keyStore.meta, ACCOUNT), a)).rejects.toMatchObject({ code: 'KEY_EVICTED' });
    const after = await readSnapshot(keyStore.meta, ACCOUNT);
    expect(after.state.sessions.map((s) => s.id)).toEqual([b.id]);
    expect(after.state.change).toBe('evicted');
    expect(await keyStore.get(b.publicKeyHex)).toBeDefined();
  });

  it('another failure of the key store is thrown as it is; nothing is removed', async () => {
    const keyStore = newKeyStore();
    const a = sessionOf(keys, 0);
    await storeState(keyStore, keys, [a]);
    const failing = { ...keyStore, get: () => Promise.reject(new WalletError('KEY_STORAGE_UNAVAILABLE', 'disk')) };
    const ctx = contextOf(failing, listingService(() => [a.id]));
    await expect(keyIn(ctx, await readSnapshot(keyStore.meta, ACCOUNT), a)).rejects.toMatchObject({ code: 'KEY_STORAGE_UNAVAILABLE' });
    expect((await readSnapshot(keyStore.meta, ACCOUNT)).state.sessions).toHaveLength(1);
  });
});
