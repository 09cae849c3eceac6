/** The session endpoints of the service (wire reference §5): list, delete, refresh. */
import type { Signer } from '../crypto/index.js';
import { WalletError, isWalletError } from '../errors.js';
import type { Client } from '../transport/index.js';
import type { AuthSession, DataList } from '../types.js';
import { parseAuthSession } from './records.js';

/** `GET /auth/sessions?accountId=`: the account's active sessions. */
export async function listSessions(client: Client, accountId: string): Promise<AuthSession[]> {
  const answer = await client.request<DataList<AuthSession>>({ method: 'GET', path: '/auth/sessions', query: { accountId } });
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.data)) {
    throw new WalletError('BAD_RESPONSE', 'expected {data: AuthSession[]}');
  }
  return answer.data;
}

/** Signed `DELETE /auth/sessions/{id}`; false when the session was not active any more (404). */
export async function deleteSession(client: Client, sessionId: string, signer: Signer): Promise<boolean> {
  try {
    await client.signed<unknown>({ method: 'DELETE', path: `/auth/sessions/${encodeURIComponent(sessionId)}`, signer, purpose: 'delete-session' });
    return true;
  } catch (error) {
    if (isWalletError(error) && error.status === 404) return false;
    throw error;
  }
}

/** Signed `POST /auth/sessions/{id}/refresh {clientPublicKey}` (signed by that session) → the new session. */
export async function requestRefresh(client: Client, sessionId: string, clientPublicKey: string, signer: Signer): Promise<AuthSession> {
  return parseAuthSession(
    await client.signed<unknown>({
      method: 'POST',
      path: `/auth/sessions/${encodeURIComponent(sessionId)}/refresh`,
      body: { clientPublicKey },
      signer,
      purpose: 'refresh-session',
    }),
  );
}
