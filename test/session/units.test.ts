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

describe('server clock: edges (I6)', () => {
  // A monotonic clock apart from the wall clock (as performance.now() is), so that a mix-up of the two shows.
  function clocks(local0 = 1_000_000, mono0 = 5_000) {
    const t = { local: local0, mono: mono0, changes: 0 };
    const clock = createServerClock(() => t.local, () => t.changes++, () => t.mono);
    return { t, clock };
  }

  it('before any sample: the wall clock; a non-finite sample is ignored (the estimate stays the wall clock)', () => {
    const { t, clock } = clocks();
    expect(clock.now()).toBe(t.local);
    expect(clock.observeServerTime(Number.NaN)).toBe(false);
    expect(clock.observeServerTime(Number.POSITIVE_INFINITY)).toBe(false);
    expect(clock.now()).toBe(t.local);
    expect(clock.offsetMs).toBe(0);
    expect(t.changes).toBe(0);
  });

  it('first sample: moved only when it is 1 s or more from the wall clock', () => {
    for (const [delta, moved] of [[0, false], [999, false], [-999, false], [1000, true], [-1000, true]] as const) {
      const { t, clock } = clocks();
      expect(clock.observeServerTime(t.local + delta)).toBe(moved);
      expect(t.changes).toBe(moved ? 1 : 0);
      expect(clock.now()).toBe(t.local + delta);
    }
  });

  it('later samples: moved only when the estimate moves by 1 s or more; onChange is optional', () => {
    const { t, clock } = clocks();
    clock.observeServerTime(t.local + 5000);
    expect(clock.observeServerTime(t.local + 5999)).toBe(false);
    expect(clock.observeServerTime(t.local + 6999)).toBe(true);
    expect(t.changes).toBe(2);
    const quiet = createServerClock(() => t.local, undefined, () => t.mono);
    expect(quiet.observeServerTime(t.local + 60_000)).toBe(true);
    expect(quiet.offsetMs).toBe(60_000);
  });

  it('a sample seen earlier (receivedAt) is aged on the monotonic clock; wall-clock jumps afterwards do not move the estimate', () => {
    const { t, clock } = clocks();
    // Server time S was read 3 s ago (wall clock): now the server is at S + 3 s.
    const S = t.local + 20_000;
    clock.observeServerTime(S, t.local - 3000);
    expect(clock.now()).toBe(S + 3000);
    // The same instant as a Date header (whole seconds here): credited half a second.
    expect(clock.observeDateHeader(new Date(S).toUTCString(), t.local - 3000)).toBe(false);
    expect(clock.now()).toBe(S + 3500);
    t.mono += 1000;
    t.local += 3_600_000; // the user sets the wall clock an hour forward
    expect(clock.now()).toBe(S + 4500);
  });

  it('the window holds the last 8 samples: a large one counts until 8 smaller ones follow it', () => {
    const { t, clock } = clocks();
    clock.observeServerTime(t.local + 50_000);
    for (let i = 0; i < 7; i++) clock.observeServerTime(t.local + 1000);
    expect(clock.offsetMs).toBe(50_000);
    clock.observeServerTime(t.local + 1000);
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
