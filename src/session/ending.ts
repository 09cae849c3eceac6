/**
 * How a tab ends sessions (the manager's third part, on tab.ts): `logout()` and the logouts other
 * tabs announce that this tab must carry out itself (a tab on the memory store, channel.ts), sessions
 * forgotten, and the logins a logout wins against: a login is bound when its flow starts
 * (`loginStarts`), so a logout called after that, or requested in another tab after its nonce read,
 * wins (I1, I2).
 */
import { invalidArgument } from '../errors.js';
import { endAll, removeSessions } from './operations.js';
import type { LogoutRequest } from './channel.js';
import { LOGOUT_PREFIX, readSnapshot, requestLogout, type Change } from './state.js';
import type { Tab } from './tab.js';
import type { LogoutReason, ManagedSessions } from './types.js';
import { currentOf } from './view.js';

export type Ending = Pick<ManagedSessions, 'logout' | 'forget' | 'loggingIn' | 'loginStarts'> & {
  /** Logs the account out: asked for by this tab's user (`here`), or by a logout message this tab must carry out. */
  logoutOf(accountId: string, here: boolean): Promise<void>;
};

const CHANGE_OF: Record<LogoutReason, Change> = { user: 'logout', 'other-tab': 'logout', expired: 'expired', revoked: 'revoked' };

export function createEnding(tab: Tab): Ending {
  const { ctx, view, sections, cancellers, loggingOut, meta } = tab;
  /** This tab's login and logout calls, numbered in the order they were made; per account, the last logout's. */
  let calls = 0;
  const logoutCalls = new Map<string, number>();

  const ending: Ending = {
    async logout(accountId) {
      const at = ++calls;
      await tab.ready(accountId);
      const account = accountId === undefined ? tab.defaultAccount() : tab.accountOf(accountId);
      if (account === undefined) return;
      // Before the nonce is written: a login of this tab started before this call loses, even one
      // whose nonce read comes after the write (loginStarts).
      logoutCalls.set(account, Math.max(logoutCalls.get(account) ?? 0, at));
      await ending.logoutOf(account, true);
    },
    /**
     * Logs the account out in this tab's storage and on the service: asked for by this tab's user
     * (`here`: its events say `user`, and tabs on the memory store are told), or by a logout message
     * this tab must carry out itself (channel.ts).
     */
    async logoutOf(account, here) {
      await tab.ensureLoaded();
      if (here) loggingOut.add(account);
      try {
        // First doom whatever is in flight for the account, here and in the other tabs…
        const nonce = await requestLogout(meta, account);
        cancellers.check(account, nonce);
        // Storage refused the request (held in memory): the other tabs get it by message. A logout
        // this tab's user asked for is announced as one (tabs on the memory store carry it out).
        const held = meta.isHeld(LOGOUT_PREFIX + account) ? await meta.get<LogoutRequest>(LOGOUT_PREFIX + account) : undefined;
        tab.channel.post(account, held, here || undefined);
        // …then, once the logins in flight have settled (they lose: their tickets are stale) and a
        // refresh on the wire has committed or undone itself (its prompt was cancelled), end what is
        // stored, after whoever holds the section now. No lock taken here waits on a user (I4).
        // Straight in the section, not through `tab.run`: that would carry out the pending logout
        // (this one) first and then this sweep, trying each pending end twice per call (two DELETEs
        // when the proxy refuses them, issue 31); endAll carries out the pending logout itself.
        await sections.logins(account, 'exclusive', () => sections.refreshing(account, () => sections.run(account, async () => endAll(ctx, await tab.observe(account), { sweep: true }))));
      } finally {
        if (here) loggingOut.delete(account);
      }
      if (tab.lastAccountId === account && !currentOf(view.get(account))) tab.lastAccountId = undefined;
    },
    async forget(sessionIds, reason = 'revoked') {
      if (!Array.isArray(sessionIds) || !sessionIds.every((id) => typeof id === 'string')) throw invalidArgument('sessionIds', 'an array of Session ids');
      await tab.ensureLoaded();
      const ids = new Set(sessionIds);
      for (const state of view.accounts()) {
        if (!state.sessions.some((s) => ids.has(s.id))) continue;
        const account = state.accountId;
        // Forgotten "by the user" is a logout made here: this tab's `logged-out` says `user` (the
        // other tabs' `other-tab`), as for logout().
        const here = reason === 'user' && !loggingOut.has(account);
        if (here) loggingOut.add(account);
        try {
          await tab.run(account, (snap) => removeSessions(ctx, snap, ids, CHANGE_OF[reason] ?? 'revoked'));
        } finally {
          if (here) loggingOut.delete(account);
        }
      }
    },
    loggingIn(accountId, fn) {
      if (typeof fn !== 'function') throw invalidArgument('fn', 'a function');
      return ending.loginStarts(accountId)(fn);
    },
    loginStarts(accountId) {
      if (typeof accountId !== 'string' || accountId === '') throw invalidArgument('accountId', 'a non-empty string');
      // The login is bound when it starts (the flow's verify() is called), not when it gets the lock:
      // a logout called after that in this tab (`logoutCalls`), or requested in another tab while it
      // waited (the nonce read now), wins, however long the flow works before its verify request.
      const at = ++calls;
      const started = readSnapshot(meta, accountId);
      started.catch(() => undefined); // a flow that fails before it runs its login reads nothing more
      return (fn) => {
        if (typeof fn !== 'function') throw invalidArgument('fn', 'a function');
        // I5: the code the commit needs is loaded before verify is sent (a failed download fails the
        // login before the service makes a session); the login runs there (changes.ts `login`).
        return tab.withChanges((m) => m.login(ctx, sections, accountId, started, () => (logoutCalls.get(accountId) ?? 0) > at, fn));
      };
    },
  };
  return ending;
}
