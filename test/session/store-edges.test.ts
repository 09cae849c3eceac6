// Edges of the session store (src/session/store.ts, its invariants 1-3) and the emitter under it that
// the store's model test (test/react/store.test.ts, events in the manager's order) does not reach:
// events in other orders (a second logout seen while signed out, `expiring` before any `changed`, a
// reason from a newer manager), one listener subscribed twice, and an emitter cleared.
import { describe, expect, it } from 'vitest';
import { createEmitter } from '../../src/session/emitter.js';
import { createSessionStore } from '../../src/session/store.js';
import type { LogoutReason, Session, SessionEvents } from '../../src/session/types.js';

const A = 'InternalAccount:a';
const S: Session = { id: 'Session:1', accountId: A, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: `02${'11'.repeat(32)}`, createdAt: '2030-01-01T00:00:00.000Z', expiresAt: '2030-01-01T00:15:00.000Z' };

function setup() {
  const events = createEmitter<SessionEvents>();
  let current: Session | null = null;
  const store = createSessionStore({ on: events.on, current: (accountId) => (accountId === undefined || current?.accountId === accountId ? current : null) });
  let notified = 0;
  store.subscribe(() => notified++);
  return {
    events,
    store,
    set: (s: Session | null) => void (current = s),
    notified: () => notified,
  };
}

describe('session store edges', () => {
  it('signed out, the account sees another logout: the reason shown is the last one (a new snapshot, one notification)', () => {
    const t = setup();
    t.store.loaded();
    t.set(S);
    t.events.emit('changed', { accountId: A, origin: 'this-tab' });
    t.set(null);
    t.events.emit('logged-out', { accountId: A, reason: 'user' });
    t.events.emit('changed', { accountId: A, origin: 'this-tab' });
    const first = t.store.getSnapshot();
    expect(first).toMatchObject({ status: 'signed-out', reason: 'logout', accountId: A, origin: 'this-tab' });
    const seen = t.notified();
    t.events.emit('logged-out', { accountId: A, reason: 'expired' });
    t.events.emit('changed', { accountId: A, origin: 'this-tab' });
    expect(t.store.getSnapshot()).not.toBe(first);
    expect(t.store.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'expired', accountId: A });
    expect(t.notified()).toBe(seen + 1);
    // A reason this store does not know (a newer manager) reads as revoked.
    t.events.emit('logged-out', { accountId: A, reason: 'bogus' as LogoutReason });
    t.events.emit('changed', { accountId: A, origin: 'this-tab' });
    expect(t.store.getSnapshot().reason).toBe('revoked');
  });

  it('a session shown before any change named its account (an `expiring` first): origin storage, no throw', () => {
    const t = setup();
    t.set(S);
    expect(() => t.events.emit('expiring', S)).not.toThrow();
    expect(t.store.getSnapshot()).toMatchObject({ status: 'expiring', accountId: A, origin: 'storage', expiresAt: Date.parse(S.expiresAt) });
  });

  it('one listener subscribed twice is two subscriptions: called twice per change, each unsubscribed on its own', () => {
    const t = setup();
    let calls = 0;
    const listener = (): void => void calls++;
    const off1 = t.store.subscribe(listener);
    t.store.subscribe(listener);
    t.store.loaded();
    expect(calls).toBe(2);
    off1();
    t.set(S);
    t.events.emit('changed', { accountId: A, origin: 'this-tab' });
    expect(calls).toBe(3);
  });

  it('an emitter cleared calls no listener it had', () => {
    const e = createEmitter<{ x: number }>();
    const got: number[] = [];
    e.on('x', (n) => void got.push(n));
    e.emit('x', 1);
    e.clear();
    e.emit('x', 2);
    expect(got).toEqual([1]);
  });
});
