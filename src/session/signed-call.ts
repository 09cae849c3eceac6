/**
 * A signed-retry call made with a session of this browser: the helper every signed action uses.
 * The session is resolved only when the service asks for a signature (an answer that needs none
 * needs no session), and a refusal that means "this session is gone" becomes SESSION_REVOKED.
 */
import { WalletError, isWalletError } from '../errors.js';
import type { Client, SignedRequestOptions } from '../transport/index.js';
import type { ManagedSessions, Session, SignerOptions, SigningTicket } from './types.js';

/**
 * How many times a call starts over when the service refused its signed leg because this browser's
 * own refreshes replaced the session that signed it (I3): each refusal so explained starts it over,
 * up to this many times; the next is SESSION_REPLACED_DURING_CALL. Three: a session is refreshed when
 * a third of its life is left, so four refreshes during one call mean a leg slower than any refresh
 * (or a tab refreshing by hand in a loop): starting over again would not end.
 */
export const MAX_RESTARTS = 3;

/** A signed call's options, less the signer: {@link signedWithSession} signs with a session. */
export type SessionCallOptions = Omit<SignedRequestOptions, 'signer' | 'getSigner'>;

/**
 * A signed-retry call (`client.signed`) signed with a session of this browser: the account's current
 * one (`who.accountId`, default the account used last), resolved when the service asks for a
 * signature and again after onBeforeSign answered (the session current when the leg is sent signs:
 * I3). The call is bound to the account's logout nonce when it starts: a logout requested after
 * that, in any tab, cancels its prompt and refuses its signature (NOT_LOGGED_IN) if not sent yet
 * (I2). A signed leg refused because the session that signed it was replaced by a refresh of this
 * browser meanwhile starts the call over, each time, up to three times (`MAX_RESTARTS`), then fails
 * SESSION_REPLACED_DURING_CALL (the user is still logged in: nothing was dropped). A refusal that means the session is gone becomes SESSION_REVOKED (and
 * the session is dropped). For a signed endpoint the wallet has no method for; reach `client` and
 * `sessions` with `walletContext(wallet)`.
 */
export async function signedWithSession<T>(
  client: Client,
  sessions: ManagedSessions,
  who: { accountId?: string } & SignerOptions,
  request: SessionCallOptions,
): Promise<T> {
  return (await signedBySession<T>(client, sessions, who, request)).answer;
}

/** {@link signedWithSession}, also saying which session signed last (undefined: none was asked for). */
export async function signedBySession<T>(
  client: Client,
  sessions: ManagedSessions,
  who: { accountId?: string } & SignerOptions,
  request: SessionCallOptions,
): Promise<{ answer: T; session: Session | undefined }> {
  const options: SignerOptions = who.excludeCredentialId !== undefined ? { excludeCredentialId: who.excludeCredentialId } : {};
  const ticket = await sessions.signingTicket(who.accountId);
  try {
    for (let attempt = 0; ; attempt++) {
      let used: Session | undefined;
      try {
        const answer = await client.signed<T>({
          ...request,
          signingSignal: request.signingSignal === undefined ? ticket.signal : either(request.signingSignal, ticket.signal),
          getSigner: async () => {
            const { session, signer } = await sessions.resolveFor(ticket, options);
            used = session;
            return signer;
          },
        });
        return { answer, session: used };
      } catch (error) {
        if (used === undefined || !isWalletError(error)) throw error;
        if (!(await replaced(sessions, ticket, options, used, error))) throw await sessions.rejected(used, error);
        if (attempt === MAX_RESTARTS) {
          throw new WalletError('SESSION_REPLACED_DURING_CALL', `refreshes of this browser replaced the signing session during each of ${MAX_RESTARTS + 1} tries: nothing was done`, { cause: error });
        }
      }
    }
  } finally {
    ticket.done();
  }
}

/** A signal aborted when either is (AbortSignal.any is missing in some browsers still supported). */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const stop = (s: AbortSignal) => () => controller.abort(s.reason);
  for (const s of [a, b]) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', stop(s), { once: true });
  }
  return controller.signal;
}

/**
 * The signed leg was refused and the session that signed it is no longer held: a refresh replaced it
 * (I3). Storage is read again first (resolving the signer again does): a tab without a channel, or
 * whose message has not come yet, may not have heard of the refresh (I7).
 */
async function replaced(sessions: ManagedSessions, ticket: SigningTicket, options: SignerOptions, used: Session, error: WalletError): Promise<boolean> {
  if (error.code !== 'WALLET_SIGNATURE_INVALID' || error.status !== 401) return false;
  await sessions.resolveFor(ticket, options).catch(() => undefined);
  const now = sessions.current(used.accountId);
  return now !== null && now.id !== used.id && now.credentialId === used.credentialId && !sessions.all().some((s) => s.id === used.id);
}
