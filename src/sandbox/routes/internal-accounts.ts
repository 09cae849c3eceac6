/**
 * Internal accounts (spec §4.3, wire-reference §8.1, §8.6).
 *
 * - `GET /internal-account?customerId=&currency=&type=`: list shape of spec §2.1 (filters combine;
 *   an unknown `customerId` → `404 CUSTOMER_NOT_FOUND`; oldest first, paginated).
 * - `PATCH /internal-accounts/{id}` with `{ privateEnabled?: boolean, nickname?: string }` (at least
 *   one; other fields → `400 INVALID_INPUT`). `privateEnabled` is the wire reference's (§8.1);
 *   `nickname` is a sandbox extension kept for old callers (neither document defines it, so the
 *   library no longer sends it): accepted in every profile, echoed only in the `sandbox` one. On an `EMBEDDED_WALLET` it is a signed retry (a
 *   session of that wallet) → `200 InternalAccount`; other accounts answer `200` at once.
 * - `POST /internal-accounts/{id}/export` `{ clientPublicKey: <uncompressed> }` (a compressed key →
 *   `400 INVALID_INPUT`; so is a key that backed a session or received an export before: "always a
 *   fresh key"), signed by a session of the wallet → `200 { id, encryptedWalletCredentials }`:
 *   `{"version","data","dataSignature","enclaveQuorumPublic"}` where `data` is hex of
 *   `{"encappedPublic","ciphertext","organizationId"}` and the HPKE plaintext is the mnemonic.
 */
import { json, type RequestContext } from '../context.js';
import { entropyToMnemonic } from '../crypto/bip39.js';
import { hpkeSeal } from '../crypto/hpke.js';
import { bytesToHex, utf8 } from '../crypto/encoding.js';
import { jsonBytes } from '../enclave.js';
import { assertFreshKey } from '../domain/sessions.js';
import { invalidInput } from '../errors.js';
import { paginate } from '../list.js';
import { requireAccount, requireCustomer, requireProvisionedWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { issueChallenge, verifyRetry } from '../signed-retry.js';
import type { InternalAccountRecord } from '../store.js';
import { Fields } from '../validate.js';
import { accountView } from '../views.js';

function listAccounts(ctx: RequestContext) {
  const { query, state } = ctx;
  const customerId = query.get('customerId');
  const currency = query.get('currency');
  const type = query.get('type');
  if (customerId !== null) requireCustomer(state, customerId);
  const items = [...state.store.accounts.values()].filter(
    (a) => (customerId === null || a.customerId === customerId) && (currency === null || a.currency === currency) && (type === null || a.type === type),
  );
  return json(200, paginate(items, query, accountView));
}

interface AccountPatch {
  privateEnabled?: boolean;
  nickname?: string;
}

function parsePatch(body: unknown): AccountPatch {
  const f = Fields.of(body);
  f.onlyKnown(['privateEnabled', 'nickname']);
  const privateEnabled = f.boolean('privateEnabled');
  const nickname = f.string('nickname', { min: 1, max: 100 });
  f.done();
  const patch: AccountPatch = {
    ...(privateEnabled !== undefined ? { privateEnabled } : {}),
    ...(nickname !== undefined ? { nickname } : {}),
  };
  if (Object.keys(patch).length === 0) throw invalidInput('The update must set at least one of privateEnabled, nickname');
  return patch;
}

function applyPatch(ctx: RequestContext, account: InternalAccountRecord, patch: AccountPatch) {
  Object.assign(account, patch);
  account.updatedAt = ctx.state.clock.now();
  return json(200, accountView(account));
}

function updateAccount(ctx: RequestContext) {
  const account = requireAccount(ctx.state, ctx.param('id'));
  if (account.type !== 'EMBEDDED_WALLET' || account.organizationId === undefined) return applyPatch(ctx, account, parsePatch(ctx.body));
  requireProvisionedWallet(ctx.state, account.id, 'id');
  const retry = verifyRetry(ctx);
  const patch = parsePatch(ctx.body);
  if (retry === null) {
    return issueChallenge(ctx, {
      type: 'UPDATE_INTERNAL_ACCOUNT',
      organizationId: account.organizationId,
      parameters: { internalAccountId: account.id, ...patch },
      signer: { kind: 'session', accountIds: [account.id] },
    });
  }
  return applyPatch(ctx, account, patch);
}

async function exportWallet(ctx: RequestContext) {
  const wallet = requireProvisionedWallet(ctx.state, ctx.param('id'), 'id');
  const retry = verifyRetry(ctx);
  const f = Fields.of(ctx.body);
  f.onlyKnown(['clientPublicKey']);
  const parsed = f.publicKey('clientPublicKey', { required: true, form: 'uncompressed' });
  f.done();
  const key = f.req(parsed);
  // "Always a fresh key" (wire-reference §8.6): never a key that backed a session (the signing
  // session's own included) or received an export before.
  assertFreshKey(ctx.state, key.compressed, 'clientPublicKey');
  if (retry === null) {
    return issueChallenge(ctx, {
      type: 'EXPORT_WALLET',
      organizationId: wallet.organizationId,
      parameters: { internalAccountId: wallet.id, targetPublicKey: key.uncompressed },
      signer: { kind: 'session', accountIds: [wallet.id] },
    });
  }
  ctx.state.store.spentKeys.set(key.compressed, 'export');
  const mnemonic = wallet.mnemonicEntropy === undefined ? '' : await entropyToMnemonic(wallet.mnemonicEntropy);
  const { enc, ciphertext } = await hpkeSeal(key.uncompressedBytes, utf8(mnemonic));
  const data = jsonBytes({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ciphertext), organizationId: wallet.organizationId });
  return json(200, { id: wallet.id, encryptedWalletCredentials: ctx.state.enclave.signedBundle(data) });
}

export function registerInternalAccountRoutes(router: Router): void {
  router.get('/internal-account', listAccounts);
  router.patch('/internal-accounts/:id', updateAccount);
  router.post('/internal-accounts/:id/export', exportWallet);
}
