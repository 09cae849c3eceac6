// A logout while storage refuses writes (issue 31; INVARIANTS.md I1, I8; src/session/held.ts): its
// records are held in its tab's memory, and a key is deleted only once no record names its session.
// Before this, the end that finished deleted the key while storage still named the session (the
// emptied state held in memory): a tab without a channel, or the next one to load after the logout's
// tab closed, found a session without its key (the model's S2, seeds 1, 2 and 5).
import { describe, expect, it } from 'vitest';
import { WalletError } from '../../src/errors.js';
import { readEnding } from '../../src/session/state.js';
import { ACCOUNT, platform, until } from './tabs-fixture.js';

const storedState = (p: ReturnType<typeof platform>): { sessions: Array<{ id: string }> } | undefined => p.backend.map.get(`meta:account:${ACCOUNT}`) as never;

describe('held.ts: a key is deleted only once no record names its session', () => {
  for (const channel of [true, false]) {
    it(`${channel ? 'with' : 'without'} a channel: the logout ends the session; storage, which still names it, keeps its key until it takes the held records`, async () => {
      const p = platform({ channel });
      const a = p.tab();
      const session = await p.login(a);
      p.backend.failWrites = Number.POSITIVE_INFINITY;
      await a.manager.logout(ACCOUNT);
      expect(p.service.active(session.id)).toBe(false);
      expect(a.manager.current(ACCOUNT)).toBeNull();
      // Storage refused the emptied state: it still names the session, so its key stays.
      expect(storedState(p)?.sessions.map((s) => s.id)).toEqual([session.id]);
      expect(p.backend.map.has(session.publicKeyHex)).toBe(true);
      // Storage takes writes again; the page comes back: the held records are written, then the key goes.
      p.backend.failWrites = 0;
      a.wake!();
      await until(() => storedState(p)?.sessions.length === 0, 'the emptied state stored');
      await until(() => !p.backend.map.has(session.publicKeyHex), 'the key deleted');
      expect(await readEnding(a.keyStore.meta, ACCOUNT)).toEqual([]);
    });
  }

  it('the logout’s tab closes before storage takes its records: the next tab finds the session with its key, and its first use drops it (revoked)', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const session = await p.login(a);
    p.backend.failWrites = Number.POSITIVE_INFINITY;
    await a.manager.logout(ACCOUNT);
    a.manager.dispose();
    p.backend.failWrites = 0;
    const b = p.tab();
    await b.manager.restore();
    // What storage holds: the session, with its key (never one without: S2).
    expect(b.manager.current(ACCOUNT)?.id).toBe(session.id);
    expect(p.backend.map.has(session.publicKeyHex)).toBe(true);
    const signer = await b.manager.signer(ACCOUNT);
    expect(signer.publicKeyHex).toBe(session.publicKeyHex);
    // Its first use: the service refuses it; the session is dropped as revoked.
    const judged = await b.manager.rejected(session, new WalletError('WALLET_SIGNATURE_INVALID', 'no active session has this key', { status: 401 }));
    expect(judged.code).toBe('SESSION_REVOKED');
    await until(() => b.manager.current(ACCOUNT) === null, 'dropped as revoked');
  });

  it('a key is kept while a pending end still names it, and deleted once the list no longer does', async () => {
    const p = platform();
    const a = p.tab();
    const session = await p.login(a);
    p.service.offline = true;
    await a.manager.logout(ACCOUNT);
    expect((await readEnding(a.keyStore.meta, ACCOUNT)).map((e) => e.id)).toEqual([session.id]);
    // The session layer's key store deletes nothing a record names.
    expect(await a.keyStore.get(session.publicKeyHex)).toBeDefined();
    p.service.offline = false;
    await a.manager.logout(ACCOUNT);
    expect(p.service.active(session.id)).toBe(false);
    expect(p.backend.map.has(session.publicKeyHex)).toBe(false);
  });
});
