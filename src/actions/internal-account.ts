/** Updating an internal account (wire reference §8.1): `PATCH /internal-accounts/{id}`, signed. */
import { invalidArgument } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord, type InternalAccount } from '../types.js';
import { ACCOUNT_ID, expectRecord, requireString, seg } from './args.js';
import { signedForAccount } from './signing.js';

/**
 * The fields of an internal account that `updateAccount` changes: the one the wire reference names
 * (§8.1; the spec shows no PATCH body), so a misspelt field (`privateEnable`) is a type error, and a
 * call from untyped code with any other field is `INVALID_ARGUMENT` before any request. (`nickname`
 * was accepted until issue 25: neither document defines it, so the service may refuse it.)
 */
export interface InternalAccountPatch {
  /** Make the account private (`true`) or not (wire reference §8.1). */
  privateEnabled?: boolean;
}

const PATCH_FIELDS: ReadonlySet<string> = new Set(['privateEnabled']);

/**
 * `PATCH /internal-accounts/{id}` with `patch` as the body (the same bytes on both legs): on an
 * embedded wallet `202` → signed by that wallet's current session → `200 InternalAccount` (two
 * requests; SESSION_EXPIRED, KEY_EVICTED before any request when the wallet's session held here is
 * unusable). An account that is not a wallet answers `200` at once (one request): with no session of
 * the account in this browser, the call is sent and a session is looked for only if the service
 * asks for a signature (NOT_LOGGED_IN then).
 */
export async function updateAccount(ctx: WalletContext, accountId: string, patch: InternalAccountPatch): Promise<InternalAccount> {
  const id = requireString(accountId, 'accountId', ACCOUNT_ID);
  if (!isRecord(patch) || Object.keys(patch).length === 0) throw invalidArgument('patch', 'an object with at least one field, e.g. { privateEnabled: true }');
  const unknownField = Object.keys(patch).find((field) => !PATCH_FIELDS.has(field));
  if (unknownField !== undefined) throw invalidArgument(`patch.${unknownField}`, 'absent: the field is privateEnabled');
  if (typeof patch.privateEnabled !== 'boolean') throw invalidArgument('patch.privateEnabled', 'a boolean');
  const answer = await signedForAccount<unknown>(ctx, id, {
    method: 'PATCH',
    path: `/internal-accounts/${seg(id)}`,
    body: patch,
    purpose: 'update-internal-account',
  });
  return expectRecord<InternalAccount>(answer, 'an InternalAccount');
}
