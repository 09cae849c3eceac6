/**
 * An account's sessions as stored (key-store metadata, next to the keys, so that they fall back to
 * memory together), and the one way to change them: a commit that checks what it started from.
 *
 * Layout:
 * - `account:<InternalAccount id>` → {@link AccountState}: every session held for the account, the
 *   current one, a generation raised by every commit, and what the last commit did. Written only
 *   inside the account's critical section.
 * - `logout:<InternalAccount id>` → `{ nonce, generation }`: the last logout requested for the
 *   account and the generation it saw. Written by `logout()` before it waits for the critical section
 *   (the one write made outside it): every commit that started under another nonce is stale, so a
 *   logout wins over whatever is in flight; until a commit raises the generation past the one it
 *   saw, the logout is pending and no refresh starts.
 * - `ending:<InternalAccount id>` → {@link Ending}[]: sessions a logout dropped here whose end the
 *   service has not confirmed (offline, a tab closed); their keys are kept, usable only to end them,
 *   until the service confirms or they expire (invariant I8, INVARIANTS.md).
 * - `last-account` → `{ accountId }`: the default account of the manager's methods.
 */
import type { MetadataStore } from '../keys/index.js';
import { randomId } from './host.js';
import { isRecord } from '../types.js';
import { parseStoredSession } from './records.js';
import type { Session } from './types.js';

export const ACCOUNT_PREFIX = 'account:';
export const LOGOUT_PREFIX = 'logout:';
export const LAST_ACCOUNT = 'last-account';
export const ENDING_PREFIX = 'ending:';

/** A session to end on the service with the key kept for it (never used to sign anything else). */
export interface Ending {
  id: string;
  publicKeyHex: string;
  expiresAt: string;
}

export async function readEnding(meta: MetadataStore, accountId: string): Promise<Ending[]> {
  const value = await meta.get(ENDING_PREFIX + accountId);
  if (!Array.isArray(value)) return [];
  return value.filter((e): e is Ending => isRecord(e) && typeof e.id === 'string' && typeof e.publicKeyHex === 'string' && typeof e.expiresAt === 'string');
}

export async function writeEnding(meta: MetadataStore, accountId: string, list: readonly Ending[]): Promise<void> {
  if (list.length === 0) await meta.delete(ENDING_PREFIX + accountId);
  else await meta.put(ENDING_PREFIX + accountId, list);
}

/** What the commit that wrote a state did (other tabs derive their events from it). */
export type Change = 'login' | 'refresh' | 'logout' | 'expired' | 'revoked' | 'evicted';
const CHANGES: readonly Change[] = ['login', 'refresh', 'logout', 'expired', 'revoked', 'evicted'];

export interface AccountState {
  accountId: string;
  /** Raised by every commit; never lowered (0: nothing stored yet). */
  generation: number;
  /** Id of the current session (one of `sessions`), or null. */
  current: string | null;
  sessions: Session[];
  change: Change;
  /**
   * The logout nonce the commit that wrote this state read (null: none). A logout whose nonce is not
   * this one has not been carried out by this state: it is pending, even when a commit of another tab
   * landed between the logout reading the generation and writing its nonce (absent: an older record,
   * judged by the generation alone).
   */
  under?: string | null;
}

/** An account's state and logout nonce as read at the start of an operation. */
export interface Snapshot {
  state: AccountState;
  logoutNonce: string | null;
  /** A logout was requested and has not committed yet (no refresh should start). */
  logoutPending: boolean;
}

/** What a commit writes; the generation is the snapshot's plus one. */
export type NextState = Pick<AccountState, 'current' | 'sessions' | 'change'>;

export function emptyState(accountId: string): AccountState {
  return { accountId, generation: 0, current: null, sessions: [], change: 'logout' };
}

/** A stored value that is an account state, else undefined (foreign or damaged records are ignored). */
export function parseAccountState(value: unknown, accountId: string): AccountState | undefined {
  if (!isRecord(value) || value.accountId !== accountId || !Array.isArray(value.sessions)) return undefined;
  const { generation, current, change } = value;
  if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 0) return undefined;
  if (!CHANGES.includes(change as Change)) return undefined;
  const sessions = value.sessions.flatMap((s) => parseStoredSession(s) ?? []).filter((s) => s.accountId === accountId);
  const cur = typeof current === 'string' && sessions.some((s) => s.id === current) ? current : null;
  const state: AccountState = { accountId, generation, current: cur, sessions, change: change as Change };
  if (typeof value.under === 'string' || value.under === null) state.under = value.under;
  return state;
}

export async function readSnapshot(meta: MetadataStore, accountId: string): Promise<Snapshot> {
  const [state, logout] = await Promise.all([meta.get(ACCOUNT_PREFIX + accountId), meta.get(LOGOUT_PREFIX + accountId)]);
  const nonce = isRecord(logout) && typeof logout.nonce === 'string' ? logout.nonce : null;
  const parsed = parseAccountState(state, accountId) ?? emptyState(accountId);
  const seen = isRecord(logout) && typeof logout.generation === 'number' ? logout.generation : -1;
  const stale = nonce !== null && parsed.under !== undefined && parsed.under !== nonce;
  return { state: parsed, logoutNonce: nonce, logoutPending: seen >= parsed.generation || stale };
}

/** Every stored account state, read in one pass, and the last account used. */
export async function readAll(meta: MetadataStore): Promise<{ states: AccountState[]; lastAccountId: string | undefined; oldLayout: boolean; ending: string[] }> {
  const states: AccountState[] = [];
  const ending: string[] = [];
  let lastAccountId: string | undefined;
  let oldLayout = false;
  for (const [name, value] of await meta.list()) {
    oldLayout ||= name.startsWith('session:') || name.startsWith('current:');
    if (name.startsWith(ACCOUNT_PREFIX)) {
      const state = parseAccountState(value, name.slice(ACCOUNT_PREFIX.length));
      if (state) states.push(state);
    } else if (name.startsWith(ENDING_PREFIX) && Array.isArray(value) && value.length > 0) {
      ending.push(name.slice(ENDING_PREFIX.length));
    } else if (name === LAST_ACCOUNT && isRecord(value) && typeof value.accountId === 'string') {
      lastAccountId = value.accountId;
    }
  }
  return { states, lastAccountId, oldLayout, ending };
}

/**
 * Writes `next` when the stored generation (and, unless `ignoreLogout`, the logout nonce) is still
 * the snapshot's; returns what it wrote, or undefined when the snapshot is stale (the caller then
 * undoes its own effect). Call inside the account's critical section.
 */
export async function commitState(meta: MetadataStore, from: Snapshot, next: NextState, options: { ignoreLogout?: boolean } = {}): Promise<AccountState | undefined> {
  const now = await readSnapshot(meta, from.state.accountId);
  if (now.state.generation !== from.state.generation) return undefined;
  if (options.ignoreLogout !== true && now.logoutNonce !== from.logoutNonce) return undefined;
  // A logout's commit carries out every logout requested so far; any other commit only the ones
  // its snapshot saw (a commit that ignores the logout nonce leaves a newer logout pending).
  const under = next.change === 'logout' ? now.logoutNonce : from.logoutNonce;
  const state: AccountState = { accountId: from.state.accountId, generation: from.state.generation + 1, ...next, under };
  await meta.put(ACCOUNT_PREFIX + state.accountId, state);
  return state;
}

/**
 * A logout request another tab could not store (it came by message: channel.ts, held.ts), recorded
 * here as if read from storage — unless storage shows it already, or a commit newer than what that
 * logout saw holds sessions (a late message must not log out a later login). A newer state with no
 * sessions is a logout's (or every session dropped): nothing to undo, and it may be a logout this
 * tab holds in memory, which the requesting tab could not see (storage refused it: held.ts), so
 * its generation says nothing of the request's age; refusing it would leave this tab's calls signing (I2).
 */
export async function adoptLogout(meta: MetadataStore, accountId: string, logout: { nonce: string; generation: number }): Promise<boolean> {
  const { state, logoutNonce } = await readSnapshot(meta, accountId);
  if (logoutNonce === logout.nonce || (state.generation > logout.generation && state.sessions.length > 0)) return false;
  await meta.put(LOGOUT_PREFIX + accountId, { nonce: logout.nonce, generation: logout.generation });
  return true;
}

/** Records that a logout of the account was requested (at the generation it sees); returns the new nonce. */
export async function requestLogout(meta: MetadataStore, accountId: string): Promise<string> {
  const { state } = await readSnapshot(meta, accountId);
  const value = randomId();
  await meta.put(LOGOUT_PREFIX + accountId, { nonce: value, generation: state.generation });
  return value;
}
