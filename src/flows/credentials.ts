/**
 * What the flows share: an account's credentials (`GET /auth/credentials?accountId=`), adding one
 * (`POST /auth/credentials`), their paths, argument checks, and the service's refusals as our codes.
 */
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import { signedWithSession, type WalletContext } from '../session/index.js';
import type { Client } from '../transport/index.js';
import type { AuthMethod, CredentialType, DataList } from '../types.js';

export function checkAccountId(accountId: unknown): string {
  if (typeof accountId !== 'string' || accountId === '') throw invalidArgument('accountId', 'an InternalAccount id');
  return accountId;
}

/** The `accountId` of a flow's argument object; INVALID_ARGUMENT when either is missing. */
export function accountIdOf(args: unknown): string {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  return checkAccountId((args as { accountId?: unknown }).accountId);
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

/**
 * Signed `POST /auth/credentials {type, accountId, …}`, signed by the account's current session
 * (NOT_LOGGED_IN without one) → the added credential.
 */
export async function addCredential<T extends AuthMethod>(ctx: WalletContext, body: { type: CredentialType; accountId: string; [field: string]: unknown }): Promise<T> {
  const added = await signedWithSession<T>(ctx.client, ctx.sessions, { accountId: body.accountId }, {
    method: 'POST',
    path: '/auth/credentials',
    body,
    purpose: 'add-credential',
  });
  if (typeof added?.id !== 'string') throw new WalletError('BAD_RESPONSE', 'expected the added AuthMethod');
  return added;
}

/**
 * Whether the service refused what a verify call carried (the code, the token, the assertion).
 * Decision (issue 25): the spec gives `400 INVALID_INPUT` ("an OTP bundle rejected", §7.1) and keeps
 * `401 UNAUTHORIZED` for API credentials; the wire reference says `401` for a wrong code, nonce,
 * token or assertion. The library takes both as a refusal.
 */
export function isVerifyRefusal(error: unknown): error is WalletError {
  return isWalletError(error) && (error.status === 401 || (error.status === 400 && error.code === 'INVALID_INPUT'));
}

/** The service's refusal of a verify call ({@link isVerifyRefusal}) as one of our codes (the original as `cause`); anything else unchanged. */
export function refusedAs(code: string, error: unknown): unknown {
  if (!isVerifyRefusal(error)) return error;
  return new WalletError(code, error.message, { cause: error, ...(error.status !== undefined ? { status: error.status } : {}), ...(error.details !== undefined ? { details: error.details } : {}) });
}
