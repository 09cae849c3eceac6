/**
 * Customer contact verification (spec §4.2, §3.7): `POST /customers/{id}/verify-email` and
 * `/verify-phone` "send" a code (nothing is sent; the code is always `123456`) and answer
 * `200 { customerId, channel, expiresAt }`; `.../confirm` with `{ code }` sets
 * `contactVerification.email|phone = VERIFIED` and answers `200 Customer`.
 *
 * Decided here: every sandbox customer is inside the contact-verification regime (so the spec's
 * 409 for customers outside it is never produced); a customer without that contact →
 * `400 MISSING_MANDATORY_USER_INFO`; a wrong code → `400 INVALID_INPUT` on field `code`;
 * confirming without a prior send is allowed (the code is fixed); codes live 10 minutes for
 * display only.
 */
import { json, type RequestContext } from '../context.js';
import { badRequest, invalidField } from '../errors.js';
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

function send(channel: Channel) {
  return (ctx: RequestContext) => {
    const customer = requireCustomer(ctx.state, ctx.param('customerId'));
    if (customer[contactOf(channel)] === undefined) {
      throw badRequest('MISSING_MANDATORY_USER_INFO', `The customer has no ${contactOf(channel)} to verify`);
    }
    return json(200, { customerId: customer.id, channel: channel === 'email' ? 'EMAIL' : 'SMS', expiresAt: ctx.state.clock.iso(CODE_TTL_MS) });
  };
}

function confirm(channel: Channel) {
  return (ctx: RequestContext) => {
    const customer = requireCustomer(ctx.state, ctx.param('customerId'));
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
