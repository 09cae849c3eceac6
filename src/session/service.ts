/** The session endpoints of the service (wire reference §5): list, delete, refresh. */
import type { Signer } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import type { Client } from '../transport/index.js';
import type { AuthSession, DataList } from '../types.js';
import { parseAuthSession } from './records.js';

/** How a signature the manager asks for is made (see SignRequest.automatic and signingSignal). */
export interface SigningOptions {
  /** The library signs on its own (automatic refresh, ending a replaced or superseded session). */
  automatic?: boolean;
  /** Cancels a pending onBeforeSign and any signature not sent yet; never a request on the wire. */
  signingSignal?: AbortSignal;
  /** Approved already (a logout ending its sessions): onBeforeSign is not asked. */
  approved?: boolean;
}

/** The three calls the session manager makes; `createSessionService` makes them over a Client. */
export interface SessionService {
  /** `GET /auth/sessions?accountId=`: the account's active sessions. */
  list(accountId: string): Promise<AuthSession[]>;
  /**
   * Signed `DELETE /auth/sessions/{id}`; false when the session was not active any more (404).
   * `signer` may be a function: it is then asked after the prompt, just before signing.
   */
  end(sessionId: string, signer: SessionSigner, options?: SigningOptions): Promise<boolean>;
  /** Signed `POST /auth/sessions/{id}/refresh {clientPublicKey}` (signed by that session) → the new session. */
  refresh(sessionId: string, clientPublicKey: string, signer: SessionSigner, options?: SigningOptions): Promise<AuthSession>;
}

/** A signer, or the function that gives it after the prompt (transport `getSigner`). */
export type SessionSigner = Signer | (() => Promise<Signer>);

const who = (signer: SessionSigner): { signer: Signer } | { getSigner: () => Promise<Signer> } => (typeof signer === 'function' ? { getSigner: signer } : { signer });

function signing(options: SigningOptions | undefined): SigningOptions {
  return {
    ...(options?.automatic === true && { automatic: true }),
    ...(options?.signingSignal !== undefined && { signingSignal: options.signingSignal }),
    ...(options?.approved === true && { approved: true }),
  };
}

export function createSessionService(client: Client): SessionService {
  return {
    async list(accountId) {
      const answer = await client.request<DataList<AuthSession>>({ method: 'GET', path: '/auth/sessions', query: { accountId } });
      if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.data)) {
        throw new WalletError('BAD_RESPONSE', 'expected {data: AuthSession[]}');
      }
      // Decision: every entry must name its session (the manager reads nothing else from a list);
      // one that does not makes the whole list unusable (the service could not be asked), never a
      // crash, and never a session judged ended because its entry was unreadable.
      if (!answer.data.every((a: unknown) => typeof a === 'object' && a !== null && typeof (a as { id?: unknown }).id === 'string')) {
        throw new WalletError('BAD_RESPONSE', 'expected {data: AuthSession[]} whose entries have an id');
      }
      return answer.data;
    },
    async end(sessionId, signer, options) {
      try {
        await client.signed<unknown>({ method: 'DELETE', path: `/auth/sessions/${encodeURIComponent(sessionId)}`, ...who(signer), purpose: 'delete-session', ...signing(options) });
        return true;
      } catch (error) {
        if (isWalletError(error) && error.status === 404) return false;
        throw error;
      }
    },
    async refresh(sessionId, clientPublicKey, signer, options) {
      return parseAuthSession(
        await client.signed<unknown>({
          method: 'POST',
          path: `/auth/sessions/${encodeURIComponent(sessionId)}/refresh`,
          body: { clientPublicKey },
          ...who(signer),
          purpose: 'refresh-session',
          ...signing(options),
        }),
      );
    },
  };
}
