/**
 * Credentials of an account: list, and delete (wire reference §5). Adding credentials lives with the
 * login flows (flows/: addEmailOtp, addSmsOtp, addOAuthCredential, registerPasskey) because adding an
 * OTP credential ends in that credential's first login.
 */
import { WalletError, isWalletError } from '../errors.js';
import { listCredentials as fetchCredentials } from '../flows/credentials.js';
import type { WalletContext } from '../session/context.js';
import type { AuthMethod } from '../types.js';
import { accountOf, requireString, seg } from './args.js';
import { signedNow } from './signing.js';

/** `GET /auth/credentials?accountId=`: every credential of the account (default: the current session's). */
export async function listCredentials(ctx: WalletContext, accountId?: string): Promise<AuthMethod[]> {
  return fetchCredentials(ctx.client, await accountOf(ctx, accountId));
}

/**
 * `DELETE /auth/credentials/{id}`, signed by a session of a *different* credential of the account
 * held in this browser (the current one when it qualifies, else the longest-lived other one).
 * Without such a session: OTHER_CREDENTIAL_SESSION_REQUIRED before any request. The service
 * refuses the account's last credential (`400 INVALID_INPUT`; the local sandbox adds details.cause `LAST_CREDENTIAL`).
 * Two requests. The credential's sessions end with it; those held here are dropped too.
 */
export async function deleteCredential(ctx: WalletContext, credentialId: string, accountId?: string): Promise<void> {
  const id = requireString(credentialId, 'credentialId', 'an AuthMethod id');
  const account = await accountOf(ctx, accountId);
  try {
    await signedNow<unknown>(ctx, { accountId: account, excludeCredentialId: id }, {
      method: 'DELETE',
      path: `/auth/credentials/${seg(id)}`,
      purpose: 'delete-credential',
    });
  } catch (error) {
    if (isWalletError(error, 'OTHER_CREDENTIAL_SESSION_REQUIRED')) {
      throw new WalletError(
        'OTHER_CREDENTIAL_SESSION_REQUIRED',
        `deleting ${id} must be signed by a session of another credential of ${account}, and this browser holds none: ` +
          'log in with another credential of the account first (an account cannot lose its last credential)',
        { cause: error },
      );
    }
    throw error;
  }
  await forgetSessionsOf(ctx, id);
}

/**
 * Drops the sessions of a deleted credential held here (the service ended them with it): the
 * manager removes their keys and records, and another session of the account becomes current
 * (`session` event). No request is made; other tabs follow.
 */
async function forgetSessionsOf(ctx: WalletContext, credentialId: string): Promise<void> {
  const dead = ctx.sessions.all().filter((s) => s.credentialId === credentialId);
  if (dead.length > 0) await ctx.sessions.forget(dead.map((s) => s.id));
}
