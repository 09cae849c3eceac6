// tab.ts with held.ts (fast, no sandbox): when storage takes back what a logout held in memory (the
// page comes back), the other tabs are told and follow. A tab that loaded during the outage found
// what storage held then (the session, its key kept for its pending end: the service was offline
// too), as held.ts's header says; the message of the flush is what moves it. Tabs are managers over
// tabs-fixture.ts's platform (real keys, a service double that answers at once).
import { describe, expect, it } from 'vitest';
import { ACCOUNT, named, platform, until } from './tabs-fixture.js';

describe('a logout’s held records reach storage: the other tabs are told', () => {
  it('storage and the service both out during a logout; a tab loaded then still sees the session; the page comes back: that tab logs out', async () => {
    const p = platform();
    const a = p.tab();
    const s = await p.login(a);
    p.service.offline = true;
    p.backend.failWrites = Number.POSITIVE_INFINITY;
    await a.manager.logout(ACCOUNT);
    expect(a.manager.current(ACCOUNT)).toBeNull();
    // A tab opened now reads storage: the logout is only in A's memory.
    const c = p.tab();
    await c.manager.restore();
    expect(c.manager.current(ACCOUNT)?.id).toBe(s.id);
    // Back: storage takes writes, the service answers; A's page comes back and writes what it held.
    p.backend.failWrites = 0;
    p.service.offline = false;
    a.wake!();
    await until(() => c.manager.current(ACCOUNT) === null, 'the tab loaded during the outage follows the logout');
    expect(named(c, 'logged-out')).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    await until(() => !p.service.active(s.id), 'the session ended on the service');
  });
});
