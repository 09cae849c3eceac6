// The session store (src/session/store.ts): random event sequences, in the order the session
// manager emits them, against a model of what the snapshot must show (its invariants 1 and 2);
// then the real thing: two wallets ("tabs") on one storage against the in-process sandbox.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from '../../src/keys/index.js';
import { createEmitter } from '../../src/session/emitter.js';
import { createSessionStore, initialSnapshot, type SessionSnapshot } from '../../src/session/store.js';
import type { LogoutReason, Session, SessionEvents } from '../../src/session/types.js';
import { emailLogin, nextEvent, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';

type Command =
  | { kind: 'login'; account: number; origin: 'this-tab' | 'other-tab' }
  | { kind: 'refreshed'; origin: 'this-tab' | 'other-tab' }
  | { kind: 'expiring' }
  | { kind: 'refreshing'; on: boolean }
  | { kind: 'logout'; reason: LogoutReason }
  | { kind: 'evicted' }
  | { kind: 'loaded' }
  | { kind: 'noise' }
  | { kind: 'touch'; origin: 'this-tab' | 'other-tab' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('login' as const), account: fc.integer({ min: 0, max: 1 }), origin: fc.constantFrom('this-tab' as const, 'other-tab' as const) }),
  fc.record({ kind: fc.constant('refreshed' as const), origin: fc.constantFrom('this-tab' as const, 'other-tab' as const) }),
  fc.constant({ kind: 'expiring' as const }),
  fc.record({ kind: fc.constant('refreshing' as const), on: fc.boolean() }),
  fc.record({ kind: fc.constant('logout' as const), reason: fc.constantFrom<LogoutReason>('user', 'other-tab', 'expired', 'revoked') }),
  fc.constant({ kind: 'evicted' as const }),
  fc.constant({ kind: 'loaded' as const }),
  fc.constant({ kind: 'noise' as const }),
  fc.record({ kind: fc.constant('touch' as const), origin: fc.constantFrom('this-tab' as const, 'other-tab' as const) }),
);

let serial = 0;
function newSession(accountId: string): Session {
  serial += 1;
  const created = Date.UTC(2026, 0, 1) + serial * 1000;
  return { id: `Session:${serial}`, accountId, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', publicKeyHex: `02${serial}`, createdAt: new Date(created).toISOString(), expiresAt: new Date(created + 900_000).toISOString() };
}

/** The fields a snapshot must show, from the model. */
interface Expected {
  status: SessionSnapshot['status'];
  reason: SessionSnapshot['reason'];
  accountId: string | null;
  sessionId: string | null;
  expiresAt: number | null;
  origin: SessionSnapshot['origin'];
}

describe('session store: random event sequences against a model', () => {
  it('the snapshot shows the model, is frozen, and is a new object (with one notification) exactly when what it shows changed', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const events = createEmitter<SessionEvents>();
        let current: Session | null = null;
        const store = createSessionStore({ on: events.on, current: (accountId) => (accountId === undefined || current?.accountId === accountId ? current : null) });
        let notified = 0;
        store.subscribe(() => notified++);
        // The model.
        let loaded = false;
        const refreshing = new Set<string>();
        const expiring = new Set<string>();
        let lastAccount: string | null = null;
        let reason: SessionSnapshot['reason'] = 'none';
        let origin: SessionSnapshot['origin'] = null;
        const expect0: Expected = { status: 'initializing', reason: null, accountId: null, sessionId: null, expiresAt: null, origin: null };
        let previous = store.getSnapshot();
        expect(previous).toBe(initialSnapshot());
        let previousExpected = expect0;
        const change = (accountId: string, o: 'this-tab' | 'other-tab'): void => {
          origin = loaded || o === 'this-tab' ? o : 'storage';
          events.emit('changed', { accountId, origin: o });
        };
        for (const c of commands) {
          switch (c.kind) {
            case 'login': {
              const s = newSession(`InternalAccount:${c.account}`);
              current = s;
              events.emit('session', s);
              change(s.accountId, c.origin);
              break;
            }
            case 'refreshed': {
              if (!current) break;
              const previousSession = current;
              current = newSession(current.accountId);
              events.emit('refreshed', { previous: previousSession, session: current });
              change(current.accountId, c.origin);
              break;
            }
            case 'expiring':
              if (!current) break;
              expiring.add(current.id);
              events.emit('expiring', current);
              break;
            case 'refreshing':
              if (!current) break;
              if (c.on) refreshing.add(current.accountId);
              else refreshing.delete(current.accountId);
              events.emit('refreshing', { accountId: current.accountId, refreshing: c.on });
              break;
            case 'logout': {
              if (!current) break;
              const accountId = current.accountId;
              current = null;
              reason = { user: 'logout', 'other-tab': 'other-tab', expired: 'expired', revoked: 'revoked' }[c.reason] as SessionSnapshot['reason'];
              events.emit('logged-out', { accountId, reason: c.reason });
              change(accountId, c.reason === 'other-tab' ? 'other-tab' : 'this-tab');
              break;
            }
            case 'evicted': {
              if (!current) break;
              const gone = current;
              current = null;
              reason = 'revoked';
              events.emit('key-evicted', { session: gone });
              change(gone.accountId, 'this-tab');
              break;
            }
            case 'loaded':
              loaded = true;
              store.loaded();
              break;
            case 'touch':
              // The account changed (another of its sessions came or went) but not its current one.
              if (current) events.emit('changed', { accountId: current.accountId, origin: c.origin });
              break;
            case 'noise':
              // Events that change nothing the snapshot shows.
              events.emit('storage-fallback', { reason: 'x' });
              if (current) events.emit('refresh-failed', { session: current, error: undefined as never });
              break;
          }
          if (current) lastAccount = current.accountId;
          const want: Expected = current
            ? {
                status: refreshing.has(current.accountId) ? 'refreshing' : expiring.has(current.id) ? 'expiring' : 'active',
                reason: null,
                accountId: current.accountId,
                sessionId: current.id,
                expiresAt: Date.parse(current.expiresAt),
                origin,
              }
            : loaded
              ? { status: 'signed-out', reason: lastAccount === null ? 'none' : reason, accountId: lastAccount, sessionId: null, expiresAt: null, origin: lastAccount === null || reason === 'none' ? null : origin }
              : expect0;
          const snap = store.getSnapshot();
          expect({ status: snap.status, reason: snap.reason, accountId: snap.accountId, sessionId: snap.session?.id ?? null, expiresAt: snap.expiresAt, origin: snap.origin }).toEqual(want);
          expect(Object.isFrozen(snap)).toBe(true);
          if (snap.session) expect(Object.isFrozen(snap.session)).toBe(true);
          // Reading twice gives the same object.
          expect(store.getSnapshot()).toBe(snap);
          const changed = JSON.stringify(want) !== JSON.stringify(previousExpected);
          if (changed) {
            expect(snap).not.toBe(previous);
            expect(notified).toBe(1);
          } else {
            expect(snap).toBe(previous);
            expect(notified).toBe(0);
          }
          notified = 0;
          previous = snap;
          previousExpected = want;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an unsubscribed listener is not called; a throwing listener goes to reportError and does not stop the others', () => {
    const events = createEmitter<SessionEvents>();
    let current: Session | null = null;
    const store = createSessionStore({ on: events.on, current: () => current });
    const calls: string[] = [];
    const off = store.subscribe(() => calls.push('a'));
    const bug = new Error('app bug');
    store.subscribe(() => {
      throw bug;
    });
    store.subscribe(() => calls.push('c'));
    const reported: unknown[] = [];
    const g = globalThis as { reportError?: ((e: unknown) => void) | undefined };
    const before = g.reportError;
    g.reportError = (e) => void reported.push(e);
    try {
      store.loaded();
      expect(reported).toEqual([bug]);
      off();
      off();
      current = newSession('InternalAccount:1');
      events.emit('changed', { accountId: 'InternalAccount:1', origin: 'this-tab' });
      expect(calls).toEqual(['a', 'c', 'c']);
      // A reportError that throws too is contained.
      g.reportError = () => {
        throw new Error('worse');
      };
      current = null;
      events.emit('changed', { accountId: 'InternalAccount:1', origin: 'this-tab' });
      expect(calls).toEqual(['a', 'c', 'c', 'c']);
    } finally {
      g.reportError = before;
    }
    expect(() => store.subscribe(42 as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('listener') }));
  });

  it('initialSnapshot: the shared initializing snapshot, or a frozen one naming the hinted account', () => {
    expect(initialSnapshot()).toBe(initialSnapshot(null));
    const hinted = initialSnapshot('InternalAccount:7');
    expect(hinted).toEqual({ status: 'initializing', reason: null, accountId: 'InternalAccount:7', session: null, expiresAt: null, origin: null });
    expect(Object.isFrozen(hinted)).toBe(true);
  });
});

const env = useTestSandbox();

describe('session store over real wallets (two tabs on one storage, in-process sandbox)', () => {
  it('restore → signed-out; login in A → active (this-tab) in A, (other-tab) in B; logout in B → signed-out other-tab in A', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const crossTab = { name: `test-${randomUUID()}` };
    const a = testWallet(env.sandbox, { backend, crossTab });
    const b = testWallet(env.sandbox, { backend, crossTab });
    expect(a.wallet.getSnapshot().status).toBe('initializing');
    await a.wallet.restore();
    await b.wallet.restore();
    expect(a.wallet.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'none', accountId: null });
    const seen = nextEvent(b.wallet, 'session');
    const session = await emailLogin(a.wallet, accountId);
    await seen;
    expect(a.wallet.getSnapshot()).toMatchObject({ status: 'active', accountId, origin: 'this-tab', expiresAt: Date.parse(session.expiresAt) });
    expect(a.wallet.getSnapshot().session?.id).toBe(session.id);
    expect(b.wallet.getSnapshot()).toMatchObject({ status: 'active', accountId, origin: 'other-tab' });
    const out = nextEvent(a.wallet, 'logged-out');
    await b.wallet.logout(accountId);
    await out;
    expect(b.wallet.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'logout', origin: 'this-tab', accountId });
    expect(a.wallet.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'other-tab', origin: 'other-tab', accountId });
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('an explicit refresh shows refreshing, then active with the new expiry; a restored session is origin storage', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const crossTab = { name: `test-${randomUUID()}` };
    const a = testWallet(env.sandbox, { backend, crossTab, autoRefresh: false });
    await a.wallet.restore();
    await emailLogin(a.wallet, accountId);
    const statuses: string[] = [];
    a.wallet.subscribe(() => statuses.push(a.wallet.getSnapshot().status));
    const next = await a.wallet.refresh(accountId);
    await expect.poll(() => statuses.at(-1)).toBe('active');
    expect(statuses[0]).toBe('refreshing');
    expect(statuses.at(-1)).toBe('active');
    expect(a.wallet.getSnapshot().session?.id).toBe(next.id);
    a.wallet.dispose();
    const c = testWallet(env.sandbox, { backend, crossTab: { name: `test-${randomUUID()}` } });
    await c.wallet.restore();
    expect(c.wallet.getSnapshot()).toMatchObject({ status: 'active', origin: 'storage', accountId });
    c.wallet.dispose();
  });

  it('the expiry window shows expiring (auto refresh off), and expiry signed-out expired', async () => {
    const { accountId } = await env.admin.customer();
    const a = testWallet(env.sandbox, { autoRefresh: false, crossTab: false });
    await a.wallet.restore();
    await emailLogin(a.wallet, accountId);
    const expiring = nextEvent(a.wallet, 'expiring');
    env.admin.advance(10 * 60 + 5);
    await a.wallet.listSessions(accountId); // the wallet learns the service's clock
    await expiring;
    expect(a.wallet.getSnapshot().status).toBe('expiring');
    const expired = nextEvent(a.wallet, 'logged-out');
    env.admin.advance(5 * 60);
    await a.wallet.listSessions(accountId);
    await expired;
    expect(a.wallet.getSnapshot()).toMatchObject({ status: 'signed-out', reason: 'expired', accountId });
    a.wallet.dispose();
  });
});
