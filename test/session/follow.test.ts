// follow.ts through the manager (fast: no sandbox): how a tab's picture follows storage. The 1 s
// re-read while calls are tracked (a logout whose message never comes still cancels them: I2, I7),
// one timer at a time and none once nothing is tracked or the manager is disposed; observe's
// picture (cleared storage followed down, this tab's logout "user"); a logout another tab left
// unfinished finished here, once; syncAll over stored and shown accounts; pending ends finished in
// the background (I8). Tabs over fakes of the platform (tabs-fixture.ts), real keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSessionKey } from '../../src/crypto/index.js';
import { isWalletError } from '../../src/errors.js';
import { requestLogout } from '../../src/session/state.js';
import type { LogoutReason } from '../../src/session/types.js';
import { deferred, flush } from '../helpers/wait-for.js';
import { ACCOUNT, OTHER, codeOf, named, platform, until, type Tab } from './tabs-fixture.js';

const loggedOut = (t: Tab) => named(t, 'logged-out') as Array<{ accountId: string; reason: LogoutReason }>;
const watches = (p: ReturnType<typeof platform>, t: Tab) => p.timers.delays(t.id).filter((ms) => ms === 1000).length;

describe('the 1 s re-read while calls are tracked (no channel)', () => {
  it('a logout in another tab cancels a tracked call here at the next second, not before', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const b = p.tab();
    await p.login(a);
    await b.manager.restore();
    // Tracked calls: one timer however many.
    const t1 = await a.manager.signingTicket(ACCOUNT);
    const t2 = await a.manager.signingTicket(ACCOUNT);
    expect(watches(p, a)).toBe(1);
    await b.manager.logout(ACCOUNT);
    await flush(); // what a still has in flight only chains promises (in-memory storage, locks)
    expect(t1.signal.aborted).toBe(false);
    p.timers.advance(999);
    expect(watches(p, a)).toBe(1); // the re-read has not fired: nothing of a's runs
    await flush();
    expect(t1.signal.aborted).toBe(false);
    p.timers.advance(1);
    await until(() => t1.signal.aborted && t2.signal.aborted, 'cancelled');
    expect(isWalletError(t1.signal.reason, 'NOT_LOGGED_IN')).toBe(true);
    expect(a.manager.current(ACCOUNT)).toBeNull();
    expect(loggedOut(a)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    // Still tracked (not done): the watch goes on; once done, the next second stops it.
    await until(() => watches(p, a) === 1, 're-armed');
    t1.done();
    t2.done();
    p.timers.advance(1000); // nothing tracked: the timer returns at once, arming nothing
    await flush();
    expect(watches(p, a)).toBe(0);
  });

  it('drawn: tickets taken and done over the accounts, seconds passing — the watch is armed exactly while a call is tracked (after each second)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constantFrom('tick' as const), fc.record({ take: fc.constantFrom(ACCOUNT, OTHER) }), fc.record({ done: fc.nat(5) })), { maxLength: 12 }), async (steps) => {
        const p = platform({ channel: false });
        const a = p.tab();
        await p.login(a, ACCOUNT);
        await p.login(a, OTHER);
        p.timers.advance(1000); // the logins' own tracking ends: the watch stops
        await flush();
        expect(watches(p, a)).toBe(0);
        const open: Array<{ done(): void }> = [];
        let armed = false;
        for (const step of steps) {
          if (step === 'tick') {
            const tracked = open.length > 0;
            p.timers.advance(1000);
            // Re-armed once the re-read (in-memory storage: promises only) is over.
            if (tracked) await until(() => watches(p, a) === 1, 're-armed after the re-read');
            else await flush();
            armed = tracked;
          } else if ('take' in step) {
            open.push(await a.manager.signingTicket(step.take));
            armed = true;
          } else if (open.length > 0) {
            open.splice(step.done % open.length, 1)[0]!.done();
          }
          expect(watches(p, a)).toBe(armed ? 1 : 0);
        }
        a.manager.dispose();
        expect(watches(p, a)).toBe(0);
      }),
      { numRuns: 25 },
    );
  });

  it('a re-read that fails does not stop the watch', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    await p.login(a);
    const t = await a.manager.signingTicket(ACCOUNT);
    const get = p.backend.get;
    const failed = deferred();
    p.backend.get = async () => {
      failed.resolve();
      throw new DOMException('broken', 'UnknownError');
    };
    p.timers.advance(1000);
    await failed.promise;
    p.backend.get = get;
    await until(() => watches(p, a) === 1, 're-armed after the failed re-read');
    await requestLogout(a.keyStore.meta, ACCOUNT);
    p.timers.advance(1000);
    await until(() => t.signal.aborted, 'cancelled after the failed read');
  });

  it('a disposed manager arms no watch (a login run after dispose)', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    await a.manager.restore();
    a.manager.dispose();
    await a.manager.loggingIn(ACCOUNT, async () => undefined);
    expect(p.timers.delays(a.id)).toEqual([]);
  });
});

describe('observe: the picture follows storage', () => {
  it('storage cleared: a re-read follows it down (logged-out), for accounts only the picture still names', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const s = await p.login(a, ACCOUNT);
    const o = await p.login(a, OTHER);
    expect(a.manager.all().map((x) => x.id)).toEqual([s.id, o.id]);
    p.backend.map.clear();
    a.keyStore.invalidate();
    expect(await a.manager.restore()).toEqual([]);
    expect(loggedOut(a).map((e) => e.accountId).sort()).toEqual([ACCOUNT, OTHER].sort());
    expect(await codeOf(a.manager.signer(ACCOUNT))).toBe('NOT_LOGGED_IN');
  });

  it('a logout another tab asked for but did not finish (closed) is finished by a tab that reads it, once', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    await b.manager.restore();
    const s = await p.login(a);
    await until(() => b.manager.current(ACCOUNT) !== null, 'b sees');
    // Tab a writes its logout request and closes before carrying it out; someone holds the account's
    // section meanwhile, so b's background finish waits while b is told again and again.
    a.manager.dispose();
    const held = deferred();
    let release!: () => void;
    const holding = p.locks.forTab(9).request(`embedded-wallet-signer:account:${ACCOUNT}`, { mode: 'exclusive' }, () => new Promise<void>((r) => ((release = r), held.resolve())));
    await held.promise;
    await requestLogout(a.keyStore.meta, ACCOUNT);
    const poster = p.bus.channel();
    const before = b.lockNames.length;
    const sections = () => b.lockNames.slice(before).filter((n) => n.endsWith(`:account:${ACCOUNT}`));
    poster.postMessage({ from: 'closed-tab', account: ACCOUNT });
    await until(() => sections().length === 1, 'b asks for the section to finish the logout');
    for (let i = 0; i < 2; i++) {
      poster.postMessage({ from: 'closed-tab', account: ACCOUNT });
      await flush(); // the message and b's read of it (in-memory storage) only chain promises
    }
    expect(sections()).toHaveLength(1);
    release();
    await holding;
    await until(() => !p.service.active(s.id), 'ended by b');
    await until(() => b.manager.current(ACCOUNT) === null, 'b logged out');
    expect(loggedOut(b)).toEqual([{ accountId: ACCOUNT, reason: 'other-tab' }]);
    expect(p.service.calls.filter((c) => c.kind === 'end').map((c) => [c.id, c.key])).toEqual([[s.id, s.publicKeyHex]]);
  });

  it('a tab finishes each logout closed tabs left pending, one after another (no channel: at its re-reads)', async () => {
    const p = platform({ channel: false });
    const b = p.tab();
    await b.manager.restore();
    for (let round = 0; round < 2; round++) {
      const a = p.tab();
      const s = await p.login(a);
      a.manager.dispose();
      await requestLogout(a.keyStore.meta, ACCOUNT);
      await b.manager.restore();
      await until(() => !p.service.active(s.id), `round ${round}: ended by b`);
      await until(() => b.manager.current(ACCOUNT) === null, `round ${round}: b logged out`);
    }
  });

  it('a pending logout of an account with nothing stored: nothing to finish, no section entered, nothing written', async () => {
    const p = platform();
    const b = p.tab();
    await b.manager.restore();
    const a = p.tab();
    await a.manager.restore();
    await requestLogout(a.keyStore.meta, ACCOUNT); // asked for with nothing stored; its tab closed
    a.manager.dispose();
    const poster = p.bus.channel();
    const before = b.lockNames.length;
    poster.postMessage({ from: 'closed-tab', account: ACCOUNT });
    await flush(); // the message and b's read of it (in-memory storage) only chain promises
    expect(b.lockNames.slice(before)).toEqual([]);
    // A tab that loads with a key of that account to end (its login's tab closed before committing)
    // ends it, and writes no account state for the empty account.
    const key = await generateSessionKey();
    const made = p.service.make(ACCOUNT, key.publicKeyHex);
    await b.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: ACCOUNT, sessionId: made.id });
    const c = p.tab();
    await c.manager.restore();
    await until(() => !p.service.active(made.id), 'orphan ended');
    await until(async () => (await c.keyStore.get(key.publicKeyHex)) === undefined, "the orphan's key deleted (the finish is over)");
    expect(p.backend.map.has(`meta:account:${ACCOUNT}`)).toBe(false);
    expect(named(c, 'changed')).toEqual([]);
  });

  it('a pending end is finished when a loaded tab re-reads everything (restore, the page coming back)', async () => {
    for (const how of ['restore', 'wake'] as const) {
      const p = platform({ channel: false });
      const a = p.tab();
      const b = p.tab();
      await b.manager.restore();
      const s = await p.login(a);
      p.service.offline = true;
      await a.manager.logout(ACCOUNT);
      a.manager.dispose();
      expect(p.service.active(s.id)).toBe(true);
      p.service.offline = false;
      if (how === 'restore') await b.manager.restore();
      else b.wake?.();
      await until(() => !p.service.active(s.id), `finished at ${how}`);
      await until(async () => (await b.keyStore.get(s.publicKeyHex)) === undefined, 'key deleted');
    }
  });

  it('the page coming back re-plans even when nothing changed: a refresh point passed while timers slept acts', async () => {
    for (const fails of [false, true]) {
      const p = platform({ channel: false });
      const a = p.tab({ autoRefresh: false });
      const s = await p.login(a);
      p.timers.now += 11 * 60_000; // no timer fired
      if (fails) {
        const entries = p.backend.entries;
        p.backend.entries = async () => {
          p.backend.entries = entries;
          throw new DOMException('broken', 'UnknownError');
        };
      }
      a.wake?.();
      await until(() => named(a, 'expiring').length === 1, `expiring after wake (read fails: ${fails})`);
      expect(named(a, 'expiring')).toEqual([s]);
    }
  });

  it('a background finish that fails is tried again at the next re-read', async () => {
    const p = platform({ channel: false });
    const a = p.tab();
    const s = await p.login(a);
    p.service.offline = true;
    await a.manager.logout(ACCOUNT);
    const ends = () => p.service.calls.filter((c) => c.kind === 'end').length;
    const endsBefore = ends();
    const b = p.tab();
    await b.manager.restore();
    // The finish b's load starts asks the service (offline: it fails); b's finishes of the account
    // run one after another in its section, so the next one is the page coming back's.
    await until(() => ends() === endsBefore + 1, "the load's finish tried while offline");
    p.service.offline = false;
    const get = p.backend.get;
    // Every read of the pending ends fails: the page comes back, the finish it starts fails.
    const failed = deferred();
    p.backend.get = async (k: string) => {
      if (k.startsWith('meta:ending:')) {
        failed.resolve();
        throw new DOMException('broken', 'UnknownError');
      }
      return get(k);
    };
    b.wake?.();
    await failed.promise;
    p.backend.get = get;
    await flush(); // the failed finish unwinds (promises only)
    expect(ends()).toBe(endsBefore + 1); // it failed at the read: the service was not asked
    expect(p.service.active(s.id)).toBe(true);
    b.wake?.();
    await until(() => !p.service.active(s.id), 'finished on the next try');
  });
});
