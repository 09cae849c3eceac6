/**
 * Which session signs a call, and its key (the manager's `resolve`): the account's current session
 * as stored when the signature is made (I3), never one a logout has doomed (I2), an expiry only when
 * the service agrees (I6), an evicted key's session dropped.
 */
import { signerFromKey, type Signer } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import { loadBoundKey } from '../keys/index.js';
import { expireSessions, removeSessions, type OpsContext } from './operations.js';
import { expiresAtMs } from './records.js';
import type { RunInSection } from './refusal.js';
import { readSnapshot, type Snapshot } from './state.js';
import type { Session, SignerOptions, SigningTicket } from './types.js';
import { pickSession, type View } from './view.js';

export interface SignerPickDeps {
  ctx: OpsContext;
  view: View;
  serverNow: () => number;
  /** Reads the account's stored state (the view follows, stale operations are cancelled). */
  observe: (accountId: string) => Promise<Snapshot>;
  run: RunInSection;
  noSession: (accountId: string) => WalletError;
}

/** The picker: `(account, opts, ticket)` → the session that signs now, and its signer. */
export function createSignerPicker(deps: SignerPickDeps): (account: string, opts: SignerOptions | undefined, ticket: SigningTicket | undefined) => Promise<{ session: Session; signer: Signer }> {
  return async (account: string, opts: SignerOptions | undefined, ticket: SigningTicket | undefined): Promise<{ session: Session; signer: Signer }> => {
    // A commit elsewhere between picking the session and holding its key (a refresh, a login):
    // pick again, so the session that signs is the one current when the signature is made (I3).
    for (let attempt = 0; ; attempt++) {
      const picked = await pickOnce(deps, account, opts, ticket);
      const now = await readSnapshot(deps.ctx.keyStore.meta, account);
      const still = opts?.excludeCredentialId === undefined ? now.state.current === picked.session.id : now.state.sessions.some((s) => s.id === picked.session.id);
      // A logout requested meanwhile (any tab): no signer, however many commits came before it (I2).
      if (now.logoutNonce !== picked.logoutNonce) throw new WalletError('NOT_LOGGED_IN', `a logout of ${account} cancelled this signature`);
      if (still || attempt >= 3) return { session: picked.session, signer: picked.signer };
    }
  };
}

async function pickOnce(deps: SignerPickDeps, account: string, opts: SignerOptions | undefined, ticket: SigningTicket | undefined): Promise<{ session: Session; signer: Signer; logoutNonce: string | null }> {
  const { ctx, view, serverNow, observe, run, noSession } = deps;
  // Another tab may have logged out or refreshed without this one hearing of it yet.
  const snap = await observe(account);
  // A logout requested (here or in any tab) since the call started, or not finished yet: nothing
  // is signed for the account (I2).
  if (snap.logoutPending || (ticket !== undefined && ticket.accountId === account && snap.logoutNonce !== ticket.logoutNonce)) {
    throw new WalletError('NOT_LOGGED_IN', `a logout of ${account} cancelled this signature`);
  }
  const session = pickSession(view.get(account), opts, serverNow(), noSession);
  // I6: expired on the estimate → asked of the service; SESSION_EXPIRED only when it agrees.
  if (serverNow() >= expiresAtMs(session)) {
    const gone = await run(account, (s) => expireSessions(ctx, s));
    if (gone.has(session.id)) throw new WalletError('SESSION_EXPIRED', `${session.id} expired`);
  }
  const held = (): boolean => view.get(account).sessions.some((s) => s.id === session.id);
  // Dropped meanwhile (an expiry or logout that another operation committed): say why.
  if (!held()) throw noSession(account);
  let key;
  try {
    key = await loadBoundKey(ctx.keyStore, { publicKeyHex: session.publicKeyHex });
  } catch (error) {
    if (isWalletError(error, 'KEY_EVICTED')) {
      await run(account, (s) => removeSessions(ctx, s, new Set([session.id]), 'evicted'));
      // Its key was deleted because the session ended meanwhile, not evicted by the browser.
      if (view.ended(account) !== undefined && !held()) throw noSession(account);
    }
    throw error;
  }
  return { session, signer: signerFromKey(key), logoutNonce: snap.logoutNonce };
}
