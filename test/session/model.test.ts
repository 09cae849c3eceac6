// Model-based test of the session layer (src/session/INVARIANTS.md; the checks are in model/world.ts
// and model/logout-deletes.ts, the simulated tabs in model/browser.ts, their surroundings in
// model/harness.ts, the scripted service in model/scripted-service.ts and its records in
// service-records.ts): 3–4 simulated tabs (separate managers over one shared key/record backend, one
// clock with timers) and a scripted service whose answers the test releases (delivered, lost after processing, dropped; a
// prompt approved, declined or timed out). Each run draws how the browser coordinates tabs (Web Locks or localStorage leases,
// with or without a channel: I7), then fast-check draws random interleavings over two accounts and
// two credentials of: login, refresh, logout, sign out other devices, resolving a signer, a signed
// action of the app with its prompt, the page coming back, time passing, the local clock set ±1 h
// or 3 h fast (and a tab loaded 3 h fast or slow while the service is unreachable), storage writes
// failing (also every write during a logout, in every coordination), a tab on the memory store (its
// IndexedDB could not be opened: a wallet of its own, told of logouts by message), the app's proxy refusing a request (401 LOGIN_REQUIRED, 403), the session-changes chunk (changes.ts, loaded on first use by each tab)
// failing to download, the account's section held busy for a while, another device's login,
// revocation, tabs opened and closed at any step (a tab with an operation still running, a logout
// first, and a tab closed right after its logout was called, are drawn often). Most runs start with the
// first login committed, the others with its verify on the wire; answers, logins, logouts and the
// first account are drawn more often than the rest, so that random runs alone (SESSION_MODEL_NO_EXAMPLES=1
// leaves out the hand-written example runs) reach a logout whose tab closes while it waits.
//
// Checked after every step:
//   S1 an account's stored generation never goes down;
//   S2 the stored session keys are exactly the stored sessions' and pending ends' keys, but for keys
//      of sessions the service made whose commit has not come (waiting for the section, or its tab
//      closed: I8), none once settled (after a failed write: no stored session without its key);
//   S3 (with a channel) every open tab that finished loading shows the stored state;
//   S4 no session is refreshed twice (one refresh per account at a time, across tabs);
//   S5 (I1) when logout() resolves: nothing of the account stored but pending ends, and no session
//      this browser made active on the service, except later logins and what could not be ended
//      (an answer lost, a request dropped, a tab closed); S5b (with a channel) no prompt of a call
//      started before it is still open at the end of that step (I2);
//   S6 (I2) as each signed request leaves: it is signed with the key of the stored current session,
//      no logout is pending, and (the app's actions) no logout was requested since the call started;
//   S7 every call that fails, fails with a WalletError;
//   S8 (I6) a session dropped as expired is one the service no longer holds;
//   S9 a login loses against a logout requested while it was in flight;
//   S12 (I3) an action (signed-call.ts's signedBySession, as the wallet's actions) whose signed leg
//      was refused after refreshes of this browser replaced its signer (refreshesDuringLeg: one or
//      two refreshes committed while the leg is on the wire) starts over, or after MAX_RESTARTS
//      restarts fails SESSION_REPLACED_DURING_CALL, and only then;
//   I5 a login whose commit code could not be downloaded failed before its verify was sent;
//   S11 (I8) a pending end leaves the list only once the service no longer holds its session (or it
//      is stored again): not on a refusal of the app's proxy, not on a local clock hours fast;
//   S13 (I1) a logout never fails because storage refuses writes (issue 31);
//   S14 (I1) a logout() call sends at most one DELETE of each session, and none of a session whose
//      DELETE was answered ended or not found (unless storage has refused a write): model/logout-deletes.ts;
//   I1 (memory tabs, after settling) a memory tab a logout of another tab reached by channel holds
//      none of the sessions it held or was logging in then, nor does the service.
// After settling (every request answered, every tab woken, leases lapsed): the same, every operation
// of an open tab has settled, no logout is left pending and no pending end unfinished (I8), every
// active session this browser made is stored (no leak), and no stored session was ended by it.
//
// Mutations this test must kill (issue 22, point 8; see test/session/MUTATION.md): the nonce check
// of commitState removed, a pending logout never finished, cross-tab cancellation dropped; and (M5,
// M7, M8) a login that loads its commit's code after verify, the logout's or a load's ending of
// keys a closed tab stored for sessions it never committed dropped. Random runs alone kill each of
// them within 1,000 runs on the seeds tried (MUTATION.md, "Random runs alone"); the example runs too.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { SessionKey } from '../../src/crypto/index.js';
import { changesChunk } from '../../src/session/manager.js';
import type { Signer } from '../../src/crypto/index.js';
import { isWalletError } from '../../src/errors.js';
import { MAX_RESTARTS, signedBySession } from '../../src/session/signed-call.js';
import type { Client } from '../../src/transport/index.js';
import { MINUTE, keyPool, type Coordination } from './model/harness.js';
import type { Answer } from './model/service-records.js';
import { ACCOUNTS, chunkFailuresMet, isChunkFailure, type Tab } from './model/browser.js';
import { World } from './model/world.js';

const HOUR = 60 * MINUTE;
const RUNS = Number(process.env.SESSION_MODEL_RUNS ?? 1000);
/**
 * `npm test` runs the model with a fixed seed, so a run on any clone is the same run: a new seed
 * found a new case in about one CI in two (stop 36, CI3 of 2026-11-28), and a suite that fails at
 * random is a bug of its own. New cases are looked for on purpose: `npm run test:model:explore`
 * (a random seed each run; a failure prints its seed and path, SESSION_MODEL_SEED/PATH replay it, and
 * the case becomes an example below once understood). The cases found and not yet understood are
 * listed in test/session/MODEL-FINDINGS.md.
 */
const SEED = process.env.SESSION_MODEL_SEED ?? (process.env.SESSION_MODEL_EXPLORE === '1' ? undefined : '1');

let pool: SessionKey[] = [];
const download = changesChunk.load;
beforeAll(async () => {
  pool = await keyPool(400);
});
afterAll(() => {
  changesChunk.load = download;
});

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

const login = (world: World, tab: Tab, account: string, credential: string): void => {
  const key = world.nextKey();
  // As the login flows do: the verify request and the commit under the shared login lock.
  const startedAt = world.service.step;
  const startSeq = ++world.seq;
  let verifySent = false;
  const flow = tab.manager.loggingIn(account, async (ticket) => {
    if (ticket.signal.aborted) throw ticket.signal.reason;
    verifySent = true;
    const answer = await world.service.login(tab.id, account, key, startedAt);
    return tab.manager.establish(answer, { accountId: account, credentialId: credential, credentialType: 'EMAIL_OTP', key, ticket });
  });
  // I5: the code the commit needs is loaded before verify is sent; a failed download fails the
  // login with no verify sent (so no session made on the service).
  void world.track(tab, 'login', flow.catch((error: unknown) => {
    if (isChunkFailure(error) && verifySent) world.violations.push(`I5: login@${tab.id} (step ${startedAt}) sent its verify, then could not load its commit's code`);
    throw error;
  }), (ok) => {
    if (ok) world.logins.push({ account, startedAt, resolvedAt: world.service.step, tab: tab.id, startSeq, resolvedSeq: ++world.seq });
  });
};

/** What each action of the app did: its signed legs sent, and how it ended (its error code). */
interface ActionRecord {
  tab: number;
  account: string;
  startedAt: number;
  legs: number;
  error?: string;
}
const actions = new WeakMap<World, ActionRecord[]>();
const actionsOf = (world: World): ActionRecord[] => actions.get(world) ?? (actions.set(world, []), actions.get(world)!);

/**
 * A signed action of the app, through signedBySession (signed-call.ts) as the wallet's actions are:
 * bound to the logout nonce, signer resolved after the prompt, started over when a refresh of this
 * browser replaced the session that signed a refused leg (I3). Each leg is one request of the
 * scripted service (a prompt, then the wire).
 */
const action = (world: World, tab: Tab, account: string): void => {
  const startedAt = world.service.step;
  // The logout nonce the call starts under, as the tab reads it (a logout's request storage refused
  // is held in that tab's memory and reaches storage later: held.ts), else as storage holds it.
  const stored = world.logoutRecord(account)?.nonce;
  const seen = tab.manager.signingTicket(account).then((t) => (t.done(), t.logoutNonce ?? undefined), () => stored);
  const record: ActionRecord = { tab: tab.id, account, startedAt, legs: 0 };
  actionsOf(world).push(record);
  const client = {
    signed: (options: { getSigner: () => Promise<Signer>; signingSignal?: AbortSignal }) => {
      record.legs++;
      return seen.then((startNonce) => world.service.action(tab.id, account, () => options.getSigner(), options.signingSignal ?? new AbortController().signal, startedAt, startNonce));
    },
  } as unknown as Client;
  const run = signedBySession(client, tab.manager, { accountId: account }, { method: 'PATCH', path: '/internal-accounts/x', body: {}, purpose: 'update' }).catch((error: unknown) => {
    record.error = isWalletError(error) ? error.code : String(error);
    // S12 (I3): SESSION_REPLACED_DURING_CALL only once MAX_RESTARTS + 1 legs were refused.
    if (record.error === 'SESSION_REPLACED_DURING_CALL' && record.legs !== MAX_RESTARTS + 1) world.violations.push(`S12: action@${tab.id} failed SESSION_REPLACED_DURING_CALL after ${record.legs} legs`);
    throw error;
  });
  void world.track(tab, 'action', run);
};

/**
 * Several refreshes of this browser while an action's signed leg is on the wire (I3): `n` refreshes
 * of the account, each approved and answered in a tab (committed unless something holds the
 * section), then the leg is answered. When the refreshes committed and the leg was refused, the
 * call must start over (a new prompt), or, after MAX_RESTARTS restarts, fail
 * SESSION_REPLACED_DURING_CALL: never WALLET_SIGNATURE_INVALID or SESSION_REVOKED (S12).
 */
const refreshesDuringLegCmd = (i: number, a: string, n: number): Command => ({
  check: () => true,
  async run(_m, world) {
    const leg = world.service.pending.find((p) => p.kind === 'action' && p.account === a && p.stage === 'wire');
    const record = leg && [...actionsOf(world)].reverse().find((r) => r.tab === leg.tab && r.account === a && r.error === undefined);
    if (!leg || !record) return;
    const signedBy = leg.signedBy;
    const legsBefore = record.legs;
    for (let k = 0; k < n; k++) {
      await refreshAnsweredCmd(i + k, a, false).run({}, world);
      // The session each refresh replaced is ended on the service (its end answered).
      for (let e = world.service.pending.findIndex((p) => p.kind === 'end' && p.stage === 'wire'); e >= 0; e = world.service.pending.findIndex((p) => p.kind === 'end' && p.stage === 'wire')) {
        world.service.answer(e, 'deliver');
        world.service.step++;
        await world.flush();
        world.checkStep();
      }
    }
    const replaced = world.stored(a).sessions.length > 0 && world.stored(a).sessions.every((s) => s.publicKeyHex !== signedBy);
    const at = world.service.pending.indexOf(leg);
    if (at < 0) return;
    world.service.answer(at, 'deliver');
    world.service.step++;
    await world.flush();
    world.checkStep();
    if (!replaced || !world.tabs.find((t) => t.id === leg.tab)?.open || world.logoutCalls.some((l) => l.account === a && l.at >= record.startedAt)) return;
    const restarted = record.legs > legsBefore;
    const ok = restarted || record.error === undefined || (record.error === 'SESSION_REPLACED_DURING_CALL' && record.legs === MAX_RESTARTS + 1);
    if (!ok) world.violations.push(`S12: action@${leg.tab} failed ${record.error} after refreshes of this browser replaced its signer (leg ${record.legs})`);
    world.checkStep();
  },
  toString: () => `refreshesDuringLeg(${a.slice(-1)}, ${n})(${i})`,
});

/** S12: the last action of the account failed SESSION_REPLACED_DURING_CALL after MAX_RESTARTS + 1 legs (the example above). */
const replacedCmd = (a: string): Command => step('replaced?', (w) => {
  const last = [...actionsOf(w)].reverse().find((r) => r.account === a);
  if (last?.error !== 'SESSION_REPLACED_DURING_CALL' || last.legs !== MAX_RESTARTS + 1) w.violations.push(`S12: four legs refused after refreshes: ${last?.error ?? 'no error'} after ${last?.legs ?? 0} legs`);
});

// The first account (logged in at the start of most runs) twice as often as the second.
const account = fc.constantFrom(ACCOUNTS[0], ACCOUNTS[0], ACCOUNTS[1]);

const refreshCmd = (i: number, a: string): Command => onTab(`refresh(${a.slice(-1)})`, i, (w, t) => void w.track(t, 'refresh', t.manager.refresh(a)));
const closeCmd = (i: number, arrived: boolean): Command => onTab(`closeTab[arrived=${arrived}]`, i, (w, t) => w.tabs.filter((x) => x.open).length > 1 && w.closeTab(t, arrived));
const logout = (w: World, t: Tab, a: string): void => {
  const calledAt = w.service.step;
  w.logoutCalls.push({ account: a, at: calledAt, nonceBefore: w.logoutRecord(a)?.nonce, held: w.stored(a).sessions.map((s) => s.id) });
  w.noteLogout(a, t);
  void w.track(t, 'logout', w.callLogout(t, a).then(() => w.logoutResolved(a, calledAt, t)), (ok) => {
    if (ok) w.logoutsDone.push({ account: a, at: calledAt });
  });
};
const logoutCmd = (i: number, a: string): Command => onTab(`logout(${a.slice(-1)})`, i, (w, t) => logout(w, t, a));
/**
 * A logout while storage refuses every write (issue 31): it must not fail for storage (S13), it
 * sends its ends, and the tabs show the account logged out (S3, S5 read their picture then).
 * Drawn in every coordination (Web Locks or leases, with or without a channel). A key is deleted
 * only once no record names its session (held.ts): before, without a channel, or with lease locks
 * and the logout's tab closed, storage named a session whose key a finished end had deleted (S2,
 * seeds 1, 2 and 5 of 1,000 runs). Should the tab close before storage took what it held, storage
 * names sessions the logout ended (with their keys): settling uses each once, and it must be dropped.
 */
const logoutStorageFullCmd = (i: number, a: string): Command =>
  onTab(`logoutStorageFull(${a.slice(-1)})`, i, (w, t) => {
    w.backend.failWrites = 1_000;
    w.failedWrite = true;
    w.storageFullTabs.add(t.id);
    const calledAt = w.service.step;
    w.logoutCalls.push({ account: a, at: calledAt, nonceBefore: w.logoutRecord(a)?.nonce, held: w.stored(a).sessions.map((s) => s.id) });
    void w.track(t, 'logout', w.callLogout(t, a).then(() => w.logoutResolved(a, calledAt, t), (error: unknown) => {
      w.violations.push(`S13: logout(${a}) in a tab whose storage refuses writes failed: ${String(error)}`);
      throw error;
    }), (ok) => {
      if (ok) w.logoutsDone.push({ account: a, at: calledAt });
    });
    // Storage takes writes again once this step is checked (what was held reaches it then).
    w.storageFullThisStep = true;
  });
/**
 * A tab loads with its local clock hours off (3 h fast, or slow) while the service is unreachable (issue 31): the ends
 * it tries are dropped before arriving; no answer has told it the server's time, so it must not
 * give a pending end up on its own clock's word (S11).
 */
const fastClockOfflineLoadCmd = (offsetMs = 3 * HOUR): Command => ({
  check: () => true,
  async run(_m, world) {
    world.jumpMs = offsetMs;
    if (world.tabs.filter((t) => t.open).length < 4) world.openTab();
    const tab = world.tabs.at(-1)!;
    world.service.step++;
    for (let n = 0; n < 6; n++) {
      await world.flush();
      const next = world.service.pending.findIndex((p) => p.tab === tab.id && p.stage !== 'signing');
      if (next < 0) break;
      world.service.answer(next, 'drop');
    }
    await world.flush();
    world.checkStep();
  },
  toString: () => `clockOffOfflineLoad(${offsetMs / HOUR}h)`,
});
/**
 * The user logs out, then closes the tab at once: if the logout still waits (behind a login in
 * flight, a refresh on the wire, the section held), its nonce is written and nothing of it done
 * yet: another tab must carry it out (I8). Checked after the logout's step and after the close.
 */
const logoutThenCloseCmd = (i: number, a: string, arrived: boolean): Command => ({
  check: () => true,
  async run(_m, world) {
    const open = world.tabs.filter((t) => t.open);
    const tab = open[i % Math.max(open.length, 1)];
    if (!tab) return;
    logout(world, tab, a);
    world.service.step++;
    await world.flush();
    world.checkStep();
    if (world.tabs.filter((t) => t.open).length < 2 || !world.ops.some((o) => o.tab === tab.id && o.what === 'logout' && !o.settled)) return;
    world.closeTab(tab, arrived);
    world.service.step++;
    await world.flush();
    world.checkStep();
  },
  toString: () => `logoutThenClose(${a.slice(-1)})(${i})[arrived=${arrived}]`,
});
/** A tab on the memory store opens (IndexedDB could not be opened): a wallet of its own, told of logouts by message (I1). */
const openMemoryTabCmd = (): Command => step('openMemoryTab', (w) => w.tabs.filter((t) => t.open).length < 4 && !w.tabs.some((t) => t.open && t.memory) && w.openTab(true));
const answerCmd = (i: number, how: Answer): Command => step(`answer(${i}, ${how})`, (w) => w.service.answer(i, how));
const holdCmd = (a: string): Command => step(`holdSection(${a.slice(-1)})`, (w) => w.holdSection(a));
const releaseCmd = (): Command => step('releaseSections', (w) => w.releaseSections());
/**
 * A refresh whose prompt is approved and whose answer comes, as one step; `busy`: the account's
 * section is held (another tab's commit, Web Locks only) once its request is made, so the refresh
 * stores its new key and waits to commit: a tab closed now leaves a key for a session it never committed (I8: the next load or
 * logout ends it). Checked after each of its steps.
 */
const refreshAnsweredCmd = (i: number, a: string, busy: boolean): Command => ({
  check: () => true,
  async run(_m, world) {
    const open = world.tabs.filter((t) => t.open);
    const tab = open[i % Math.max(open.length, 1)];
    if (!tab) return;
    void world.track(tab, 'refresh', tab.manager.refresh(a));
    world.service.step++;
    await world.flush();
    world.checkStep();
    // Busy from now on: the refresh read its state, its request waits at the prompt.
    if (busy) world.holdSection(a);
    for (let n = 0; n < 4; n++) {
      const next = world.service.pending.findIndex((p) => p.tab === tab.id && p.kind === 'refresh' && p.stage !== 'signing');
      if (next < 0) break;
      world.service.answer(next, 'deliver');
      world.service.step++;
      await world.flush();
      world.checkStep();
    }
  },
  toString: () => `refreshAnswered(${a.slice(-1)})(${i})${busy ? '[section busy]' : ''}`,
});
/** Every request waiting on the service answered (prompts approved): the tabs get on with their work. */
const deliverAllCmd = (): Command => ({
  check: () => true,
  async run(_m, world) {
    world.service.step++;
    await world.deliverAll(20);
    world.checkStep();
  },
  toString: () => 'deliverAll',
});
/** The tab of a logout still running (else of any operation still running) closes: mid-logout, mid-login, mid-refresh (I8). */
const closeBusyCmd = (i: number, arrived: boolean): Command => step(`closeBusyTab(${i})[arrived=${arrived}]`, (w) => {
  const tab = w.busyTab(i);
  if (tab) w.closeTab(tab, arrived);
});

// Weighted: answers, logins, logouts and tabs closing mid-operation come often enough that random
// runs (not only the examples) reach a logout whose tab closes while it waits (behind a login in
// flight, a refresh on the wire, or the section held) with sessions stored.
const commands = [
  { weight: 1, arbitrary: fc.constant(step('openTab', (w) => w.tabs.filter((t) => t.open).length < 4 && w.openTab())) },
  // A tab whose IndexedDB cannot be opened (its keys and records in memory, I1): at most one open.
  { weight: 1, arbitrary: fc.constant(openMemoryTabCmd()) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.boolean()).map(([i, arrived]) => closeCmd(i, arrived)) },
  { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.boolean()).map(([i, arrived]) => closeBusyCmd(i, arrived)) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(), account, fc.constantFrom('AuthMethod:1', 'AuthMethod:2')).map(([i, a, c]) => onTab(`login(${a.slice(-1)},${c.slice(-1)})`, i, (w, t) => login(w, t, a, c))) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => refreshCmd(i, a)) },
  { weight: 3, arbitrary: fc.tuple(fc.nat(), account, fc.boolean()).map(([i, a, busy]) => refreshAnsweredCmd(i, a, busy)) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => logoutCmd(i, a)) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(), account, fc.boolean()).map(([i, a, arrived]) => logoutThenCloseCmd(i, a, arrived)) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => logoutStorageFullCmd(i, a)) },
  // A local clock hours off either way (3 h fast, 3 h slow), a tab loaded so while the service is unreachable.
  { weight: 1, arbitrary: fc.constantFrom(3 * HOUR, -3 * HOUR).map((ms) => fastClockOfflineLoadCmd(ms)) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => onTab(`signOutOtherDevices(${a.slice(-1)})`, i, (w, t) => void w.track(t, 'signOut', t.manager.signOutOtherDevices(a)))) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => onTab(`sign(${a.slice(-1)})`, i, (w, t) => void w.track(t, 'sign', t.manager.resolve(a)))) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account).map(([i, a]) => onTab(`action(${a.slice(-1)})`, i, (w, t) => action(w, t, a))) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), account, fc.integer({ min: 1, max: 2 })).map(([i, a, n]) => refreshesDuringLegCmd(i, a, n)) },
  { weight: 1, arbitrary: fc.nat().map((i) => onTab('wake', i, (w, t) => w.wakes.get(t.id)?.())) },
  { weight: 1, arbitrary: fc.constantFrom(30_000, 4 * MINUTE, 10.5 * MINUTE, 16 * MINUTE).map((ms) => step(`advance(${ms / 1000}s)`, (w) => w.clock.advance(ms))) },
  // The user sets the computer's clock: the wall clock moves, time does not (I6).
  // Hours fast too (issue 31): a tab loaded then, the service unreachable, has no server sample
  // yet and must not drop a pending end on the local clock's word (S11).
  { weight: 1, arbitrary: fc.constantFrom(-HOUR, 0, HOUR, 3 * HOUR).map((ms) => step(`localClock(${ms / HOUR}h)`, (w) => void (w.jumpMs = ms))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }).map((n) => step(`storageFails(${n})`, (w) => void ((w.backend.failWrites = n), (w.failedWrite = true)))) },
  // The next downloads of changes.ts fail (offline, a deploy replaced the chunk): I5, and every
  // invariant after it, for whichever tab meets it first.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => step(`chunkFails(${n})`, (w) => void (w.chunkFailures = n))) },
  // The account's section busy for a while (another tab's commit, a request made inside it): a tab
  // closed meanwhile leaves a key stored for a session it never committed (I8).
  { weight: 2, arbitrary: account.map((a) => holdCmd(a)) },
  { weight: 1, arbitrary: fc.constant(releaseCmd()) },
  { weight: 1, arbitrary: fc.constant(step('elsewhereLogin', (w) => w.service.elsewhere(ACCOUNTS[0]!, w.nextKey().publicKeyHex))) },
  {
    weight: 1,
    arbitrary: fc.nat().map((i) =>
      step(`revokeMine(${i})`, (w) => {
        const mine = ACCOUNTS.flatMap((a) => w.stored(a).sessions);
        const target = mine.length > 0 ? w.service.sessions.get(mine[i % mine.length]!.id) : undefined;
        if (target) w.service.endElsewhere(target);
      }),
    ),
  },
  {
    weight: 4,
    // 'forbid': the app's proxy refuses the request (401 LOGIN_REQUIRED, 403): an end it refuses stays a pending end (I1, I8).
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom<Answer>('deliver', 'deliver', 'deliver', 'lose', 'drop', 'refuse', 'timeout', 'forbid')).map(([i, how]) => answerCmd(i, how)),
  },
  { weight: 1, arbitrary: fc.constant(deliverAllCmd()) },
];

const coordinations = fc.constantFrom<Coordination>(
  { locks: 'web', channel: true },
  { locks: 'web', channel: true },
  { locks: 'web', channel: false },
  { locks: 'lease', channel: true },
  { locks: 'lease', channel: false },
);

// How a run starts: the first login's verify on the wire (the commands answer it, or not), or that
// login committed (a session stored), from which logouts, refreshes and closed tabs have more to do.
const starts = fc.constantFrom<'login on the wire' | 'logged in'>('login on the wire', 'logged in', 'logged in');

describe('session model: tabs, a scripted service, random interleavings', () => {
  it(`holds the invariants over ${RUNS} runs`, async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(coordinations, starts, fc.commands([fc.oneof(...commands)], { maxCommands: 20, size: 'max' }), async (coordination, start, cmds) => {
        const world = new World(coordination, pool);
        for (let i = 0; i < 3; i++) world.openTab();
        await world.flush();
        login(world, world.tabs[0]!, ACCOUNTS[0]!, 'AuthMethod:1');
        await world.flush();
        if (start === 'logged in') await world.deliverAll();
        world.service.step = 1;
        await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
        await world.settle();
        for (const t of world.tabs) if (t.open) t.manager.dispose();
      }),
      {
        numRuns: RUNS,
        ...(SEED !== undefined && { seed: Number(SEED) }),
        // A failure's seed and path (SESSION_MODEL_SEED, SESSION_MODEL_PATH) replay it, with the same example runs.
        ...(process.env.SESSION_MODEL_PATH !== undefined && { path: process.env.SESSION_MODEL_PATH }),
        // Run first: a tab closed between storing its refresh's key and committing (the section busy),
        // then the next tab that loads (settling opens one), or a logout, must end that session (I8).
        examples: process.env.SESSION_MODEL_NO_EXAMPLES === '1' ? [] : [
          // S10 after a storage-full logout without a channel: a login in another tab (which did not hear
          // of it) commits over the session it ends; the logout's held end reaches storage on wake (seed 511).
          [{ locks: 'web', channel: false }, 'logged in', [logoutStorageFullCmd(1142769568, ACCOUNTS[0]!), onTab('login(a,2)', 0, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:2')), answerCmd(0, 'drop'), answerCmd(0, 'deliver'), onTab('wake', 78131248, (w, t) => w.wakes.get(t.id)?.())]],
          // S14: a memory tab's signOutOtherDevices() ends the shared tabs' session (another device's to it);
          // a shared tab's logout then sends its own DELETE of it, answered 404 (seed 409707934, lease locks).
          [{ locks: 'lease', channel: true }, 'logged in', [openMemoryTabCmd(), logoutCmd(0, ACCOUNTS[0]!), closeCmd(335479193, false), onTab('login(a,1)', 921584633, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:1')), onTab('signOutOtherDevices(a)', 775732979, (w, t) => void w.track(t, 'signOut', t.manager.signOutOtherDevices(ACCOUNTS[0]!)))]],
          // Settling's first uses (I6 after a storage-full logout whose tab closed holding its records) come
          // after the faults still scheduled: a chunk failure and two refused writes left took all four (seed 306).
          [{ locks: 'web', channel: false }, 'login on the wire', [answerCmd(0, 'deliver'), logoutStorageFullCmd(0, ACCOUNTS[0]!), step('chunkFails(3)', (w) => void (w.chunkFailures = 3)), closeBusyCmd(0, true), step('storageFails(2)', (w) => void ((w.backend.failWrites = 2), (w.failedWrite = true))), refreshAnsweredCmd(0, ACCOUNTS[0]!, false)]],
          // I1 (memory tabs): a logout called in a tab still loading, closed before it loaded, asked for
          // nothing (no nonce, no message): the memory tab's login in flight may keep its session (seed 309).
          [{ locks: 'web', channel: true }, 'logged in', [closeCmd(0, false), openMemoryTabCmd(), refreshAnsweredCmd(0, ACCOUNTS[0]!, false), onTab('login(b,1)', 42812741, (w, t) => login(w, t, ACCOUNTS[1]!, 'AuthMethod:1')), step('openTab', (w) => w.tabs.filter((t) => t.open).length < 4 && w.openTab()), logoutThenCloseCmd(796319151, ACCOUNTS[1]!, false), deliverAllCmd()]],
          // S14: one DELETE of each session per logout() call, whatever its answer (the logout's end lost,
          // or refused by the app's proxy: kept as a pending end for a later call, not sent again by
          // this one). Two were sent when the logout ran through tab.run (seed 1, run 94, before 6387623).
          [{ locks: 'web', channel: true }, 'logged in', [logoutCmd(0, ACCOUNTS[0]), answerCmd(0, 'lose'), logoutCmd(1, ACCOUNTS[0]), answerCmd(0, 'forbid'), deliverAllCmd()]],
          // S14: a second DELETE of a session whose end was answered is allowed only once storage has refused
          // a write (the answer may not be recorded): a background finish in another tab ends it, its
          // record refused, then a logout there sends it again (answered 404; seed 1, run 270).
          [{ locks: 'web', channel: true }, 'login on the wire', [answerCmd(0, 'deliver'), logoutThenCloseCmd(0, ACCOUNTS[0], false), closeCmd(0, false), onTab('wake', 0, (w, t) => w.wakes.get(t.id)?.()), step('storageFails(2)', (w) => void ((w.backend.failWrites = 2), (w.failedWrite = true))), logoutCmd(0, ACCOUNTS[0])]],
          // S14: a logout while storage refuses writes (its pending end held in its tab's memory) waits for
          // the section a login on the wire holds; another tab ends the session by the logout's message,
          // answered; the held end is sent again and found gone (CI of stop 36, seed -1966364282): allowed.
          [{ locks: 'web', channel: true }, 'logged in', [onTab('login(a,1)', 429785425, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:1')), logoutStorageFullCmd(0, ACCOUNTS[0]), answerCmd(60353145, 'drop')]],
          // S9: a logout whose nonce storage refused (held in its tab), a login started after it in that tab,
          // then a logout in another tab whose nonce is refused too (no channel: no tab can hear of it);
          // the first nonce, flushed as the login commits, is no logout requested during it (seed 100).
          [{ locks: 'web', channel: false }, 'login on the wire', [step('storageFails(2)', (w) => void ((w.backend.failWrites = 2), (w.failedWrite = true))), onTab('logout(a)', 0, (w, t) => logout(w, t, ACCOUNTS[0]!)), closeCmd(1, false), onTab('login(a,1)', 0, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:1')), onTab('logout(a)', 1, (w, t) => logout(w, t, ACCOUNTS[0]!))]],
          // I1: a tab on the memory store logs in and signs out the other devices: the shared tabs'
          // session is another device's to it (CI, seed 409707934).
          [{ locks: 'web', channel: true }, 'login on the wire', [openMemoryTabCmd(), closeCmd(335479193, false), onTab('login(a,1)', 921584633, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:1')), onTab('signOutOtherDevices(a)', 775732979, (w, t) => void w.track(t, 'signOut', t.manager.signOutOtherDevices(ACCOUNTS[0]!)))]],
          // I2 (issue 31): a logout while storage refuses writes, after another: the action started in
          // another tab between them is cancelled at its prompt (S5b).
          [{ locks: 'web', channel: true }, 'logged in', [refreshCmd(85451014, ACCOUNTS[0]), logoutStorageFullCmd(0, ACCOUNTS[0]), logoutThenCloseCmd(808032395, ACCOUNTS[0], false), onTab('action(a)', 294128799, (w, t) => action(w, t, ACCOUNTS[0]!)), logoutStorageFullCmd(0, ACCOUNTS[0]), answerCmd(284500132, 'deliver')]],
          // Storage-full logouts without a channel, lease locks (issue 31; were seeds 2 and 1 of 1,000 runs):
          // an end finishes while storage still names its session (S2: its key must stay), and the
          // logout's tab closes holding its records (settling uses the session: dropped as revoked).
          [{ locks: 'lease', channel: false }, 'login on the wire', [answerCmd(0, 'deliver'), logoutStorageFullCmd(0, ACCOUNTS[0]), step('storageFails(1)', (w) => void ((w.backend.failWrites = 1), (w.failedWrite = true))), answerCmd(0, 'deliver')]],
          [{ locks: 'lease', channel: false }, 'login on the wire', [answerCmd(0, 'deliver'), logoutStorageFullCmd(0, ACCOUNTS[0]), closeBusyCmd(0, true)]],
          // I3 (issue 31): another tab refreshes twice while the action's signed leg is on the wire,
          // then once more during its retry: the call starts over each time (S12).
          [{ locks: 'web', channel: true }, 'logged in', [onTab('action(a)', 0, (w, t) => action(w, t, ACCOUNTS[0]!)), answerCmd(0, 'deliver'), refreshesDuringLegCmd(1, ACCOUNTS[0]!, 2), answerCmd(0, 'deliver'), refreshesDuringLegCmd(1, ACCOUNTS[0]!, 1), answerCmd(0, 'deliver'), deliverAllCmd()]],
          // I3: a refresh of another tab during each of four legs: three restarts, then
          // SESSION_REPLACED_DURING_CALL (S12 checks it came at leg MAX_RESTARTS + 1, and only then).
          [{ locks: 'web', channel: false }, 'logged in', [onTab('action(a)', 0, (w, t) => action(w, t, ACCOUNTS[0]!)), ...Array.from({ length: MAX_RESTARTS + 1 }, (_, k) => [answerCmd(0, 'deliver'), refreshesDuringLegCmd(1 + k, ACCOUNTS[0]!, 1 + (k % 2))]).flat(), replacedCmd(ACCOUNTS[0]!), deliverAllCmd()]],
          // I1 (issue 31): a tab on the memory store logs in on its own; a logout in a shared tab reaches
          // it by message (its session ended); then its own user's logout reaches the shared tabs.
          [{ locks: 'web', channel: true }, 'logged in', [openMemoryTabCmd(), onTab('login(a,2)', 3, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:2')), answerCmd(0, 'deliver'), logoutCmd(0, ACCOUNTS[0]), deliverAllCmd()]],
          [{ locks: 'lease', channel: true }, 'logged in', [openMemoryTabCmd(), onTab('login(a,2)', 3, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:2')), answerCmd(0, 'deliver'), logoutCmd(3, ACCOUNTS[0]), deliverAllCmd()]],
          [{ locks: 'web', channel: true }, 'login on the wire', [answerCmd(0, 'deliver'), refreshCmd(1, ACCOUNTS[0]), holdCmd(ACCOUNTS[0]), answerCmd(0, 'deliver'), answerCmd(0, 'deliver'), closeCmd(1, true), releaseCmd()]],
          [{ locks: 'web', channel: true }, 'login on the wire', [answerCmd(0, 'deliver'), refreshCmd(1, ACCOUNTS[0]), holdCmd(ACCOUNTS[0]), answerCmd(0, 'deliver'), answerCmd(0, 'deliver'), closeCmd(1, true), releaseCmd(), logoutCmd(0, ACCOUNTS[0])]],
          // A logout whose tab closes while it waits for the section (its nonce written): another tab
          // must carry it out (I8), and a login there must not keep the sessions it was to end.
          [{ locks: 'web', channel: true }, 'login on the wire', [answerCmd(0, 'deliver'), answerCmd(0, 'deliver'), holdCmd(ACCOUNTS[0]), logoutCmd(1, ACCOUNTS[0]), closeCmd(1, true), releaseCmd()]],
          [{ locks: 'lease', channel: false }, 'login on the wire', [answerCmd(0, 'deliver'), answerCmd(0, 'deliver'), holdCmd(ACCOUNTS[0]), logoutCmd(1, ACCOUNTS[0]), closeCmd(1, false), releaseCmd(), onTab('login(a,2)', 2, (w, t) => login(w, t, ACCOUNTS[0]!, 'AuthMethod:2'))]],
        ],
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const met = [...chunkFailuresMet].map(([what, n]) => `${what} ${n}`).join(', ');
    console.log(`session model: ${RUNS} runs in ${seconds.toFixed(1)} s; operations failed by a chunk download: ${met || 'none'}`);
  }, 600_000);
});
