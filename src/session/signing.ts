/**
 * What a tab signs with (the manager's second part, on tab.ts): the account's current session and
 * its signer, picked in the section (signer-pick.ts); a signed call's ticket, bound to the account's
 * logout nonce when the call starts (I2); a signer the app keeps, which re-reads storage before each
 * signature; and the service's verdict on a refused signature (I6).
 */
import type { Signer } from '../crypto/index.js';
import { WalletError } from '../errors.js';
import { createSignerPicker } from './signer-pick.js';
import { readSnapshot } from './state.js';
import type { Tab } from './tab.js';
import type { ManagedSessions, Session, SignerOptions, SigningTicket } from './types.js';

export type Signing = Pick<ManagedSessions, 'signingTicket' | 'signer' | 'resolve' | 'resolveFor' | 'rejected'>;

export function createSigning(tab: Tab): Signing {
  const { ctx, view, cancellers } = tab;
  const meta = ctx.keyStore.meta;
  const pickSigner = createSignerPicker({ ctx, view, serverNow: tab.serverNow, observe: tab.observe, run: tab.run, noSession: ctx.noSession });

  async function resolve(accountId?: string, opts?: SignerOptions, ticket?: SigningTicket): Promise<{ session: Session; signer: Signer }> {
    await tab.ready(ticket?.accountId ?? accountId);
    const account = tab.accountOf(ticket?.accountId ?? accountId);
    const picked = await pickSigner(account, opts, ticket);
    tab.lastAccountId = account;
    tab.schedule.plan(account);
    return picked;
  }

  return {
    async signingTicket(accountId) {
      // Bound to the logout nonce when the call starts (I2): for a named account it is read before
      // waiting for this tab's load, so a logout requested meanwhile (another tab) cancels the call.
      // The default account (no accountId given) is known only once loaded.
      const named = accountId === undefined ? undefined : readSnapshot(meta, accountId).catch(() => undefined);
      await tab.ready(accountId);
      let account: string | undefined;
      try {
        account = tab.accountOf(accountId);
      } catch {
        account = undefined; // resolve() throws the right error at the first challenge
      }
      // Untracked, carrying the account as asked: an invalid one (not a non-empty string) fails
      // INVALID_ARGUMENT at resolveFor, never signs for the default account instead.
      if (account === undefined) return { accountId, logoutNonce: null, signal: new AbortController().signal, done: () => undefined };
      // A named account that is valid is the account (an invalid one returned above).
      const started = (await named) ?? (await readSnapshot(meta, account));
      const guard = cancellers.track(account, started.logoutNonce);
      // A logout requested while the load was awaited cancels the call now.
      cancellers.check(account, (await readSnapshot(meta, account)).logoutNonce);
      return { accountId: account, logoutNonce: started.logoutNonce, signal: guard.signal, done: guard.done };
    },
    async signer(accountId, opts) {
      const { session, signer } = await resolve(accountId, opts);
      const bound = (await readSnapshot(meta, session.accountId)).logoutNonce;
      // The app may keep it: each signature first re-reads storage, and none is made once a logout
      // of the account was requested (any tab) or its session is no longer held here (I2).
      return {
        publicKeyHex: signer.publicKeyHex,
        async sign(data) {
          const snap = await readSnapshot(meta, session.accountId);
          if (snap.logoutPending || snap.logoutNonce !== bound || !snap.state.sessions.some((s) => s.id === session.id)) {
            throw new WalletError('NOT_LOGGED_IN', `${session.id} is no longer held here: nothing is signed with it`);
          }
          return signer.sign(data);
        },
      };
    },
    resolve: (accountId, opts) => resolve(accountId, opts),
    resolveFor: (ticket, opts) => resolve(ticket.accountId, opts, ticket),
    async rejected(session, error) {
      if (!view.get(session.accountId).sessions.some((s) => s.id === session.id)) return error;
      // Without the judging code (it could not be downloaded) the error stands, as when the
      // service cannot be asked.
      const m = await tab.withChanges(async (loaded) => loaded).catch(() => undefined);
      if (m === undefined) return error;
      return m.rejected(ctx, session, error, tab.run);
    },
  };
}
