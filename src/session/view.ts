/**
 * This tab's picture of the stored account states, and the events it owes its listeners.
 *
 * The picture only moves forward: a state is applied when its generation is above the one held
 * (a read that raced a newer commit is dropped), so reads may complete in any order. Events come
 * from comparing the picture before and after, and from what the stored commit says it did
 * (`change`): the same rules for this tab's own commits and for those of other tabs.
 */
import { WalletError, invalidArgument } from '../errors.js';
import type { Emitter } from './emitter.js';
import { expiresAtMs } from './records.js';
import type { AccountState, Change } from './state.js';
import type { LogoutReason, Session, SessionEvents, SignerOptions } from './types.js';

export interface View {
  /** The account's picture (an empty one at generation 0 when unknown). */
  get(accountId: string): AccountState;
  accounts(): AccountState[];
  /**
   * Adopts `state` if newer (or the record vanished: storage was cleared), emitting the events of
   * the difference unless `silent`. `local`: this tab made the change (a logout is then `user`).
   * Returns whether the picture moved.
   */
  apply(state: AccountState, how?: { local?: boolean; silent?: boolean; absent?: boolean }): boolean;
  /** Why the account's last current session ended here (for the error of its next use). */
  ended(accountId: string): LogoutReason | undefined;
}

function reasonOf(change: Change, local: boolean): LogoutReason | undefined {
  switch (change) {
    case 'logout':
      return local ? 'user' : 'other-tab';
    case 'expired':
      return 'expired';
    case 'revoked':
      return 'revoked';
    case 'evicted':
      return undefined;
    default:
      return 'other-tab';
  }
}

export function currentOf(state: AccountState): Session | null {
  return state.sessions.find((s) => s.id === state.current) ?? null;
}

/** The error of a call for an account with no usable session here: why its last one ended, if known. */
export function noSessionError(view: View, accountId: string): WalletError {
  const why = view.ended(accountId);
  if (why === 'expired') return new WalletError('SESSION_EXPIRED', `the session of ${accountId} expired: log in again`);
  if (why === 'revoked') return new WalletError('SESSION_REVOKED', `the session of ${accountId} was ended elsewhere: log in again`);
  return new WalletError('NOT_LOGGED_IN', `no session for ${accountId} in this browser`);
}

/** The account a call without one is for: the last one used while it has a current session, else the first that has one. */
export function defaultAccountOf(view: View, last: string | undefined): string | undefined {
  if (last !== undefined && currentOf(view.get(last))) return last;
  return view.accounts().find((s) => currentOf(s) !== null)?.accountId;
}

/** The account a call is for: `accountId` (checked) or the default one; NOT_LOGGED_IN when there is none. */
export function accountFor(view: View, last: string | undefined, accountId: string | undefined): string {
  if (accountId !== undefined && (typeof accountId !== 'string' || accountId === '')) throw invalidArgument('accountId', 'a non-empty string');
  const account = accountId ?? defaultAccountOf(view, last);
  if (account === undefined) throw new WalletError('NOT_LOGGED_IN', 'no session in this browser (and no accountId given)');
  return account;
}

/**
 * The session a signature of the account uses: the current one, or with `excludeCredentialId` the
 * best unexpired one of another credential (the current first, then the longest-lasting).
 */
export function pickSession(state: AccountState, opts: SignerOptions | undefined, serverNow: number, noSession: (accountId: string) => WalletError): Session {
  const cur = currentOf(state);
  const exclude = opts?.excludeCredentialId;
  if (exclude === undefined) {
    if (!cur) throw noSession(state.accountId);
    return cur;
  }
  if (typeof exclude !== 'string' || exclude === '') throw invalidArgument('excludeCredentialId', 'a non-empty string');
  const candidates = state.sessions
    .filter((s) => s.credentialId !== exclude && serverNow < expiresAtMs(s))
    .sort((a, b) => (a === cur ? -1 : b === cur ? 1 : expiresAtMs(b) - expiresAtMs(a)));
  if (candidates[0]) return candidates[0];
  if (state.sessions.length === 0) throw noSession(state.accountId);
  throw new WalletError('OTHER_CREDENTIAL_SESSION_REQUIRED');
}

export function createView(events: Emitter<SessionEvents>, onChange: (accountId: string, local: boolean) => void): View {
  const states = new Map<string, AccountState>();
  const endedWhy = new Map<string, LogoutReason>();
  const empty = (accountId: string): AccountState => ({ accountId, generation: 0, current: null, sessions: [], change: 'logout' });

  function emitDifference(before: AccountState, after: AccountState, local: boolean): void {
    const kept = new Set(after.sessions.map((s) => s.id));
    const removed = before.sessions.filter((s) => !kept.has(s.id));
    if (after.change === 'expired') for (const s of removed) events.emit('expired', s);
    if (after.change === 'evicted') for (const s of removed) events.emit('key-evicted', { session: s });
    const was = currentOf(before);
    const now = currentOf(after);
    if (was?.id === now?.id) return;
    if (now === null) {
      const reason = reasonOf(after.change, local);
      if (reason === undefined) return;
      endedWhy.set(after.accountId, reason);
      events.emit('logged-out', { accountId: after.accountId, reason });
      return;
    }
    endedWhy.delete(after.accountId);
    if (after.change === 'refresh' && was !== null && !kept.has(was.id)) events.emit('refreshed', { previous: was, session: now });
    else events.emit('session', now);
  }

  return {
    get(accountId) {
      return states.get(accountId) ?? empty(accountId);
    },
    accounts() {
      return [...states.values()];
    },
    apply(state, how = {}) {
      const before = states.get(state.accountId) ?? empty(state.accountId);
      const cleared = how.absent === true && before.sessions.length > 0;
      if (state.generation <= before.generation && !cleared) return false;
      // Cleared storage starts over at generation 0: the picture follows it down, once.
      const after = cleared ? empty(state.accountId) : state;
      states.set(state.accountId, after);
      if (how.silent !== true) emitDifference(before, after, how.local === true);
      onChange(state.accountId, how.local === true);
      return true;
    },
    ended(accountId) {
      return endedWhy.get(accountId);
    },
  };
}
