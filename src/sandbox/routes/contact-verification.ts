/**
 * Customer contact verification (spec §4.2, §3.7): `POST /customers/{id}/verify-email` and
 * `/verify-phone` "send" a code (nothing is sent; the code is always `123456`) and answer
 * `200 { customerId, channel, expiresAt }`; `.../confirm` with `{ code }` sets
 * `contactVerification.email|phone = VERIFIED` and answers `200 Customer`.
 *
 * Decided here: which customers are in the contact-verification regime ("where a regional payment
 * provider requires it", spec §1) is the sandbox option `contactVerificationRegions`: a customer
 * whose `region` is not listed (or who has none) is outside it, and all four routes answer `409
 * CONTACT_VERIFICATION_NOT_REQUIRED` (spec §7.4: "a 409 without a code from this table" on these
 * endpoints for customers outside the regime). Without the option every customer is inside it (the
 * default, as before). A customer without that contact →
 * `400 MISSING_MANDATORY_USER_INFO`; a wrong code → `400 INVALID_INPUT` on field `code`;
 * confirming without a prior send is allowed (the code is fixed); codes live 10 minutes for
 * display only.
 */
import { json, type RequestContext } from '../context.js';
import { badRequest, conflict, invalidField } from '../errors.js';
import type { CustomerRecord } from '../store.js';
import { requireCustomer } from '../lookups.js';
import type { Router } from '../router.js';
import { Fields } from '../validate.js';
import { customerView } from '../views.js';

/** The code every contact verification (email or phone change) of the sandbox accepts. */
export const CONTACT_VERIFICATION_CODE = '123456';
const CODE_TTL_MS = 10 * 60 * 1000;

type Channel = 'email' | 'phone';

function contactOf(channel: Channel): 'email' | 'phoneNumber' {
  return channel === 'email' ? 'email' : 'phoneNumber';
}

/** The customer, when it is in the contact-verification regime (see above); else 409. */
function inRegime(ctx: RequestContext): CustomerRecord {
  const customer = requireCustomer(ctx.state, ctx.param('customerId'));
  const regions = ctx.state.config.contactVerificationRegions;
  if (regions !== undefined && (customer.region === undefined || !regions.includes(customer.region))) {
    throw conflict('CONTACT_VERIFICATION_NOT_REQUIRED', `Customers of region ${customer.region ?? '(none)'} need no contact verification`);
  }
  return customer;
}

function send(channel: Channel) {
  return (ctx: RequestContext) => {
    const customer = inRegime(ctx);
    if (customer[contactOf(channel)] === undefined) {
      throw badRequest('MISSING_MANDATORY_USER_INFO', `The customer has no ${contactOf(channel)} to verify`);
    }
    return json(200, { customerId: customer.id, channel: channel === 'email' ? 'EMAIL' : 'SMS', expiresAt: ctx.state.clock.iso(CODE_TTL_MS) });
  };
}

function confirm(channel: Channel) {
  return (ctx: RequestContext) => {
    const customer = inRegime(ctx);
    const f = Fields.of(ctx.body);
    const code = f.string('code', { required: true, max: 64 });
    f.done();
    if (customer[contactOf(channel)] === undefined) {
      throw badRequest('MISSING_MANDATORY_USER_INFO', `The customer has no ${contactOf(channel)} to verify`);
    }
    if (code !== CONTACT_VERIFICATION_CODE) throw invalidField('code', 'FORMAT', 'is not the code that was sent');
    customer.contactVerification[channel] = 'VERIFIED';
    customer.updatedAt = ctx.state.clock.now();
    return json(200, customerView(customer));
  };
}

export function registerContactVerificationRoutes(router: Router): void {
  router.post('/customers/:customerId/verify-email', send('email'));
  router.post('/customers/:customerId/verify-email/confirm', confirm('email'));
  router.post('/customers/:customerId/verify-phone', send('phone'));
  router.post('/customers/:customerId/verify-phone/confirm', confirm('phone'));
}
