// Issue 31, the ends of a logout (INVARIANTS.md I1, I8): a logout whose DELETE the app's proxy
// refuses (401 LOGIN_REQUIRED, 403) keeps its pending end and tells the app (`end-refused`); a tab
// that loads with its local clock hours fast while the service is unreachable keeps a pending end
// (no server sample yet: the local clock alone never drops one); a logout while storage refuses
// writes ends the sessions on the service, holds its records in memory and stops every tab signing
// (the request by message). Managers ("tabs") over tabs-fixture.ts's platform: real keys, a service
// double that answers at once.
import { describe, expect, it } from 'vitest';
import { WalletError } from '../../src/errors.js';
import { readEnding } from '../../src/session/state.js';
import { ACCOUNT, codeOf, named, platform, until } from './tabs-fixture.js';

const HOUR = 60 * 60_000;

describe('I1/I8: a logout the app’s proxy refuses ends nothing yet, and keeps its pending end', () => {
  const refusals = [
    new WalletError('LOGIN_REQUIRED' as never, 'Sign in first.', { status: 401 }),
    new WalletError('FORBIDDEN' as never, 'not yours', { status: 403 }),
    new WalletError('OWNER_UNKNOWN' as never, 'owner unknown', { status: 403 }),
  ];
  for (const refusal of refusals) {
    it(`${refusal.status} ${refusal.code}: the pending end and its key are kept, the app is told; the next logout once the proxy forwards it ends the session`, async () => {
      const p = platform();
      const a = p.tab();
      const session = await p.login(a);
      p.service.refusal = refusal;
      await a.manager.logout(ACCOUNT);
      // Logged out here (I1), but the session is still active on the service: a pending end (I8).
      expect(a.manager.current(ACCOUNT)).toBeNull();
      expect(p.service.active(session.id)).toBe(true);
      expect((await readEnding(a.keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([session.id]);
      expect(await a.keyStore.get(session.publicKeyHex)).toBeDefined();
      // One DELETE per logout() call, and the app told once (it was sent twice: the pending logout
      // carried out by the section's run, then the logout's own sweep).
      expect(p.service.calls.filter((c) => c.kind === 'end')).toHaveLength(1);
      const told = named(a, 'end-refused');
      expect(told).toHaveLength(1);
      for (const e of told) expect(e).toEqual({ accountId: ACCOUNT, sessionId: session.id, error: refusal });
      // The user signs in to the app again: the next logout finishes it.
      p.service.refusal = undefined;
      await a.manager.logout(ACCOUNT);
      expect(p.service.active(session.id)).toBe(false);
      expect(p.service.calls.filter((c) => c.kind === 'end')).toHaveLength(2);
      expect(await readEnding(a.keyStore.meta, ACCOUNT)).toEqual([]);
      expect(await a.keyStore.get(session.publicKeyHex)).toBeUndefined();
      expect(named(a, 'end-refused')).toHaveLength(told.length);
    });
  }

  it('a 401 of the service (the platform’s credentials) keeps the pending end too, and tells the app nothing (the user cannot fix it)', async () => {
    const p = platform();
    const a = p.tab();
    const session = await p.login(a);
    p.service.refusal = new WalletError('UNAUTHORIZED' as never, 'bad API credentials', { status: 401 });
    await a.manager.logout(ACCOUNT);
    expect(p.service.active(session.id)).toBe(true);
    expect((await readEnding(a.keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([session.id]);
    expect(named(a, 'end-refused')).toEqual([]);
  });
});

describe('I8: a local clock hours fast, the service unreachable, never drops a pending end', () => {
  it('an offline logout; a tab loads with its clock 2 h fast and logs out again, still offline: the end is kept, and finished once the service answers', async () => {
    const p = platform();
    const a = p.tab();
    const session = await p.login(a);
    p.service.offline = true;
    await a.manager.logout(ACCOUNT);
    expect((await readEnding(a.keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([session.id]);
    a.manager.dispose();
    p.timers.advance(60_000);
    // The local clock says an hour past the session's expiry plus its hour of grace; no answer yet.
    const b = p.tab({ now: () => p.timers.now + 2 * HOUR });
    await b.manager.restore();
    // After the load's own try (the same section, queued first), another try: both offline.
    await b.manager.logout(ACCOUNT);
    expect(p.service.calls.filter((c) => c.kind === 'end').length).toBeGreaterThanOrEqual(3);
    expect((await readEnding(b.keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([session.id]);
    expect(await b.keyStore.get(session.publicKeyHex)).toBeDefined();
    // Back online: the page comes back, the end is finished.
    p.service.offline = false;
    b.wake!();
    await until(() => !p.service.active(session.id), 'the pending end finished');
    await until(async () => (await readEnding(b.keyStore.meta, ACCOUNT)).length === 0, 'the pending end dropped');
  });
});

describe('logout while storage refuses writes: the sessions end on the service, every tab stops signing', () => {
  it('two tabs; writes refused from now on; logout in A resolves, the session is ended, B’s signer, ticket and picture follow by message', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    const session = await p.login(a);
    await b.manager.restore();
    await until(() => b.manager.current(ACCOUNT)?.id === session.id, 'B sees the session');
    const signer = await b.manager.signer(ACCOUNT);
    const ticket = await b.manager.signingTicket(ACCOUNT);
    p.backend.failWrites = Number.POSITIVE_INFINITY;
    await a.manager.logout(ACCOUNT);
    expect(p.service.active(session.id)).toBe(false);
    expect(a.manager.current(ACCOUNT)).toBeNull();
    expect(await codeOf(a.manager.resolve(ACCOUNT))).toBe('NOT_LOGGED_IN');
    // Storage still holds the session (every write refused): B learns of the logout by message.
    await until(() => ticket.signal.aborted, 'B’s call cancelled');
    expect(await codeOf(signer.sign(new Uint8Array([1])))).toBe('NOT_LOGGED_IN');
    await until(() => b.manager.current(ACCOUNT) === null, 'B logged out');
    expect(await codeOf(b.manager.resolve(ACCOUNT))).toBe('NOT_LOGGED_IN');
    expect(named(b, 'logged-out')).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    // Storage accepts writes again: the next write stores what was held (no session is left stored).
    p.backend.failWrites = 0;
    await a.manager.logout(ACCOUNT);
    const stored = p.backend.map.get(`meta:account:${ACCOUNT}`) as { sessions: unknown[] };
    expect(stored.sessions).toEqual([]);
  });
});
