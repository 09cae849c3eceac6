/** Looking up an account's credentials (`GET /auth/credentials?accountId=`), shared by the flows. */
import { WalletError, invalidArgument } from '../errors.js';
import type { Client } from '../transport/index.js';
import type { AuthMethod, CredentialType, DataList } from '../types.js';

export function checkAccountId(accountId: unknown): string {
  if (typeof accountId !== 'string' || accountId === '') throw invalidArgument('accountId', 'an InternalAccount id');
  return accountId;
}

export async function listCredentials(client: Client, accountId: string): Promise<AuthMethod[]> {
  const answer = await client.request<DataList<AuthMethod>>({ method: 'GET', path: '/auth/credentials', query: { accountId: checkAccountId(accountId) } });
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.data)) throw new WalletError('BAD_RESPONSE', 'expected {data: AuthMethod[]}');
  return answer.data;
}

/**
 * The credential to use: the one with `credentialId` (which must have the type), else the account's
 * only credential of the type. `choose` settles several candidates (e.g. by an OIDC email claim);
 * with several and no choice, INVALID_ARGUMENT lists them so the app can ask for `credentialId`.
 */
export async function findCredential(
  client: Client,
  accountId: string,
  type: CredentialType,
  credentialId?: string,
  choose?: (candidates: AuthMethod[]) => AuthMethod | undefined,
): Promise<AuthMethod> {
  if (credentialId !== undefined && (typeof credentialId !== 'string' || credentialId === '')) throw invalidArgument('credentialId', 'an AuthMethod id');
  const all = await listCredentials(client, accountId);
  if (credentialId !== undefined) {
    const found = all.find((c) => c.id === credentialId);
    if (!found || found.type !== type) throw new WalletError('CREDENTIAL_NOT_FOUND', `${accountId} has no ${type} credential ${credentialId}`);
    return found;
  }
  const candidates = all.filter((c) => c.type === type);
  if (candidates.length === 0) throw new WalletError('CREDENTIAL_NOT_FOUND', `${accountId} has no ${type} credential`);
  if (candidates.length === 1) return candidates[0] as AuthMethod;
  const chosen = choose?.(candidates);
  if (chosen) return chosen;
  throw new WalletError('INVALID_ARGUMENT', `${accountId} has several ${type} credentials: pass credentialId`, {
    details: { credentials: candidates.map((c) => ({ id: c.id, nickname: c.nickname })) },
  });
}

export function credentialPath(credentialId: string, action: 'challenge' | 'verify'): string {
  return `/auth/credentials/${encodeURIComponent(credentialId)}/${action}`;
}
