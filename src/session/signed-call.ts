/**
 * A signed-retry call made with a session of this browser: the helper every signed action uses.
 * The session is resolved only when the service asks for a signature (an answer that needs none
 * needs no session), and a refusal that means "this session is gone" becomes SESSION_REVOKED.
 */
import { isWalletError } from '../errors.js';
import type { Client, SignedRequestOptions } from '../transport/index.js';
import type { Session, SessionManager, SignerOptions } from './types.js';

/** A signed call's options, less the signer: {@link signedWithSession} signs with a session. */
export type SessionCallOptions = Omit<SignedRequestOptions, 'signer' | 'getSigner'>;

/**
 * A signed-retry call (`client.signed`) signed with a session of this browser: the account's current
 * one (`who.accountId`, default the account used last), resolved only when the service asks for a
 * signature. A refusal that means the session is gone becomes SESSION_REVOKED (and the session is
 * dropped). For a signed endpoint the wallet has no method for; reach `client` and `sessions` with
 * `walletContext(wallet)`.
 */
export async function signedWithSession<T>(
  client: Client,
  sessions: SessionManager,
  who: { accountId?: string } & SignerOptions,
  request: SessionCallOptions,
): Promise<T> {
  let used: Session | undefined;
  const options: SignerOptions = who.excludeCredentialId !== undefined ? { excludeCredentialId: who.excludeCredentialId } : {};
  try {
    return await client.signed<T>({
      ...request,
      getSigner: async () => {
        const { session, signer } = await sessions.resolve(who.accountId, options);
        used = session;
        return signer;
      },
    });
  } catch (error) {
    if (used !== undefined && isWalletError(error)) throw await sessions.rejected(used, error);
    throw error;
  }
}
