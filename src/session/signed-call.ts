/**
 * A signed-retry call made with a session of this browser: the helper every signed action uses.
 * The session is resolved only when the service asks for a signature (an answer that needs none
 * needs no session), and a refusal that means "this session is gone" becomes SESSION_REVOKED.
 */
import { isWalletError } from '../errors.js';
import type { Client, SignedRequestOptions } from '../transport/index.js';
import type { Session, SessionManager, SignerOptions } from './types.js';

export type SessionCallOptions = Omit<SignedRequestOptions, 'signer' | 'getSigner'>;

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
