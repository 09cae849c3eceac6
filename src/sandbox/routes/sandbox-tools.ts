/**
 * Sandbox-only helpers (platform-authenticated like the rest of the API):
 *
 * - `POST /sandbox/clock/advance { seconds }` (finite, 0 ≤ seconds ≤ 10 years) → `200 { now }`;
 *   `GET /sandbox/clock` → `200 { now }`.
 * - `GET /sandbox/enclave` → `200 { enclaveQuorumPublic, publicKeyCompressed, verificationTokenKey,
 *   bundleVersion }`: the key that signs OTP target bundles, export bundles (DER over the data bytes)
 *   and verification tokens (ES256, JWK given).
 * - `POST /sandbox/internal-accounts/{id}/fund { amount }` (integer ≥ 1, smallest unit) → adds to
 *   the balance, records an `INCOMING` `COMPLETED` transaction → `200 InternalAccount` with
 *   `transactionId` of that transaction.
 * - `POST /sandbox/customers/{id}/kyc { kycStatus }` (`APPROVED` | `PENDING` | `REJECTED`) →
 *   `200 Customer`: lets tests exercise KYC rules (customers start `APPROVED`).
 * - `POST /sandbox/faults { kind, path, method?, signed?, times?, status?, retryAfterSeconds?, ms? }`
 *   → `201` the armed fault (faults.ts; a bad spec → `400 INVALID_INPUT` naming the field);
 *   `GET /sandbox/faults` → `200 { data }` (armed, with uses left and answers held); `DELETE
 *   /sandbox/faults` → `204` (held answers are sent); `POST /sandbox/faults/{id}/release` → `200`
 *   the fault, the answers its `hold` held now sent (`404 NOT_FOUND`: no such fault listed).
 */
import { json, noContent, type RequestContext } from '../context.js';
import { isWalletError } from '../../errors.js';
import { invalidField, SandboxError } from '../errors.js';
import { checkFault } from '../faults.js';
import { fundAccount } from '../domain/accounts.js';
import { BUNDLE_VERSION } from '../enclave.js';
import { requireAccount, requireCustomer } from '../lookups.js';
import type { Router } from '../router.js';
import type { KycStatus } from '../store.js';
import { Fields } from '../validate.js';
import { accountView, customerView } from '../views.js';

const TEN_YEARS_S = 10 * 366 * 24 * 3600;
const MAX_FUNDING = 1_000_000_000_000_000;

function advance(ctx: RequestContext) {
  const f = Fields.of(ctx.body);
  f.onlyKnown(['seconds']);
  const seconds = f.number('seconds', { required: true, min: 0, max: TEN_YEARS_S });
  f.done();
  ctx.state.clock.advance(f.req(seconds));
  return json(200, { now: ctx.state.clock.iso() });
}

function enclave(ctx: RequestContext) {
  const e = ctx.state.enclave;
  return json(200, {
    enclaveQuorumPublic: e.publicKey,
    publicKeyCompressed: e.publicKeyCompressed,
    verificationTokenKey: e.publicJwk,
    bundleVersion: BUNDLE_VERSION,
  });
}

function fund(ctx: RequestContext) {
  const account = requireAccount(ctx.state, ctx.param('id'));
  const f = Fields.of(ctx.body);
  f.onlyKnown(['amount']);
  const amount = f.integer('amount', { required: true, min: 1, max: MAX_FUNDING });
  f.done();
  const customer = requireCustomer(ctx.state, account.customerId);
  const tx = fundAccount(ctx.state, account, customer, f.req(amount));
  return json(200, { ...accountView(account), transactionId: tx.id });
}

function setKyc(ctx: RequestContext) {
  const customer = requireCustomer(ctx.state, ctx.param('customerId'));
  const f = Fields.of(ctx.body);
  f.onlyKnown(['kycStatus']);
  const status = f.enum<KycStatus>('kycStatus', ['APPROVED', 'PENDING', 'REJECTED'], { required: true });
  f.done();
  customer.kycStatus = f.req(status);
  customer.updatedAt = ctx.state.clock.now();
  return json(200, customerView(customer));
}

function armFault(ctx: RequestContext) {
  try {
    return json(201, ctx.state.faults.add(checkFault(ctx.body, 'body')));
  } catch (e) {
    if (isWalletError(e, 'INVALID_ARGUMENT')) {
      const named = e.message.split(' must be ')[0] ?? 'body';
      const field = named.replace(/^body\.?/, '') || 'body';
      throw invalidField(field, 'FORMAT', e.message);
    }
    throw e;
  }
}

function releaseFault(ctx: RequestContext) {
  const id = ctx.param('id');
  const released = /^[1-9][0-9]{0,8}$/.test(id) ? ctx.state.faults.release(Number(id)) : undefined;
  if (released === undefined) throw new SandboxError(404, 'NOT_FOUND', `No fault ${id} is armed or holding answers`);
  return json(200, released);
}

export function registerSandboxToolRoutes(router: Router): void {
  router.post('/sandbox/faults', armFault);
  router.post('/sandbox/faults/:id/release', releaseFault);
  router.get('/sandbox/faults', (ctx) => json(200, { data: ctx.state.faults.list() }));
  router.delete('/sandbox/faults', (ctx) => {
    ctx.state.faults.clear();
    return noContent();
  });
  router.post('/sandbox/clock/advance', advance);
  router.get('/sandbox/clock', (ctx) => json(200, { now: ctx.state.clock.iso() }));
  router.get('/sandbox/enclave', enclave);
  router.post('/sandbox/internal-accounts/:id/fund', fund);
  router.post('/sandbox/customers/:customerId/kyc', setKyc);
}
