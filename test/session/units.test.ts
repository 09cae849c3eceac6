// Small parts of the session layer on their own: the server clock estimate, stored-record parsing,
// the event emitter, option checks.
import { describe, expect, it } from 'vitest';
import { createServerClock } from '../../src/session/server-clock.js';
import { sessionFromAnswer } from '../../src/session/changes.js';
import { parseStoredSession } from '../../src/session/records.js';
import { createEmitter } from '../../src/session/emitter.js';
import { createSessionManager } from '../../src/session/manager.js';
import { createClient } from '../../src/transport/index.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { isWalletError } from '../../src/errors.js';

describe('server clock', () => {
  it('takes the largest recent offset, credits a Date header half a second, reports moves ≥ 1 s', () => {
    let local = 1_000_000;
    let changes = 0;
    const clock = createServerClock(() => local, () => changes++);
    expect(clock.now()).toBe(local);
    expect(clock.observeDateHeader(new Date(local + 60_000).toUTCString())).toBe(true);
    expect(clock.offsetMs).toBe(60_500 - (local % 1000)); // truncated to the second, + 500 ms
    expect(changes).toBe(1);
    // A smaller sample (network delay) does not pull the estimate down.
    expect(clock.observeServerTime(local + 59_000)).toBe(false);
    expect(clock.offsetMs).toBeGreaterThan(59_000);
    local += 5000;
    expect(clock.now()).toBe(local + clock.offsetMs);
    expect(clock.observeDateHeader(null)).toBe(false);
    expect(clock.observeDateHeader('not a date')).toBe(false);
    // The window forgets: after 8 smaller samples the estimate follows them.
    for (let i = 0; i < 8; i++) clock.observeServerTime(local + 1000);
    expect(clock.offsetMs).toBe(1000);
  });
});

describe('records', () => {
  const good = {
    id: 'Session:1',
    accountId: 'InternalAccount:1',
    credentialId: 'AuthMethod:1',
    credentialType: 'EMAIL_OTP',
    publicKeyHex: `02${'ab'.repeat(32)}`,
    expiresAt: '2030-01-01T00:15:00.000Z',
    createdAt: '2030-01-01T00:00:00.000Z',
  };
  it('accepts a complete session and rejects damaged ones', () => {
    expect(parseStoredSession(good)).toEqual(good);
    expect(parseStoredSession({ ...good, legacy: true })).toEqual({ ...good, legacy: true });
    for (const bad of [null, 'x', { ...good, credentialType: 'PASSWORD' }, { ...good, publicKeyHex: 'zz' }, { ...good, expiresAt: 'soon' }, { ...good, id: 1 }]) {
      expect(parseStoredSession(bad)).toBeUndefined();
    }
  });
  it('fills what an answer lacks from what the flow knows', () => {
    const s = sessionFromAnswer(
      { id: 'Session:2', expiresAt: good.expiresAt } as never,
      { accountId: good.accountId, credentialId: good.credentialId, credentialType: 'PASSKEY', publicKeyHex: good.publicKeyHex },
      Date.parse(good.createdAt),
    );
    expect(s).toMatchObject({ accountId: good.accountId, credentialId: good.credentialId, credentialType: 'PASSKEY', createdAt: good.createdAt });
  });
});

describe('emitter', () => {
  it('a throwing listener does not stop the others; off() detaches', () => {
    const e = createEmitter<{ x: number }>();
    const seen: number[] = [];
    e.on('x', () => {
      throw new Error('boom');
    });
    const off = e.on('x', (n) => seen.push(n));
    e.emit('x', 1);
    off();
    e.emit('x', 2);
    expect(seen).toEqual([1]);
    expect(() => e.on('x', 'nope' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('manager options', () => {
  it('refreshWhenRemaining must be a fraction', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    const keyStore = createKeyStore({ backend: createMemoryBackend() });
    for (const bad of [0, 1, 2, -0.1, Number.NaN, '0.3']) {
      try {
        createSessionManager({ client, keyStore, refreshWhenRemaining: bad as never });
        throw new Error('accepted');
      } catch (error) {
        expect(isWalletError(error, 'INVALID_ARGUMENT')).toBe(true);
      }
    }
  });
});
