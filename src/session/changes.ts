/**
 * What changes an account's sessions, part two: a login's commit, the refresh, signing out other
 * devices, and judging a refusal. Same rules as operations.ts: inside the section, from a snapshot,
 * through `commitState`.
 *
 * Loaded on first use (a chunk of its own, not in the startup download: restoring sessions and
 * signing never need it). The manager loads it before the operation enters the account's queue and
 * lock (manager.ts, `withChanges`), never inside the critical section, so a slow or failed download
 * holds no lock and cannot delay a logout; nothing here enters the section itself.
 */
import { signerFromKey, type SessionKey } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import type { AuthSession } from '../types.js';
import { committed, isExpired, keyIn, removeSessions, type OpsContext } from './operations.js';
import { sessionFromAnswer } from './records.js';
import { LAST_ACCOUNT, commitState, type AccountState, type Snapshot } from './state.js';
import type { KeyPlan, LoginTicket, Session } from './types.js';
import { currentOf } from './view.js';

/**
 * What a refusal of a signed call made with `session` means: 'expired' (the answer's Date showed it),
 * 'revoked' (the service no longer lists it), or undefined (the error stands as it is).
 */
export async function judge(ctx: OpsContext, session: Session, error: WalletError): Promise<'expired' | 'revoked' | undefined> {
  const suspicious = (error.status === 401 && error.code === 'WALLET_SIGNATURE_INVALID') || (error.status === 404 && error.code === 'SESSION_NOT_FOUND');
  if (!suspicious) return undefined;
  if (isExpired(session, ctx.clock.now())) return 'expired';
  try {
    const active = await ctx.service.list(session.accountId);
    return active.some((a) => a.id === session.id) ? undefined : 'revoked';
  } catch {
    return undefined;
  }
}

export function rejection(verdict: 'expired' | 'revoked', session: Session, cause: WalletError): WalletError {
  const status = cause.status !== undefined ? { status: cause.status } : {};
  return verdict === 'expired'
    ? new WalletError('SESSION_EXPIRED', `${session.id} expired`, { cause, ...status })
    : new WalletError('SESSION_REVOKED', `the service no longer accepts ${session.id}`, { cause, ...status });
}

/** Judges a refusal inside the section and drops the session when it is gone; returns the error to throw. */
export async function refused(ctx: OpsContext, snap: Snapshot, session: Session, error: unknown): Promise<unknown> {
  if (!isWalletError(error)) return error;
  const verdict = await judge(ctx, session, error);
  if (verdict === undefined) return error;
  await removeSessions(ctx, snap, new Set([session.id]), verdict);
  return rejection(verdict, session, error);
}

/**
 * Stores a session a login made and makes it current. With the login's ticket, a logout requested
 * since the login started wins: the session is ended on the service (signed with its own key, best
 * effort), its key dropped, NOT_LOGGED_IN thrown. Without one, the login commits.
 */
export async function addSession(ctx: OpsContext, snap: Snapshot, session: Session, key: SessionKey, ticket?: LoginTicket): Promise<void> {
  await ctx.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: session.accountId, sessionId: session.id });
  const sessions = [...snap.state.sessions.filter((s) => s.id !== session.id), session];
  const from = ticket ? { ...snap, logoutNonce: ticket.logoutNonce } : snap;
  const written = await commitState(ctx.keyStore.meta, from, { sessions, current: session.id, change: 'login' }, { ignoreLogout: !ticket });
  if (!written) {
    await ctx.keyStore.delete(key.publicKeyHex).catch(() => undefined);
    await ctx.service.end(session.id, signerFromKey(key), { automatic: true }).catch(() => undefined);
    throw new WalletError('NOT_LOGGED_IN', 'a logout came while this login was on its way: the session it made was ended');
  }
  await ctx.keyStore.meta.put(LAST_ACCOUNT, { accountId: session.accountId }).catch(() => undefined);
  committed(ctx, written);
}

/** What a refresh did: the session now current, and the end of the one it replaced (to run after). */
export interface RefreshResult {
  session: Session;
  retire?: () => Promise<void>;
}

/**
 * Refreshes the account's current session: a new key, the signed refresh, then a commit that checks
 * the snapshot. A stale commit (a logout came) undoes itself: the new session is ended on the
 * service (signed with the old key, which the service still accepts: the logout waits for this
 * section) and its key dropped. `automatic`: only if still due (another tab may have refreshed
 * while this one waited), and onBeforeSign gets the short automatic bound.
 */
export async function refreshSession(ctx: OpsContext, snap: Snapshot, options: { plan: KeyPlan | undefined; automatic: boolean; dueAt: (s: Session) => number }): Promise<RefreshResult> {
  const cur = currentOf(snap.state);
  if (!cur) throw ctx.noSession(snap.state.accountId);
  if (options.automatic && ctx.clock.now() < options.dueAt(cur)) return { session: cur };
  if (snap.logoutPending) throw new WalletError('NOT_LOGGED_IN', 'a logout of this account is in progress');
  const oldKey = await keyIn(ctx, snap, cur);
  const oldSigner = signerFromKey(oldKey);
  const guard = ctx.cancellers.track(snap.state.accountId, snap.logoutNonce);
  try {
    const plan = options.plan ?? (await ctx.host.newKeyPlan());
    let answer: AuthSession;
    try {
      answer = await ctx.service.refresh(cur.id, plan.clientPublicKey, oldSigner, { automatic: options.automatic, signingSignal: guard.signal });
    } catch (error) {
      if (guard.signal.aborted) throw guard.signal.reason;
      const e = await refused(ctx, snap, cur, error);
      if (isWalletError(e)) ctx.refreshFailed(cur, e);
      throw e;
    }
    let key: SessionKey | undefined;
    let written: AccountState | undefined;
    let next: Session | undefined;
    try {
      key = await plan.finish(answer);
      ctx.clock.observeServerTime(Date.parse(answer.createdAt));
      next = sessionFromAnswer(answer, { ...cur, publicKeyHex: key.publicKeyHex, legacy: plan.legacy }, ctx.clock.now());
      await ctx.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: next.accountId, sessionId: next.id });
      const sessions = [...snap.state.sessions.filter((s) => s.id !== cur.id), next];
      written = await commitState(ctx.keyStore.meta, snap, { sessions, current: next.id, change: 'refresh' });
    } finally {
      if (!written) {
        // Undo: the session this refresh created must not outlive it (best effort).
        if (key) await ctx.keyStore.delete(key.publicKeyHex).catch(() => undefined);
        await ctx.service.end(answer.id, oldSigner, { automatic: true }).catch(() => undefined);
      }
    }
    if (!written) throw new WalletError('NOT_LOGGED_IN', 'a logout came while the refresh was on its way: the session it created was ended');
    await ctx.keyStore.delete(cur.publicKeyHex).catch(() => undefined);
    ctx.keyStore.invalidate(cur.publicKeyHex);
    committed(ctx, written);
    // One slot per browser: the replaced session is ended on the service, after the new one is in.
    return { session: next!, retire: async () => void (await ctx.service.end(cur.id, oldSigner, { automatic: true }).catch(() => undefined)) };
  } finally {
    guard.done();
  }
}

/** Ends the account's active sessions that this browser does not hold; how many. */
export async function endOthers(ctx: OpsContext, snap: Snapshot): Promise<number> {
  const cur = currentOf(snap.state);
  if (!cur) throw ctx.noSession(snap.state.accountId);
  const signer = signerFromKey(await keyIn(ctx, snap, cur));
  const mine = new Set(snap.state.sessions.map((s) => s.id));
  let others: AuthSession[];
  try {
    others = (await ctx.service.list(snap.state.accountId)).filter((a) => !mine.has(a.id));
  } catch (error) {
    throw await refused(ctx, snap, cur, error);
  }
  let count = 0;
  for (const other of others) {
    try {
      if (await ctx.service.end(other.id, signer)) count++;
    } catch (error) {
      throw await refused(ctx, snap, cur, error);
    }
  }
  return count;
}
