/**
 * What changes an account's sessions, part one: dropping expired, evicted or revoked sessions, the
 * logout (the rest, login, refresh, other devices, is in changes.ts, loaded on first use), and the
 * context they share. The logout stays here, in the startup code: it must work offline and is run
 * by whichever operation first enters the section while a logout is pending. Each function runs
 * inside the account's critical section (the caller enters it; none of these enter it again) and
 * starts from a snapshot read there; each commit goes through `commitState`, which refuses a stale
 * snapshot.
 */
import { signerFromKey } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import { loadBoundKey, type KeyStore, type StoredKey } from '../keys/index.js';
import type { TabChannel } from './channel.js';
import type { SessionHost } from './host.js';
import { expiresAtMs } from './records.js';
import type { ServerClock } from './server-clock.js';
import type { SessionService } from './service.js';
import { commitState, readSnapshot, type AccountState, type Change, type Snapshot } from './state.js';
import type { Session } from './types.js';
import type { View } from './view.js';

/** Aborts the signing of operations that started before the latest logout request. */
export interface Cancellers {
  track(accountId: string, logoutNonce: string | null): { signal: AbortSignal; done(): void };
  /** Cancels the account's operations that started under another logout nonce. */
  check(accountId: string, logoutNonce: string | null): void;
}

export function createCancellers(): Cancellers {
  const live = new Map<string, Set<{ nonce: string | null; controller: AbortController }>>();
  return {
    track(accountId, nonce) {
      const entry = { nonce, controller: new AbortController() };
      const set = live.get(accountId) ?? new Set();
      set.add(entry);
      live.set(accountId, set);
      return { signal: entry.controller.signal, done: () => set.delete(entry) };
    },
    check(accountId, nonce) {
      for (const entry of live.get(accountId) ?? []) {
        if (entry.nonce !== nonce) entry.controller.abort(new WalletError('NOT_LOGGED_IN', 'a logout cancelled this operation'));
      }
    },
  };
}

export interface OpsContext {
  keyStore: KeyStore;
  service: SessionService;
  host: SessionHost;
  view: View;
  channel: TabChannel;
  clock: ServerClock;
  cancellers: Cancellers;
  /** Emits refresh-failed. */
  refreshFailed(session: Session, error: WalletError): void;
  /** The error for an account without a current session (says why its last one ended). */
  noSession(accountId: string): WalletError;
  /** Accounts whose logout this tab asked for (their `logged-out` says `user`, else `other-tab`). */
  loggingOut: ReadonlySet<string>;
}

export const isExpired = (s: Session, now: number): boolean => now >= expiresAtMs(s);

/** The best remaining session to make current: the unexpired one that lasts longest. */
export function successor(sessions: Session[], now: number): Session | undefined {
  return sessions.filter((s) => !isExpired(s, now)).sort((a, b) => expiresAtMs(b) - expiresAtMs(a))[0];
}

/** Records a commit of this tab: the picture follows, other tabs are told. */
export function committed(ctx: OpsContext, state: AccountState): void {
  ctx.view.apply(state, { local: state.change !== 'logout' || ctx.loggingOut.has(state.accountId) });
  ctx.channel.post(state.accountId);
}

/** Removes sessions (expired, revoked, evicted): another becomes current, or the account has none. */
export async function removeSessions(ctx: OpsContext, snap: Snapshot, ids: ReadonlySet<string>, change: Change): Promise<void> {
  const gone = snap.state.sessions.filter((s) => ids.has(s.id));
  if (gone.length === 0) return;
  const rest = snap.state.sessions.filter((s) => !ids.has(s.id));
  const keep = rest.some((s) => s.id === snap.state.current) ? snap.state.current : null;
  const written = await commitState(ctx.keyStore.meta, snap, { sessions: rest, current: keep ?? successor(rest, ctx.clock.now())?.id ?? null, change });
  if (!written) return; // a newer state (or a logout) took over: whoever comes next starts from it
  for (const s of gone) {
    await ctx.keyStore.delete(s.publicKeyHex).catch(() => undefined);
    ctx.keyStore.invalidate(s.publicKeyHex);
  }
  committed(ctx, written);
}

/** Removes every expired session of the account. */
export async function expireSessions(ctx: OpsContext, snap: Snapshot): Promise<void> {
  const now = ctx.clock.now();
  await removeSessions(ctx, snap, new Set(snap.state.sessions.filter((s) => isExpired(s, now)).map((s) => s.id)), 'expired');
}

/** The session's key; an expired session or a missing key is removed (SESSION_EXPIRED, KEY_EVICTED). */
export async function keyIn(ctx: OpsContext, snap: Snapshot, s: Session): Promise<StoredKey> {
  if (isExpired(s, ctx.clock.now())) {
    await removeSessions(ctx, snap, new Set([s.id]), 'expired');
    throw new WalletError('SESSION_EXPIRED', `${s.id} expired`);
  }
  try {
    return await loadBoundKey(ctx.keyStore, s, ctx.clock.now());
  } catch (error) {
    if (isWalletError(error, 'KEY_EVICTED')) await removeSessions(ctx, snap, new Set([s.id]), 'evicted');
    throw error;
  }
}

/**
 * Ends every session of the account held here (service first, best effort), then drops them. Run by
 * the logout, or by whichever operation first enters the section while a logout is pending (the tab
 * that asked may be waiting behind it, or closed).
 */
export async function endAll(ctx: OpsContext, snap: Snapshot): Promise<boolean> {
  const held = snap.state.sessions;
  if (held.length === 0) return false;
  const now = ctx.clock.now();
  await Promise.allSettled(
    held.filter((s) => !isExpired(s, now)).map(async (s) => {
      const key = await ctx.keyStore.get(s.publicKeyHex);
      if (key) await ctx.service.end(s.id, signerFromKey(key));
    }),
  );
  // The logout wins: it writes over whatever generation it finds (only the realm-lock fallback lets
  // another tab commit in between).
  let written: AccountState | undefined;
  for (let from = snap; !written; from = await readSnapshot(ctx.keyStore.meta, snap.state.accountId)) {
    written = await commitState(ctx.keyStore.meta, from, { sessions: [], current: null, change: 'logout' }, { ignoreLogout: true });
  }
  for (const s of held) {
    await ctx.keyStore.delete(s.publicKeyHex).catch(() => undefined);
    ctx.keyStore.invalidate(s.publicKeyHex);
  }
  committed(ctx, written);
  return true;
}
