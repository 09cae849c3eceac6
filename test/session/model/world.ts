/**
 * The world of one run of the session model test (test/session/model.test.ts, whose header lists
 * what is checked): the simulated browser (browser.ts) and the checks made as each signed request
 * leaves, when a logout resolves, after every step and after settling.
 */
import { expect } from 'vitest';
import type { SessionKey, Signer } from '../../../src/crypto/index.js';
import { signedBySession } from '../../../src/session/signed-call.js';
import type { Client } from '../../../src/transport/index.js';
import { ACCOUNTS, Browser, type Tab } from './browser.js';
import type { Coordination } from './harness.js';
import { logoutDeleteViolations } from './logout-deletes.js';
import type { Pending, ServiceSession } from './service-records.js';

export class World extends Browser {
  /** Logouts resolved: their account and the step they were called at (S5b, checked at the step's end). */
  private readonly resolvedLogouts: Array<{ account: string; calledAt: number }> = [];
  /** Logouts called: account → steps (S9: a login loses against a logout requested after it started). */
  readonly logoutCalls: Array<{ account: string; at: number; nonceBefore: string | undefined; held: string[] }> = [];
  private readonly lastGeneration = new Map<string, number>();
  private readonly lastStored = new Map<string, Set<string>>();

  constructor(coordination: Coordination, pool: readonly SessionKey[]) {
    super(coordination, pool);
    this.service.onSend = (p, key) => this.checkSend(p, key);
  }

  /**
   * S6 (I2), as each signed request leaves: a signature the user or the library's own refresh asked
   * for is made only with the key of the account's stored current session, with no logout of the
   * account pending, and (for the app's actions) no logout requested since the call started.
   */
  checkSend(p: Pending, key: string): void {
    if (p.approved === true || p.kind === 'login' || p.account === undefined || p.account === '') return;
    const map = this.tabs[p.tab]?.memory;
    const stored = this.stored(p.account, map);
    const current = stored.sessions.find((s) => s.id === stored.current);
    // (A first use after settling may sign with another credential's session: excludeCredentialId.)
    if (current?.publicKeyHex !== key && !(this.firstUsing && stored.sessions.some((s) => s.publicKeyHex === key))) this.violations.push(`S6: ${p.kind}@${p.tab} signed with a key that is not the stored current session's`);
    const logout = this.logoutRecord(p.account, map);
    if (logout !== undefined && logout.generation >= stored.generation) this.violations.push(`S6: ${p.kind}@${p.tab} signed while a logout was pending`);
    if (p.kind === 'action' && logout?.nonce !== p.startNonce) {
      this.violations.push(`S6: action@${p.tab} (started at step ${p.startedAt}) signed after a logout requested since`);
    }
  }

  /** S5, checked when a logout resolves (called at step `calledAt` in `tab`). */
  logoutResolved(account: string, calledAt: number, tab: Tab): void {
    const later = (id: string): boolean => {
      const s = this.service.sessions.get(id);
      return s !== undefined && s.origin === 'login' && s.startedAt > calledAt;
    };
    // A tab on the memory store logs out its own store (the other tabs carry it out by message: I1).
    const map = tab.memory;
    const stored = this.stored(account, map);
    // Storage refused a write: the logout's records may be held in the tab's memory (held.ts); the
    // tab then shows none of the account's sessions (later logins aside), whatever storage holds.
    const shown = tab.manager.all().filter((s) => s.accountId === account && !later(s.id));
    const held = this.failedWrite && shown.length === 0;
    if (!held) {
      for (const s of stored.sessions) if (!later(s.id)) this.violations.push(`S5: ${s.id} still stored after logout`);
      const allowedKeys = new Set([...stored.sessions.map((s) => s.publicKeyHex), ...this.ending(account, map).map((e) => e.publicKeyHex)]);
      for (const k of map ? [] : this.storedKeys(account)) if (!allowedKeys.has(k)) this.violations.push(`S5: key ${k.slice(0, 8)} left after logout`);
    }
    const pendingEnd = new Set(this.ending(account, map).map((e) => e.id));
    // The sessions of this tab's store: its own (a memory tab), else every shared tab's.
    const mine = (s: ServiceSession): boolean => (map ? s.tab === tab.id : this.tabs[s.tab]?.memory === undefined);
    for (const s of this.service.sessions.values()) {
      if (!mine(s) || s.accountId !== account || s.origin === 'elsewhere' || !this.service.active(s) || !s.delivered || s.orphaned || s.endLost || later(s.id)) continue;
      // Ended, or a pending end whose request could not be made or the app's proxy refused (I8:
      // finished later, checked at settle; held in memory when storage refused it).
      if (pendingEnd.has(s.id) || (held && s.endRefused === true)) continue;
      this.violations.push(`S5: ${s.id} (${s.origin}) still active on the service after logout`);
    }
    this.resolvedLogouts.push({ account, calledAt });
  }

  /**
   * Logouts a user asked for while a channel reached tabs on the memory store: the account, the step
   * it was called at, the memory tab and the sessions that tab held then (I1: it logs them out itself).
   */
  readonly memoryLogouts: Array<{ account: string; at: number; tab: number; held: Set<string>; from: number; postsBefore: number }> = [];

  /** A logout of `account` called in `tab`: the memory tabs a channel reaches must carry it out (I1). */
  noteLogout(account: string, tab: Tab): void {
    if (!this.coordination.channel) return;
    for (const t of this.tabs) {
      if (t === tab || !t.memory || !t.open || !t.loaded) continue;
      this.memoryLogouts.push({ account, at: this.service.step, tab: t.id, held: new Set(t.manager.all().filter((x) => x.accountId === account).map((x) => x.id)), from: tab.id, postsBefore: this.bus.userLogouts.length });
    }
  }

  /**
   * I1, after settling: a memory tab open since a logout of another tab reached it holds none of the
   * account's sessions it held or was logging in then, and the service holds none of them (but those
   * no one could end: an answer lost, a request dropped).
   */
  private checkMemoryTabs(): void {
    for (const t of this.tabs.filter((x) => x.memory && x.open)) {
      for (const account of ACCOUNTS) if (this.ending(account, t.memory).length > 0) this.violations.push(`I8: pending end(s) of ${account} left in memory tab ${t.id}`);
      for (const s of this.service.sessions.values()) {
        if (s.tab !== t.id || s.origin === 'elsewhere') continue;
        if (this.service.active(s) && s.delivered && !s.endLost && !s.orphaned && !this.stored(s.accountId, t.memory).sessions.some((x) => x.id === s.id)) this.violations.push(`no leak: ${s.id} of memory tab ${t.id} active but not held`);
      }
    }
    for (const l of this.memoryLogouts) {
      const t = this.tabs[l.tab]!;
      // Posted by the logout's tab: one closed before it loaded (seed 309), or before its nonce was
      // written, announced nothing and ended nothing; no tab can carry it out (I1: outside).
      const posted = this.bus.userLogouts.slice(l.postsBefore).some((p) => p.tab === l.from && p.account === l.account);
      if (!t.open || !posted) continue;
      const held = new Set(this.stored(l.account, t.memory).sessions.map((x) => x.id));
      for (const s of this.service.sessions.values()) {
        if (s.tab !== l.tab || s.accountId !== l.account) continue;
        const before = l.held.has(s.id) || (s.origin === 'login' && s.startedAt >= 0 && s.startedAt < l.at) || (s.refreshedFrom !== undefined && l.held.has(s.refreshedFrom));
        if (!before) continue;
        if (held.has(s.id)) this.violations.push(`I1: memory tab ${l.tab} still holds ${s.id} after a logout of ${l.account} at step ${l.at} in another tab`);
        else if (this.service.active(s) && s.delivered && !s.endLost && !s.orphaned) this.violations.push(`I1: ${s.id} of memory tab ${l.tab} still active after a logout at step ${l.at} in another tab`);
      }
    }
  }

  /**
   * I1/I6 (held.ts): after a storage-full logout whose tab closed holding its records, storage may
   * still name sessions that logout ended (with their keys: held.ts deletes a key only once nothing
   * names it). Their first use drops them as revoked: a signed call of the app in a loaded tab, its
   * leg refused by the service, must leave none of them stored.
   */
  private firstUsing = false;
  private async firstUses(): Promise<void> {
    this.firstUsing = true;
    // The faults still scheduled (chunk downloads, storage writes) are over by now: a use they fail is
    // no first use (seed 306: one chunk failure and two refused writes left took all four uses).
    this.chunkFailures = 0;
    this.backend.failWrites = 0;
    for (const account of ACCOUNTS) {
      for (let n = 0; n < 4; n++) {
        const stored = this.stored(account);
        const ended = stored.sessions.filter((s) => this.service.sessions.get(s.id)?.ended?.by === 'browser');
        const tab = [...this.tabs].reverse().find((t) => t.open && t.loaded);
        if (ended.length === 0 || !tab) break;
        // Not the current one: used by a call that excludes the current session's credential.
        const current = stored.sessions.find((s) => s.id === stored.current) as { credentialId?: string } | undefined;
        const exclude = ended.some((s) => s.id === stored.current) ? undefined : current?.credentialId;
        const client = {
          signed: (options: { getSigner: () => Promise<Signer>; signingSignal?: AbortSignal }) =>
            this.service.action(tab.id, account, () => options.getSigner(), options.signingSignal ?? new AbortController().signal, this.service.step, this.logoutRecord(account)?.nonce),
        } as unknown as Client;
        void this.track(tab, 'firstUse', signedBySession(client, tab.manager, { accountId: account, ...(exclude !== undefined && { excludeCredentialId: exclude }) }, { method: 'PATCH', path: '/internal-accounts/x', body: {}, purpose: 'update' }));
        await this.flush();
        await this.deliverAll();
        await this.flush();
      }
    }
    this.firstUsing = false;
  }

  checkStep(): void {
    if (this.storageFullThisStep) {
      this.storageFullThisStep = false;
      this.backend.failWrites = 0;
    }
    for (const account of ACCOUNTS) {
      const stored = this.stored(account);
      const last = this.lastGeneration.get(account) ?? 0;
      if (stored.generation < last) this.violations.push(`S1: ${account} generation ${last} → ${stored.generation}`);
      this.lastGeneration.set(account, stored.generation);
      const keys = [...new Set([...stored.sessions.map((s) => s.publicKeyHex), ...this.ending(account).map((e) => e.publicKeyHex)])].sort();
      // Besides: keys stored for sessions the service holds that no commit has named yet (a commit
      // waiting for the section, or a tab closed before it: I8 ends those), but never once settled.
      const disallowed = (k: string): boolean => !keys.includes(k) && (this.settled || !this.uncommitted(k));
      if (this.backend.failWrites === 0 && !this.failedWrite) expect(this.storedKeys(account).filter((k) => keys.includes(k) || disallowed(k)), 'S2: stored keys are the stored sessions’ and pending ends’ keys').toEqual(keys);
      else for (const k of keys) if (!this.storedKeys(account).includes(k) && stored.sessions.some((s) => s.publicKeyHex === k)) this.violations.push(`S2: ${account} session without its key`);
      // S10: a pending end never names a session still stored (ending it would log the user out). But
      // for a storage-full logout without a channel: a tab that did not hear of it commits over what
      // it held, and its held ends reach storage later; that logout's end wins (I1), the session is
      // dropped as revoked at its first use (settle's first uses; seed 511).
      const heldOver = this.storageFullTabs.size > 0 && !this.coordination.channel;
      const storedIds = new Set(stored.sessions.map((s) => s.id));
      if (!heldOver) for (const e of this.ending(account)) if (storedIds.has(e.id)) this.violations.push(`S10: pending end ${e.id} is a stored session of ${account}`);
      // S11 (I8): a pending end leaves the list only once the service no longer holds its session
      // (ended, gone, expired) or it is stored again (a commit that listed it did not happen); one
      // whose key was never stored (its write refused) cannot be ended by anyone.
      const keysNow = new Set(this.storedKeys(account));
      for (const { id, keyed } of this.lastEnding.get(account) ?? []) {
        const s = this.service.sessions.get(id);
        if (keyed && !this.ending(account).some((e) => e.id === id) && s !== undefined && this.service.active(s) && !storedIds.has(id)) {
          this.violations.push(`S11: pending end ${id} dropped while the service holds it`);
        }
      }
      this.lastEnding.set(account, this.ending(account).map((e) => ({ id: e.id, keyed: keysNow.has(e.publicKeyHex) })));
      if (this.coordination.channel) {
        for (const tab of this.tabs.filter((t) => t.open && t.loaded && !t.memory)) {
          // A logout whose records storage refused: the tab shows the account logged out (held.ts).
          if (this.failedWrite && tab.manager.all().every((s) => s.accountId !== account)) continue;
          expect(tab.manager.current(account)?.id ?? null, `S3: tab ${tab.id} current`).toBe(stored.current);
          expect(tab.manager.all().filter((s) => s.accountId === account).map((s) => s.id).sort(), `S3: tab ${tab.id} sessions`).toEqual(stored.sessions.map((s) => s.id).sort());
        }
      }
      // S8 (I6): a session dropped as expired is one the service no longer holds.
      const before = this.lastStored.get(account) ?? new Set();
      const now = new Set(stored.sessions.map((s) => s.id));
      if (stored.change === 'expired') {
        for (const id of before) {
          const s = this.service.sessions.get(id);
          if (!now.has(id) && s !== undefined && this.service.active(s)) this.violations.push(`S8: ${id} dropped as expired while the service holds it`);
        }
      }
      this.lastStored.set(account, now);
    }
    // S5b (I2): once a logout was requested (its nonce stored), by the end of that step no prompt of a
    // call of that account started before it is still open in any tab.
    if (this.coordination.channel) {
      const requested = this.logoutCalls.filter((l) => this.logoutRecord(l.account)?.nonce !== l.nonceBefore).map((l) => ({ account: l.account, calledAt: l.at }));
      for (const { account, calledAt } of [...this.resolvedLogouts, ...requested]) {
        for (const p of this.service.pending) {
          if (p.stage === 'prompt' && p.account === account && p.startedAt !== undefined && p.startedAt <= calledAt && this.tabs[p.tab]?.open) {
            this.violations.push(`S5b: ${p.kind}@${p.tab} still at its prompt after a logout of ${account} resolved`);
          }
        }
      }
    }
    // S9: a login loses against a logout of its account requested after it started (one that went through).
    // Called and its nonce written (requested) after the login started and before it resolved (a
    // logout called in a tab still loading writes its nonce later: the login may commit before it).
    for (const l of this.logins) {
      // A memory tab without a channel hears of no logout: outside I1.
      if (this.tabs[l.tab]?.memory && !this.coordination.channel) continue;
      // A nonce held (its write refused) before the login started, written while it was in flight, is a
      // logout requested before it (seed 100: a held logout of the login's own tab flushed as it committed).
      const requested = this.nonceWrites.some((n) => n.account === l.account && n.seq > l.startSeq && n.seq < l.resolvedSeq && n.triedSeq > l.startSeq);
      if (requested && this.logoutsDone.some((o) => o.account === l.account && o.at > l.startedAt && o.at < l.resolvedAt)) this.violations.push(`S9: login@${l.tab} (step ${l.startedAt}) won over a later logout`);
    }
    this.violations.push(...logoutDeleteViolations(this.service.endsSent, this.logoutRuns, this.service.refusedWrites, (tab) => (this.tabs[tab]?.memory ? `memory ${tab}` : 'shared')));
    expect(this.service.doubleRefreshes, 'S4').toEqual([]);
    expect(this.violations.join('; '), 'S1/S5/S6/S7/S8/S9/S14').toBe('');
  }

  /** Logins that resolved with a session, and logouts that resolved (S9). */
  readonly logins: Array<{ account: string; startedAt: number; resolvedAt: number; tab: number; startSeq: number; resolvedSeq: number }> = [];
  readonly logoutsDone: Array<{ account: string; at: number }> = [];

  /** Set once settling is done: S2 then allows no key beyond the stored sessions' and pending ends'. */
  settled = false;

  /** A stored key that names a session the service made and did not end (its commit not made yet, or never), or one a closed tab left. */
  uncommitted(publicKeyHex: string): boolean {
    const id = (this.backend.map.get(publicKeyHex) as { sessionId?: string } | undefined)?.sessionId;
    const s = id === undefined ? undefined : this.service.sessions.get(id);
    // Or ended by this browser, its key left by the tab that made it and closed before deleting it
    // (the undo of its refresh arrived, the tab did not live on): the next load clears it (I8).
    return s !== undefined && (s.ended === undefined || (s.ended.by === 'browser' && this.tabs[s.tab]?.open === false));
  }

  /** Pending ends of each account at the last check (S11). */
  private readonly lastEnding = new Map<string, Array<{ id: string; keyed: boolean }>>();

  async settle(): Promise<void> {
    this.releaseSections();
    await this.flush();
    // A tab of the origin loads (I8: it ends the sessions of keys a closed tab stored but never committed).
    if (this.tabs.some((t) => t.open)) this.openTab();
    await this.flush();
    const answerAll = (): Promise<void> => this.deliverAll();
    for (let round = 0; round < 3; round++) {
      await answerAll();
      const open = new Set(this.tabs.filter((t) => t.open).map((t) => t.id));
      // Leases a closed tab left lapse (I7), the watch of a tab without a channel ticks.
      if (this.coordination.locks === 'lease' || this.ops.some((o) => open.has(o.tab) && !o.settled)) this.clock.advance(6000);
      // Every tab comes back (visible, online): pending logouts and pending ends are finished (I8).
      for (const wake of this.wakes.values()) wake();
      await this.flush();
      // After a failed storage write the load above may have met it (the ends of keys a closed tab
      // left not recorded, kept for the next load): the next tab that loads ends them (I8).
      if (round < 2 && this.failedWrite && this.tabs.some((t) => t.open)) {
        this.openTab();
        await this.flush();
      }
    }
    await answerAll();
    // Its tab closed, or a tab that did not hear of it (no channel) committed over what it held.
    if (this.heldLost || (this.storageFullTabs.size > 0 && !this.coordination.channel)) await this.firstUses();
    expect(this.service.pending, 'settled: no request left unanswered').toEqual([]);
    // A tab loaded while settling: no key is left that no state or pending end names (I8).
    this.settled = this.tabs.some((t) => t.open);
    this.checkStep();
    const open = new Set(this.tabs.filter((t) => t.open).map((t) => t.id));
    expect(this.ops.filter((o) => open.has(o.tab) && !o.settled).map((o) => `${o.what}@${o.tab}`), 'settled: every operation of an open tab').toEqual([]);
    if (open.size === 0) return;
    for (const account of ACCOUNTS) {
      const stored = new Set(this.stored(account).sessions.map((s) => s.id));
      // I8: nothing a logout asked for is left undone once a tab is back.
      const logout = this.logoutRecord(account);
      if (logout !== undefined && logout.generation >= this.stored(account).generation && stored.size > 0) this.violations.push(`I8: a logout of ${account} is still pending after settling`);
      if (this.ending(account).length > 0) this.violations.push(`I8: ${this.ending(account).length} pending end(s) of ${account} never finished`);
      // I1/I8: a session stored when a logout of the account was called, once that logout (or a later
      // one) wrote its nonce, is no longer stored: ended, or a pending end finished since. (Judged by
      // the sessions, not the generation: a later commit must not carry a pending logout's sessions over.)
      const nonce = this.logoutRecord(account)?.nonce;
      for (const call of this.logoutCalls) {
        if (call.account !== account || nonce === call.nonceBefore) continue;
        for (const id of call.held) if (stored.has(id)) this.violations.push(`I8: ${id}, held when logout(${account}) was called at step ${call.at}, still stored after settling`);
      }
      for (const s of this.service.sessions.values()) {
        if (s.accountId !== account || this.tabs[s.tab]?.memory) continue;
        // An end the app's proxy refused for a session whose key storage refused: no one can end it.
        const unendable = s.endRefused === true && !this.storedKeys(account).includes(s.publicKeyHex);
        if (s.origin !== 'elsewhere' && this.service.active(s) && s.delivered && !s.orphaned && !s.endLost && !unendable) expect(stored.has(s.id), `no leak: ${s.id} (${s.origin}) active but not stored`).toBe(true);
        // A tab on the memory store is a wallet of its own (INVARIANTS.md I1): its signOutOtherDevices()
        // ends the shared tabs' sessions as another device's (CI, seed 409707934); the shared tabs learn
        // it at their next use (I6), as of any device's.
        const byMemoryTab = s.ended?.tab !== undefined && this.tabs[s.ended.tab]?.memory !== undefined;
        if (stored.has(s.id) && !byMemoryTab) expect(s.ended?.by, `${s.id} stored but ended by this browser`).not.toBe('browser');
      }
    }
    this.checkMemoryTabs();
    expect(this.violations.join('; '), 'settled').toBe('');
  }
}
