/**
 * What changes an account's sessions, part one: dropping expired, evicted or revoked sessions, the
 * logout (the rest, login, refresh, other devices, is in changes.ts, loaded on first use), and the
 * context they share. The logout stays here, in the startup code: it must work offline and is run
 * by whichever operation first enters the section while a logout is pending. Each function runs
 * inside the account's critical section (the caller enters it; none of these enter it again) and
 * starts from a snapshot read there; each commit goes through `commitState`, which refuses a stale
 * snapshot.
 */
import { signerFromKey, type Signer } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import { loadBoundKey, type KeyStore, type StoredKey } from '../keys/index.js';
import type { TabChannel } from './channel.js';
import type { SessionHost } from './host.js';
import { expiresAtMs } from './records.js';
import type { ServerClock } from './server-clock.js';
import type { SessionService } from './service.js';
import { commitState, readEnding, readSnapshot, writeEnding, type AccountState, type Change, type Ending, type Snapshot } from './state.js';
import type { Session } from './types.js';
import type { View } from './view.js';

/** Aborts the signing of operations that started before the latest logout request. */
export interface Cancellers {
  track(accountId: string, logoutNonce: string | null): { signal: AbortSignal; done(): void };
  /** Cancels the account's operations that started under another logout nonce. */
  check(accountId: string, logoutNonce: string | null): void;
  /** Accounts with operations tracked now (watched for a logout without a channel: manager.ts). */
  accounts(): string[];
}

export function createCancellers(onTrack: () => void = () => undefined): Cancellers {
  const live = new Map<string, Set<{ nonce: string | null; controller: AbortController }>>();
  return {
    track(accountId, nonce) {
      const entry = { nonce, controller: new AbortController() };
      const set = live.get(accountId) ?? new Set();
      set.add(entry);
      live.set(accountId, set);
      onTrack();
      return {
        signal: entry.controller.signal,
        done: () => {
          set.delete(entry);
          if (set.size === 0 && live.get(accountId) === set) live.delete(accountId);
        },
      };
    },
    accounts() {
      return [...live.keys()];
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
  /** Emits end-refused: the app's backend refused to forward the end of a session still to end (`endWith`). */
  endRefused(accountId: string, sessionId: string, error: WalletError): void;
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

/**
 * Removes the account's expired sessions; returns the ids removed. I6: the server clock estimate
 * only nominates them; the service decides: a session it still lists is kept (its answer's Date
 * header corrects the estimate), and when it cannot be asked nothing is removed now (the caller
 * looks again later; such a session cannot sign anyway: the service refuses an expired one).
 */
export async function expireSessions(ctx: OpsContext, snap: Snapshot): Promise<ReadonlySet<string>> {
  const now = ctx.clock.now();
  const nominated = snap.state.sessions.filter((s) => isExpired(s, now));
  if (nominated.length === 0) return new Set();
  let active: Set<string>;
  try {
    active = new Set((await ctx.service.list(snap.state.accountId)).map((a) => a.id));
  } catch {
    return new Set();
  }
  const gone = new Set(nominated.filter((s) => !active.has(s.id)).map((s) => s.id));
  await removeSessions(ctx, snap, gone, 'expired');
  return gone;
}

/** How long past its expiry (server clock estimate) a session to end is kept: beyond any clock error (I6). */
const ENDING_GRACE_MS = 60 * 60 * 1000;

/**
 * Ends one session with the key kept for it, never asking onBeforeSign (the logout that dropped it
 * was the approval). True when there is nothing left to do: the service ended it or says it is gone
 * (`endWith`), or no key is left, or it could not be ended and is past its expiry by an hour on a
 * clock the service set; false otherwise (kept for the next try).
 */
async function endOne(ctx: OpsContext, accountId: string, e: Ending): Promise<boolean> {
  const key = await ctx.keyStore.get(e.publicKeyHex);
  if (!key) return true;
  // Asked first: the estimate alone (a local clock hours off, before any answer of the service)
  // never drops a session the service still holds (I6); given up only when it cannot be ended.
  if (await endWith(ctx, accountId, e.id, signerFromKey(key))) return true;
  // Before the service told its time (no sample: unreachable since this tab loaded), the estimate
  // is the local clock, which may be hours fast: the end is kept until the service answers (I8).
  return ctx.clock.sampled && ctx.clock.now() > Date.parse(e.expiresAt) + ENDING_GRACE_MS;
}

/**
 * What a failed end of a session means: `gone` (the service says it is not active: nothing left to
 * do), `refused` (the app's backend would not forward it: the session may be active; the user must
 * sign in to the app again), `kept` (anything else: it stays to end and is tried again).
 *
 * Decision (I1, I8), from what the wire reference and the spec guarantee and from the proxy's own
 * documented answers (src/proxy/responses.ts), never from a message:
 * - `404` is the one answer the wire reference gives `DELETE /auth/sessions/{id}` for a session that
 *   is not active (unknown, expired, revoked; the sandbox answers it on either leg). The proxy's own
 *   404 `SESSION_NOT_FOUND` says the same of the signed-in user's wallets (its lookup lists their
 *   active sessions); its `NOT_FOUND` is for a route off its allowlist, and this one is on it.
 * - `401 LOGIN_REQUIRED` is the proxy's (no signed-in user: the app's own login expired), and a
 *   `403` is never the service's (its statuses in use, spec §7, include none): the proxy's
 *   `FORBIDDEN` / `OWNER_UNKNOWN` or the app's `authorize` hook. Either way the service was not asked.
 * - Every other answer leaves the session to end: offline, a timeout, 408, 429, 5xx, and the other
 *   4xx (the service's 401s — the platform's credentials, a signature the service did not accept,
 *   e.g. a session that ended between the two legs, which the next try's first leg answers 404 —,
 *   400, 409, 422): none of them says the session is gone.
 */
export function endFailure(error: unknown): 'gone' | 'refused' | 'kept' {
  if (!isWalletError(error)) return 'kept';
  if (error.status === 404) return 'gone';
  return error.status === 403 || (error.status === 401 && error.code === 'LOGIN_REQUIRED') ? 'refused' : 'kept';
}

/**
 * Ends a session signed by `signer` without a prompt; true when nothing is left to do (ended, or the
 * service says it is gone: `endFailure`). A refusal by the app's backend is told to the app
 * (`end-refused`) and, like every other failure, leaves it to end (false).
 */
export async function endWith(ctx: OpsContext, accountId: string, sessionId: string, signer: Signer): Promise<boolean> {
  try {
    await ctx.service.end(sessionId, signer, { automatic: true, approved: true });
    return true;
  } catch (error) {
    const failure = endFailure(error);
    if (failure === 'refused') ctx.endRefused(accountId, sessionId, error as WalletError);
    return failure === 'gone';
  }
}

/**
 * Finishes the account's pending ends (I8): each session to end is ended on the service with the key
 * kept for it; the keys of those done are deleted, the others stay listed for the next try (a
 * logout, a page coming back, the next load). Inside the account's section.
 */
export async function finishEnding(ctx: OpsContext, accountId: string): Promise<void> {
  const { meta } = ctx.keyStore;
  const list = await readEnding(meta, accountId);
  if (list.length === 0) return;
  const left: Ending[] = [];
  const done: Ending[] = [];
  for (const e of list) ((await endOne(ctx, accountId, e)) ? done : left).push(e);
  if (done.length === 0) return;
  await writeEnding(meta, accountId, left);
  for (const e of done) {
    await ctx.keyStore.delete(e.publicKeyHex).catch(() => undefined);
    ctx.keyStore.invalidate(e.publicKeyHex);
  }
}

/** Adds sessions to the account's pending ends (their keys are kept for that alone). */
export async function addEnding(ctx: OpsContext, accountId: string, add: readonly Ending[]): Promise<void> {
  if (add.length === 0) return;
  const list = await readEnding(ctx.keyStore.meta, accountId);
  const known = new Set(list.map((e) => e.id));
  await writeEnding(ctx.keyStore.meta, accountId, [...list, ...add.filter((e) => !known.has(e.id))]);
}

/**
 * Keys of the account that name a session no state or pending end holds: a login or refresh whose
 * tab closed between storing its key and committing. Only safe to call where no commit of the
 * account can be in flight (logout, holding every lock of the account).
 */
async function orphansOf(ctx: OpsContext, accountId: string, held: ReadonlySet<string>): Promise<Ending[]> {
  const ending = new Set((await readEnding(ctx.keyStore.meta, accountId)).map((e) => e.publicKeyHex));
  const keys = await ctx.keyStore.list({ purpose: 'session' }).catch(() => []);
  return keys
    .filter((k) => k.accountId === accountId && k.sessionId !== undefined && !held.has(k.publicKeyHex) && !ending.has(k.publicKeyHex))
    .map((k) => ({ id: k.sessionId!, publicKeyHex: k.publicKeyHex, expiresAt: new Date(k.createdAt + ENDING_GRACE_MS).toISOString() }));
}

/**
 * Ends the sessions of the account's orphan keys (keys that name a session no state or pending end
 * holds: a refresh or login whose tab closed between storing its key and committing): they become
 * pending ends, then the account's pending ends are finished (I8). Only where no commit of the
 * account can be in flight: holding its refresh lock (a refresh stores its key before entering the
 * section) and its section (a login stores its key inside it).
 */
export async function endOrphans(ctx: OpsContext, snap: Snapshot): Promise<void> {
  const { accountId } = snap.state;
  await addEnding(ctx, accountId, await orphansOf(ctx, accountId, new Set(snap.state.sessions.map((s) => s.publicKeyHex))));
  await finishEnding(ctx, accountId);
}

/**
 * Logs the account out here: the stored state is emptied (the logout wins over any generation), the
 * sessions it held become pending ends (keys kept for that alone), then they are ended on the service
 * (finishEnding: no prompt, no user waited on). Run by the logout, or by whichever operation first
 * enters the section while a logout is pending (the tab that asked may be waiting behind it, or
 * closed). `sweep` (the logout itself, holding the login and refresh locks): keys of the account no
 * state names are ended too.
 */
export async function endAll(ctx: OpsContext, snap: Snapshot, options: { sweep?: boolean } = {}): Promise<boolean> {
  const { accountId } = snap.state;
  const held = snap.state.sessions;
  const orphans = options.sweep === true ? await orphansOf(ctx, accountId, new Set(held.map((s) => s.publicKeyHex))) : [];
  const toEnd: Ending[] = [...held.map((s) => ({ id: s.id, publicKeyHex: s.publicKeyHex, expiresAt: s.expiresAt })), ...orphans];
  let written: AccountState | undefined;
  if (held.length > 0 || snap.logoutPending) {
    // Recorded before the state is emptied: a tab closing in between leaves them to end, not lost.
    await addEnding(ctx, accountId, toEnd);
    // The logout wins: it writes over whatever generation it finds.
    for (let from = snap; !written; from = await readSnapshot(ctx.keyStore.meta, accountId)) {
      written = await commitState(ctx.keyStore.meta, from, { sessions: [], current: null, change: 'logout' }, { ignoreLogout: true });
    }
    for (const s of held) ctx.keyStore.invalidate(s.publicKeyHex);
    committed(ctx, written);
  } else {
    await addEnding(ctx, accountId, orphans);
  }
  await finishEnding(ctx, accountId);
  return held.length > 0;
}
