/**
 * The session manager: which sessions this browser holds for each account, which one is current,
 * when they expire (on the server's clock), refreshing, logging out, and keeping tabs in step.
 *
 * Three parts, put together here: what a tab follows (tab.ts: the stored state, the other tabs, the
 * section, loading and timers), what it signs with (signing.ts) and how it ends sessions (ending.ts:
 * logout, and the logins a logout wins against).
 *
 * What it promises is INVARIANTS.md (I1–I8), each with the tests that check it. How, in short: each
 * account's sessions are one stored state (state.ts) with a generation, changed only by commits
 * inside the account's critical section (critical-section.ts: an in-page queue feeding a lock shared
 * by the tabs), each re-checking what it started from (`commitState`, or the same current session and
 * logout nonce) and undoing its own effect when stale. `logout()` first writes a new logout nonce
 * (the one write outside the section), which dooms commits in flight and cancels signatures not yet
 * sent in every tab (I2: re-read after every prompt, and every second while one is open); then it
 * waits for the logins in flight, a refresh on the wire and the section, and ends what is stored
 * (I1), keeping what the service could not confirm as pending ends (I8). Prompts never run inside
 * the section (I4): a refresh signs holding only the refresh lock; ends made for a logout or an undo
 * are approved by the call that caused them. Tabs learn of changes by a message that carries nothing
 * trusted and makes them re-read storage (channel.ts); their picture only moves to higher
 * generations (view.ts), and every signature re-reads the account's state first.
 *
 * Decisions where the wire reference is open:
 * - Only the current session of an account is refreshed automatically; other sessions held for the
 *   account (made with other credentials, kept so that a credential can be deleted) run to expiry.
 * - A login loses against a logout requested after it started (`loginStarts`, called first by the
 *   flow's verify): its session is ended and NOT_LOGGED_IN thrown. One that started after the logout was requested commits.
 * - Logout never fails for server errors: the state is emptied whatever the service answered; what
 *   it could not end stays a pending end (I8), whose key signs nothing else.
 * - A refresh whose answer never arrives leaves a session on the service whose key no one holds;
 *   it cannot be named (AuthSession names no key), so it runs to its expiry, unusable.
 */
import { createEnding } from './ending.js';
import { createSigning } from './signing.js';
import { createTab } from './tab.js';
import type { ManagedSessions, SessionManagerOptions } from './types.js';
import { currentOf } from './view.js';

export type { ManagedSessions, SessionManagerOptions } from './types.js';
export { changesChunk } from './tab.js';

/**
 * A session manager over a client and a key store, without the rest of the wallet (`createWallet`
 * makes one for you). Nothing is read until `restore()` or the first call.
 */
export function createSessionManager(options: SessionManagerOptions): ManagedSessions {
  // A logout another tab's user asked for that this tab must carry out itself (a memory store).
  const tab = createTab(options, (account) => void ending.logoutOf(account, false).catch(() => undefined));
  const { ctx, view, sections, withChanges } = tab;
  const signing = createSigning(tab);
  const ending = createEnding(tab);

  /** Validates and stores a session a login made (changes.ts `adopt`, loaded on first use). */
  const adoptDeps = {
    ensureLoaded: tab.ensureLoaded,
    run: tab.run,
    adopted(accountId: string): void {
      tab.lastAccountId = accountId;
      // The service just answered a login of the account: its pending ends (the session a login
      // with the same credential replaced, a logout made offline) are finished now (I8), not only
      // at the next load, wake or logout.
      tab.finishPending([accountId]);
    },
  };

  const manager: ManagedSessions = {
    clock: tab.clock,
    current(accountId) {
      const account = accountId ?? tab.defaultAccount();
      return account === undefined ? null : currentOf(view.get(account));
    },
    all() {
      return view.accounts().flatMap((s) => s.sessions).sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    },
    adopt: (session, key) => withChanges((m) => m.adopt(ctx, session, key, undefined, adoptDeps)),
    // Loaded by `loginStarts` before verify (I5): this runs synchronously on the loaded module.
    establish: (answer, known) => withChanges((m) => m.establish(ctx, answer, known, adoptDeps)),
    ...signing,
    logout: ending.logout,
    forget: ending.forget,
    loggingIn: ending.loggingIn,
    loginStarts: ending.loginStarts,
    async refresh(accountId, plan) {
      await tab.ready(accountId);
      return tab.refresher.refresh(tab.accountOf(accountId), plan, false);
    },
    async list(accountId) {
      await tab.ready(accountId);
      return ctx.service.list(tab.accountOf(accountId));
    },
    async signOutOtherDevices(accountId) {
      await tab.ready(accountId);
      const account = tab.accountOf(accountId);
      // Under the locks, then ends outside them (I4): changes.ts signOutOthers.
      return withChanges((m) => m.signOutOthers(ctx, account, { sections, run: tab.run, resolve: signing.resolve }));
    },
    async restore() {
      await tab.reload();
      return manager.all();
    },
    on(event, listener) {
      return tab.events.on(event, listener);
    },
    serverNow: tab.serverNow,
    dispose: tab.dispose,
  };
  return manager;
}
