/**
 * How the actions sign. Three shapes:
 * - {@link signedNow}: the action always needs a wallet signature, so the session is resolved before
 *   the first request (not logged in, expired, evicted key, no session of another credential: all
 *   fail with no request sent), and its key answers every challenge.
 * - {@link signedIfAsked} (the session layer's `signedWithSession`): the service may answer at once
 *   (a contact change that touches no OTP credential), so the session is resolved only when a
 *   challenge arrives.
 * - {@link signedForAccount}: like signedNow when this browser holds a session of the account (only
 *   embedded wallets have sessions, so a signature will be asked for: an expired session fails
 *   before any request), like signedIfAsked when it holds none (the account may be one that
 *   answers at once).
 * In every case the transport shows every payload to `onBeforeSign` first, and a refusal that means
 * "this session is gone" becomes SESSION_REVOKED (the session manager's `rejected`).
 */
import { isWalletError } from '../errors.js';
import { signedBySession, signedWithSession, type Session, type SessionCallOptions, type SignerOptions, type WalletContext } from '../session/index.js';

export async function signedNow<T>(
  ctx: WalletContext,
  who: { accountId: string } & SignerOptions,
  request: SessionCallOptions,
): Promise<{ answer: T; session: Session }> {
  const options: SignerOptions = who.excludeCredentialId !== undefined ? { excludeCredentialId: who.excludeCredentialId } : {};
  // Resolved first so that a call that cannot be signed fails with no request sent; the signature
  // itself is made with the session current after the prompt, bound to the logout nonce (session/
  // signed-call.ts, invariants I2 and I3).
  const { session } = await ctx.sessions.resolve(who.accountId, options);
  const done = await signedBySession<T>(ctx.client, ctx.sessions, who, request);
  return { answer: done.answer, session: done.session ?? session };
}

export async function signedForAccount<T>(ctx: WalletContext, accountId: string, request: SessionCallOptions): Promise<T> {
  try {
    await ctx.sessions.resolve(accountId);
  } catch (error) {
    if (isWalletError(error, 'NOT_LOGGED_IN')) return signedIfAsked<T>(ctx, accountId, request);
    throw error;
  }
  return (await signedBySession<T>(ctx.client, ctx.sessions, { accountId }, request)).answer;
}

export function signedIfAsked<T>(ctx: WalletContext, accountId: string | undefined, request: SessionCallOptions): Promise<T> {
  return signedWithSession<T>(ctx.client, ctx.sessions, accountId !== undefined ? { accountId } : {}, request);
}
