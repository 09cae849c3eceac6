// Two wallets sharing one storage (two tabs of one origin) in Node: BroadcastChannel is here, Web
// Locks are not (the manager falls back to a lock of this realm). One refresh for both, both keep
// signing, logins and logouts travel.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from '../../src/keys/index.js';
import { emailLogin, nextEvent, useTestSandbox, testWallet } from '../flows/helpers/sandbox.js';

const env = useTestSandbox();

function twoTabs() {
  const backend = createMemoryBackend();
  const crossTab = { name: `test-${randomUUID()}` };
  const a = testWallet(env.sandbox, { backend, crossTab });
  const b = testWallet(env.sandbox, { backend, crossTab });
  return { a, b };
}

describe('two tabs on one storage', () => {
  it('a login in one tab becomes the other tab’s session', async () => {
    const { accountId } = await env.admin.customer();
    const { a, b } = twoTabs();
    await a.wallet.restore();
    await b.wallet.restore();
    const seen = nextEvent(b.wallet, 'session');
    const session = await emailLogin(a.wallet, accountId);
    expect(await seen).toEqual(session);
    expect(b.wallet.session(accountId)).toEqual(session);
    expect(await b.wallet.signOutOtherDevices(accountId)).toBe(0);
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('near expiry both want to refresh: exactly one refresh request, both adopt it and keep signing', async () => {
    const { accountId } = await env.admin.customer();
    const { a, b } = twoTabs();
    await a.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    await b.wallet.restore();
    expect(b.wallet.session(accountId)).toEqual(session);
    const refreshedA = nextEvent(a.wallet, 'refreshed');
    const refreshedB = nextEvent(b.wallet, 'refreshed');
    env.admin.advance(10 * 60 + 5);
    // Both learn the server's time at once; both timers fire.
    await Promise.all([a.wallet.listSessions(accountId), b.wallet.listSessions(accountId)]);
    const [ra, rb] = await Promise.all([refreshedA, refreshedB]);
    expect(ra.session.id).toBe(rb.session.id);
    expect(ra.previous.id).toBe(session.id);
    const refreshLegs = [...a.requests, ...b.requests].filter((r) => r.path.endsWith('/refresh') && r.leg === 1);
    expect(refreshLegs).toHaveLength(1);
    expect(a.wallet.session(accountId)?.id).toBe(ra.session.id);
    expect(b.wallet.session(accountId)?.id).toBe(ra.session.id);
    // Both sign with the new key; the refreshed-away session was ended on the service.
    expect(await a.wallet.signOutOtherDevices(accountId)).toBe(0);
    expect(await b.wallet.signOutOtherDevices(accountId)).toBe(0);
    expect((await a.wallet.listSessions(accountId)).map((s) => s.id)).toEqual([ra.session.id]);
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('logout in one tab logs the other out', async () => {
    const { accountId } = await env.admin.customer();
    const { a, b } = twoTabs();
    await a.wallet.restore();
    await emailLogin(a.wallet, accountId);
    await b.wallet.restore();
    const out = nextEvent(b.wallet, 'logged-out');
    await a.wallet.logout(accountId);
    expect(await out).toEqual({ accountId, reason: 'other-tab' });
    expect(b.wallet.session(accountId)).toBeNull();
    expect(b.wallet.sessions()).toEqual([]);
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('without the channel the other tab catches up on restore (re-read of storage)', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const a = testWallet(env.sandbox, { backend, crossTab: false });
    const b = testWallet(env.sandbox, { backend, crossTab: false });
    await b.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    expect(b.wallet.session(accountId)).toBeNull();
    const seen = nextEvent(b.wallet, 'session');
    await b.wallet.restore();
    expect(await seen).toEqual(session);
    await a.wallet.logout(accountId);
    const out = nextEvent(b.wallet, 'logged-out');
    await b.wallet.restore();
    expect(await out).toEqual({ accountId, reason: 'other-tab' });
    a.wallet.dispose();
    b.wallet.dispose();
  });
});
