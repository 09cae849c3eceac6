/**
 * Signing out other devices (`manager.signOutOtherDevices`): the list read under the locks, the ends
 * outside them (I4). Loaded with changes.ts, on first use.
 */
import type { Signer } from '../crypto/index.js';
import type { AuthSession } from '../types.js';
import type { CriticalSections } from './critical-section.js';
import type { OpsContext } from './operations.js';
import { keyIn, refused, type RunInSection } from './refusal.js';
import type { Snapshot } from './state.js';
import type { Session, SigningTicket } from './types.js';
import { currentOf } from './view.js';

/**
 * The account's active sessions on the service that this browser does not hold, read in the
 * section (the caller holds the login lock exclusively: no login of this browser is in flight).
 */
export async function othersOf(ctx: OpsContext, snap: Snapshot): Promise<{ others: AuthSession[]; current: Session; logoutNonce: string | null }> {
  const cur = currentOf(snap.state);
  if (!cur) throw ctx.noSession(snap.state.accountId);
  await keyIn(ctx, snap, cur);
  const mine = new Set(snap.state.sessions.map((s) => s.id));
  try {
    const others = (await ctx.service.list(snap.state.accountId)).filter((a) => !mine.has(a.id));
    return { others, current: cur, logoutNonce: snap.logoutNonce };
  } catch (error) {
    throw await refused(ctx, snap, cur, error);
  }
}

/**
 * Ends `others` on the service, outside every lock (each end is a signature the user may be asked
 * to approve: I4), each signed by the session current when it is sent (`signer`, re-checked after
 * the prompt: I2, I3); how many were ended. A logout cancels what is not sent yet.
 */
export async function endOthers(
  ctx: OpsContext,
  found: { others: AuthSession[]; current: Session; logoutNonce: string | null },
  deps: { signer: () => Promise<{ session: Session; signer: Signer }>; run: RunInSection },
): Promise<number> {
  const accountId = found.current.accountId;
  const guard = ctx.cancellers.track(accountId, found.logoutNonce);
  let count = 0;
  try {
    for (const other of found.others) {
      let used = found.current;
      try {
        const ended = await ctx.service.end(
          other.id,
          async () => {
            const r = await deps.signer();
            used = r.session;
            return r.signer;
          },
          { signingSignal: guard.signal },
        );
        if (ended) count++;
      } catch (error) {
        if (guard.signal.aborted) throw guard.signal.reason;
        const u = used;
        throw await deps.run(accountId, (s) => refused(ctx, s, u, error));
      }
    }
    return count;
  } finally {
    guard.done();
  }
}

/**
 * `manager.signOutOtherDevices`: logins and a refresh in flight (any tab) first, their sessions are
 * this browser's, not other devices'. The list is read under the locks; the ends, which the user may
 * have to approve, run outside them (I4), each signed by the session current when it is sent.
 */
export async function signOutOthers(
  ctx: OpsContext,
  account: string,
  deps: { sections: CriticalSections; run: RunInSection; resolve: (accountId: string, opts: undefined, ticket: SigningTicket) => Promise<{ session: Session; signer: Signer }> },
): Promise<number> {
  const { sections, run } = deps;
  const found = await sections.logins(account, 'exclusive', () => sections.refreshing(account, () => run(account, (snap) => othersOf(ctx, snap))));
  const ticket = { accountId: account, logoutNonce: found.logoutNonce, signal: new AbortController().signal, done: () => undefined };
  return endOthers(ctx, found, { signer: () => deps.resolve(account, undefined, ticket), run });
}
