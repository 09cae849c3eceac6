// Model-based test of the session layer: 3–4 simulated tabs (separate managers over one shared
// key/record backend, one shared lock manager, one shared BroadcastChannel, one clock) and a
// scripted service whose answers the test releases (delivered, lost after processing, dropped, a
// prompt refused). fast-check draws random interleavings of login, refresh, logout, sign out other
// devices, signing, expiry (the clock), other devices, revocation and tab close/open; the invariants
// below are checked after every step and after everything settled.
//
// Invariants (after every step):
//   S1 the stored generation of the account never goes down;
//   S2 the session keys stored are exactly the keys of the stored sessions (no orphan, no missing);
//   S3 every open tab that finished loading sees the stored state (current session and sessions);
//   S4 no session is refreshed twice: a refresh is sent only when no refresh of that session is in
//      flight or was answered (one refresh request per expiry window, across tabs);
//   S5 logout wins: when logout() resolves, nothing stored, no key, and no active service session
//      made by this browser is left, except sessions of logins started after logout() was called
//      and sessions the browser could not end (the answer that made it was lost, or the request to
//      end it never arrived: dropped, refused by onBeforeSign, its tab closed).
// After settling (every pending request answered, every message delivered):
//   S1–S4, and every operation of an open tab has settled (nothing waits forever on a lock or a
//   prompt); every active service session made by this browser whose answer arrived is stored (no
//   leak; a refresh ends the session it replaced), unless a request to end it never arrived; no
//   stored session was ended by this browser.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { createKeyStore } from '../../src/keys/index.js';
import { createSessionManager, type ManagedSessions } from '../../src/session/index.js';
import { createClient } from '../../src/transport/index.js';
import { Bus, Clock, Locks, MINUTE, ScriptedService, countedKeyStore, keyPool, openBackend, tabHost, type Answer } from './model/harness.js';

const ACCOUNT = 'InternalAccount:model';
const RUNS = Number(process.env.SESSION_MODEL_RUNS ?? 1000);

let pool: SessionKey[] = [];
beforeAll(async () => {
  pool = await keyPool(400);
  // The session changes (login commit, refresh, sign out other devices) are code loaded on first
  // use, before an operation enters the account's queue and lock: loading it is a module read that
  // `flush()` cannot see. Load it once here, through the manager (a refresh with no session), so
  // that the runs below step only through what the model scripts. A slow load only makes an
  // operation enter the section later, as if it were called later: an interleaving drawn anyway.
  const warm = createSessionManager({ client: createClient({ baseUrl: 'http://127.0.0.1:9' }), keyStore: createKeyStore({ backend: openBackend() }), crossTab: false });
  await warm.refresh('InternalAccount:warm-up').catch(() => undefined);
  warm.dispose();
});

interface Tab {
  id: number;
  manager: ManagedSessions;
  open: boolean;
  loaded: boolean;
}

interface Op {
  tab: number;
  what: string;
  settled: boolean;
}

class World {
  readonly clock = new Clock();
  readonly locks = new Locks();
  readonly bus = new Bus();
  readonly backend = openBackend();
  readonly busy = { n: 0 };
  readonly service = new ScriptedService(this.clock);
  readonly tabs: Tab[] = [];
  readonly ops: Op[] = [];
  readonly violations: string[] = [];
  private keyIndex = 0;
  private lastGeneration = 0;
  private readonly client = createClient({ baseUrl: 'http://127.0.0.1:9' });

  nextKey = (): SessionKey => {
    const key = pool[this.keyIndex++];
    if (!key) throw new Error('key pool exhausted');
    return key;
  };

  openTab(): void {
    const id = this.tabs.length;
    const manager = createSessionManager({
      client: this.client,
      keyStore: countedKeyStore(this.backend, this.busy),
      namespace: 'model',
      now: () => this.clock.now,
      host: tabHost(id, this.clock, this.locks, this.bus, this.nextKey),
      service: this.service.forTab(id),
    });
    const tab: Tab = { id, manager, open: true, loaded: false };
    this.tabs.push(tab);
    this.track(tab, 'restore', manager.restore().then(() => void (tab.loaded = true)));
  }

  track(tab: Tab, what: string, promise: Promise<unknown>): Promise<unknown> {
    const op: Op = { tab: tab.id, what, settled: false };
    this.ops.push(op);
    return promise.then(
      () => void (op.settled = true),
      () => void (op.settled = true),
    );
  }

  closeTab(tab: Tab, arrived: boolean): void {
    tab.open = false;
    tab.manager.dispose();
    this.locks.close(tab.id);
    this.service.closeTab(tab.id, arrived, new Set(this.stored().sessions.map((s) => s.id)));
  }

  /** What storage holds right now (read from the backend's Map, synchronously). */
  stored(): { generation: number; current: string | null; sessions: Array<{ id: string; publicKeyHex: string }> } {
    const value = this.backend.map.get(`meta:account:${ACCOUNT}`) as
      | { generation: number; current: string | null; sessions: Array<{ id: string; publicKeyHex: string }> }
      | undefined;
    return value ?? { generation: 0, current: null, sessions: [] };
  }

  /** Sessions a logout or refresh left to end (keys kept for that alone). */
  ending(): Array<{ id: string; publicKeyHex: string }> {
    return (this.backend.map.get(`meta:ending:${ACCOUNT}`) as Array<{ id: string; publicKeyHex: string }> | undefined) ?? [];
  }

  storedKeys(): string[] {
    return [...this.backend.map.entries()].filter(([, v]) => (v as { purpose?: string } | undefined)?.purpose === 'session').map(([k]) => k).sort();
  }

  /** Lets every microtask, message, storage write and key check run until the world waits on the test. */
  async flush(): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      const before = this.bus.sent + this.service.pending.length + this.busy.n;
      await new Promise((resolve) => setImmediate(resolve));
      if (this.busy.n > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      quiet = this.busy.n === 0 && before === this.bus.sent + this.service.pending.length + this.busy.n ? quiet + 1 : 0;
    }
  }

  /** S5, checked when a logout resolves (called at step `calledAt`). */
  logoutResolved(calledAt: number): void {
    const later = (id: string): boolean => {
      const s = this.service.sessions.get(id);
      return s !== undefined && s.origin === 'login' && s.startedAt > calledAt;
    };
    const stored = this.stored();
    for (const s of stored.sessions) if (!later(s.id)) this.violations.push(`S5: ${s.id} still stored after logout`);
    const allowedKeys = new Set([...stored.sessions.map((s) => s.publicKeyHex), ...this.ending().map((e) => e.publicKeyHex)]);
    for (const k of this.storedKeys()) if (!allowedKeys.has(k)) this.violations.push(`S5: key ${k.slice(0, 8)} left after logout`);
    for (const s of this.service.sessions.values()) {
      if (s.origin === 'elsewhere' || !this.service.active(s) || !s.delivered || s.orphaned || s.endLost || later(s.id)) continue;
      this.violations.push(`S5: ${s.id} (${s.origin}) still active on the service after logout`);
    }
  }

  checkStep(): void {
    const stored = this.stored();
    if (stored.generation < this.lastGeneration) this.violations.push(`S1: generation ${this.lastGeneration} → ${stored.generation}`);
    this.lastGeneration = stored.generation;
    const keys = [...new Set([...stored.sessions.map((s) => s.publicKeyHex), ...this.ending().map((e) => e.publicKeyHex)])].sort();
    expect(this.storedKeys(), 'S2: stored keys are the stored sessions’ and pending ends’ keys').toEqual(keys);
    for (const tab of this.tabs.filter((t) => t.open && t.loaded)) {
      expect(tab.manager.current(ACCOUNT)?.id ?? null, `S3: tab ${tab.id} current`).toBe(stored.current);
      expect(tab.manager.all().map((s) => s.id).sort(), `S3: tab ${tab.id} sessions`).toEqual(stored.sessions.map((s) => s.id).sort());
    }
    expect(this.service.doubleRefreshes, 'S4').toEqual([]);
    expect(this.violations.join('; '), 'S1/S5').toBe('');
  }

  async settle(): Promise<void> {
    await this.flush();
    for (let i = 0; i < 500 && this.service.pending.length > 0; i++) {
      this.service.answer(0, 'deliver');
      await this.flush();
    }
    expect(this.service.pending, 'settled: no request left unanswered').toEqual([]);
    this.checkStep();
    const open = new Set(this.tabs.filter((t) => t.open).map((t) => t.id));
    expect(this.ops.filter((o) => open.has(o.tab) && !o.settled).map((o) => `${o.what}@${o.tab}`), 'settled: every operation of an open tab').toEqual([]);
    const stored = new Set(this.stored().sessions.map((s) => s.id));
    for (const s of this.service.sessions.values()) {
      if (s.origin !== 'elsewhere' && this.service.active(s) && s.delivered && !s.orphaned && !s.endLost) expect(stored.has(s.id), `no leak: ${s.id} (${s.origin}) active but not stored`).toBe(true);
      if (stored.has(s.id)) expect(s.ended?.by, `${s.id} stored but ended by this browser`).not.toBe('browser');
    }
  }
}

type Command = fc.AsyncCommand<object, World>;

/** A command on one open tab (picked by index among the open ones). */
function onTab(name: string, pick: number, act: (world: World, tab: Tab) => void): Command {
  return {
    check: () => true,
    async run(_m, world) {
      const open = world.tabs.filter((t) => t.open);
      const tab = open[pick % Math.max(open.length, 1)];
      if (tab) act(world, tab);
      world.service.step++;
      await world.flush();
      world.checkStep();
    },
    toString: () => `${name}(${pick})`,
  };
}

function step(name: string, act: (world: World) => void): Command {
  return {
    check: () => true,
    async run(_m, world) {
      act(world);
      world.service.step++;
      await world.flush();
      world.checkStep();
    },
    toString: () => name,
  };
}

const login = (world: World, tab: Tab): void => {
  const key = world.nextKey();
  // As the login flows do: the verify request and the commit under the shared login lock.
  const startedAt = world.service.step;
  const flow = tab.manager.loggingIn(ACCOUNT, async (ticket) => {
    if (ticket.signal.aborted) throw ticket.signal.reason;
    const answer = await world.service.login(tab.id, ACCOUNT, key, startedAt);
    return tab.manager.establish(answer, { accountId: ACCOUNT, credentialId: 'AuthMethod:1', credentialType: 'EMAIL_OTP', key, ticket });
  });
  void world.track(tab, 'login', flow);
};

const commands = [
  fc.constant(step('openTab', (w) => w.tabs.filter((t) => t.open).length < 4 && w.openTab())),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, arrived]) => onTab(`closeTab[arrived=${arrived}]`, i, (w, t) => w.tabs.filter((x) => x.open).length > 1 && w.closeTab(t, arrived))),
  fc.nat().map((i) => onTab('login', i, login)),
  fc.nat().map((i) => onTab('refresh', i, (w, t) => void w.track(t, 'refresh', t.manager.refresh(ACCOUNT)))),
  fc.nat().map((i) =>
    onTab('logout', i, (w, t) => {
      const calledAt = w.service.step;
      void w.track(t, 'logout', t.manager.logout(ACCOUNT).then(() => w.logoutResolved(calledAt)));
    }),
  ),
  fc.nat().map((i) => onTab('signOutOtherDevices', i, (w, t) => void w.track(t, 'signOut', t.manager.signOutOtherDevices(ACCOUNT)))),
  fc.nat().map((i) => onTab('sign', i, (w, t) => void w.track(t, 'sign', t.manager.resolve(ACCOUNT)))),
  fc.constantFrom(30_000, 4 * MINUTE, 10.5 * MINUTE, 16 * MINUTE).map((ms) => step(`advance(${ms / 1000}s)`, (w) => w.clock.advance(ms))),
  fc.constant(step('elsewhereLogin', (w) => w.service.elsewhere(ACCOUNT, w.nextKey().publicKeyHex))),
  fc.nat().map((i) =>
    step(`revokeMine(${i})`, (w) => {
      const mine = w.stored().sessions;
      const target = mine.length > 0 ? w.service.sessions.get(mine[i % mine.length]!.id) : undefined;
      if (target) w.service.endElsewhere(target);
    }),
  ),
  fc
    .tuple(fc.nat(), fc.constantFrom<Answer>('deliver', 'deliver', 'deliver', 'lose', 'drop', 'refuse'))
    .map(([i, how]) => step(`answer(${i}, ${how})`, (w) => w.service.answer(i, how))),
];

describe('session model: tabs, a scripted service, random interleavings', () => {
  it(`holds the invariants over ${RUNS} runs`, async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
        const world = new World();
        for (let i = 0; i < 3; i++) world.openTab();
        await world.flush();
        login(world, world.tabs[0]!);
        await world.flush();
        await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
        await world.settle();
        for (const t of world.tabs) if (t.open) t.manager.dispose();
      }),
      { numRuns: RUNS, ...(process.env.SESSION_MODEL_SEED !== undefined && { seed: Number(process.env.SESSION_MODEL_SEED) }) },
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`session model: ${RUNS} runs in ${seconds.toFixed(1)} s`);
  }, 600_000);
});
