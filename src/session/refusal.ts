/**
 * What the session changes (changes.ts) and signing out other devices (sign-out-others.ts) share: the
 * session's key, held or removed, and the verdict on a refused signature (expired, revoked, or the
 * error as it is: I6). Loaded with changes.ts, on first use.
 */
import { WalletError, isWalletError } from '../errors.js';
import { loadBoundKey, type StoredKey } from '../keys/index.js';
import { expireSessions, isExpired, removeSessions, type OpsContext } from './operations.js';
import type { Snapshot } from './state.js';
import type { Session } from './types.js';

/** Runs `fn` in the account's critical section (the manager's `run`). */
export type RunInSection = <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>) => Promise<T>;

/** The session's key; an expired session (checked with the service) or a missing key is removed (SESSION_EXPIRED, KEY_EVICTED). */
export async function keyIn(ctx: OpsContext, snap: Snapshot, s: Session): Promise<StoredKey> {
  if (isExpired(s, ctx.clock.now()) && (await expireSessions(ctx, snap)).has(s.id)) {
    throw new WalletError('SESSION_EXPIRED', `${s.id} expired`);
  }
  try {
    // Expiry was judged just above (with the service when the estimate said so).
    return await loadBoundKey(ctx.keyStore, { publicKeyHex: s.publicKeyHex });
  } catch (error) {
    if (isWalletError(error, 'KEY_EVICTED')) await removeSessions(ctx, snap, new Set([s.id]), 'evicted');
    throw error;
  }
}

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

/** `manager.rejected` once this module is loaded: the service's verdict on a refused signature (I6). */
export async function rejected(ctx: OpsContext, session: Session, error: WalletError, run: RunInSection): Promise<WalletError> {
  const verdict = await judge(ctx, session, error);
  if (verdict === undefined) return error;
  await run(session.accountId, (snap) => removeSessions(ctx, snap, new Set([session.id]), verdict));
  return rejection(verdict, session, error);
}
