/**
 * Customers (spec §4.2, wire-reference §8.2).
 *
 * - `POST /customers` → `201 Customer`; KYC is `APPROVED` at once (sandbox); accounts are created
 *   with it (domain/accounts.ts). `platformCustomerId` already used by a customer → `409 CONFLICT`;
 *   an email already tied to another wallet's `EMAIL_OTP` → `409 EMAIL_OTP_EMAIL_ALREADY_EXISTS`.
 *   Unknown fields are ignored (the spec lists "other details" it does not define). `currencies`
 *   (default `["USD"]`): any currency of currencies.ts; another → `400 INVALID_CURRENCY`.
 * - `GET /customers` (filters `platformCustomerId`, `customerType`; newest first; paginated),
 *   `GET /customers/{id}`, `DELETE /customers/{id}` → `200` the deleted customer (its accounts,
 *   credentials and sessions go with it).
 * - `PATCH /customers/{id}`: `email` and `phoneNumber` together → `400 INVALID_INPUT`. Changing
 *   `email` while the customer's embedded wallets hold `EMAIL_OTP` credentials (or `phoneNumber`
 *   with `SMS_OTP`) is a signed retry, signed by an active session of any of the customer's wallets;
 *   on the retry the contact and every tied credential change in one synchronous step, or nothing
 *   does. `409 EMAIL_OTP_EMAIL_ALREADY_EXISTS` / `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS` when another
 *   wallet's OTP credential already uses the new value; `409 EMAIL_OTP_CREDENTIAL_SET_CHANGED` /
 *   `SMS_OTP_CREDENTIAL_SET_CHANGED` when the tied credentials changed between the legs. A changed
 *   contact becomes `UNVERIFIED` in `contactVerification`. Other updates answer `200` at once.
 */
import { json, type RequestContext, type SandboxState } from '../context.js';
import { findCurrency, knownCurrencies } from '../currencies.js';
import { createCustomerAccounts, provisionWallet, removeCustomerAccounts } from '../domain/accounts.js';
import { assertContactFree, CONTACT, sameContact, tiedCredentials, type Contact } from '../domain/contacts.js';
import { badRequest, conflict, invalidInput } from '../errors.js';
import { paginate } from '../list.js';
import { requireCustomer } from '../lookups.js';
import type { Router } from '../router.js';
import { issueChallenge, verifyRetry } from '../signed-retry.js';
import { newId, type AuthMethodRecord, type CustomerRecord, type CustomerType } from '../store.js';
import { DATE_PATTERN, E164_PATTERN, EMAIL_PATTERN, Fields } from '../validate.js';
import { customerView } from '../views.js';

const CURRENCY_CODES = knownCurrencies().map((c) => c.code);
const CUSTOMER_TYPES: readonly CustomerType[] = ['INDIVIDUAL', 'BUSINESS'];

interface ContactFields {
  email?: string;
  phoneNumber?: string;
  fullName?: string;
  businessLegalName?: string;
  birthDate?: string;
  region?: string;
}

function contactFields(f: Fields): ContactFields {
  const email = f.string('email', { max: 254, pattern: EMAIL_PATTERN, format: 'must be an email address' });
  const phoneNumber = f.string('phoneNumber', { max: 16, pattern: E164_PATTERN, format: 'must be an E.164 phone number (+ and 7–15 digits)' });
  const fullName = f.string('fullName', { min: 1, max: 200 });
  const businessLegalName = f.string('businessLegalName', { min: 1, max: 200 });
  const birthDate = f.string('birthDate', { pattern: DATE_PATTERN, format: 'must be a date YYYY-MM-DD' });
  const region = f.string('region', { min: 2, max: 16, pattern: /^[A-Za-z0-9_-]+$/, format: 'must be a region code' });
  return {
    ...(email !== undefined ? { email } : {}),
    ...(phoneNumber !== undefined ? { phoneNumber } : {}),
    ...(fullName !== undefined ? { fullName } : {}),
    ...(businessLegalName !== undefined ? { businessLegalName } : {}),
    ...(birthDate !== undefined ? { birthDate } : {}),
    ...(region !== undefined ? { region } : {}),
  };
}

function activeWithPlatformId(state: SandboxState, platformCustomerId: string): CustomerRecord | undefined {
  for (const c of state.store.customers.values()) if (c.platformCustomerId === platformCustomerId) return c;
  return undefined;
}

function createCustomer(ctx: RequestContext) {
  const f = Fields.of(ctx.body);
  const customerType = f.enum('customerType', CUSTOMER_TYPES, { required: true });
  const platformCustomerId = f.string('platformCustomerId', { required: true, max: 255 });
  const currencies = f.stringArray('currencies', { maxItems: 20 }) ?? ['USD'];
  currencies.forEach((code, i) => {
    if (currencies.indexOf(code) !== i) f.add(`currencies[${i}]`, 'CONFLICT', 'is listed twice');
  });
  const contact = contactFields(f);
  f.done();
  // Decided here (issue 34): a well-formed body naming a currency the service does not know is
  // `400 INVALID_CURRENCY` (spec §7.1), with every such entry in `details.errors[]`; checked after
  // the field validation, so a body with other bad fields answers INVALID_INPUT listing those.
  const unknown = currencies.flatMap((code, i) => (findCurrency(code) === undefined ? [{ field: `currencies[${i}]`, constraint: 'ENUM', message: `must be one of ${CURRENCY_CODES.join(', ')}` }] : []));
  if (unknown.length > 0) throw badRequest('INVALID_CURRENCY', 'currencies names a currency the service does not support', { errors: unknown });
  const state = ctx.state;
  const pcid = f.req(platformCustomerId);
  if (activeWithPlatformId(state, pcid) !== undefined) {
    throw conflict('CONFLICT', 'A customer with this platformCustomerId already exists', { field: 'platformCustomerId' });
  }
  // The new wallet's EMAIL_OTP credential ties the email (domain/contacts.ts).
  if (contact.email !== undefined) assertContactFree(state, '', 'email', contact.email);
  const now = state.clock.now();
  const customer: CustomerRecord = {
    id: newId('Customer'),
    customerType: f.req(customerType),
    platformCustomerId: pcid,
    currencies,
    ...contact,
    kycStatus: 'APPROVED',
    contactVerification: { email: 'UNVERIFIED', phone: 'UNVERIFIED' },
    createdAt: now,
    updatedAt: now,
  };
  state.store.customers.set(customer.id, customer);
  createCustomerAccounts(state, customer);
  return json(201, customerView(customer));
}

function listCustomers(ctx: RequestContext) {
  const pcid = ctx.query.get('platformCustomerId');
  const type = ctx.query.get('customerType');
  const items = [...ctx.state.store.customers.values()]
    .filter((c) => (pcid === null || c.platformCustomerId === pcid) && (type === null || c.customerType === type))
    .reverse();
  return json(200, paginate(items, ctx.query, customerView));
}

function applyUpdate(state: SandboxState, customer: CustomerRecord, update: ContactFields, tied: AuthMethodRecord[], contact: Contact | undefined): void {
  const now = state.clock.now();
  if (contact !== undefined) {
    const value = update[contact] as string;
    if (customer[contact] === undefined || !sameContact(customer[contact], value, contact)) {
      customer.contactVerification[CONTACT[contact].verification] = 'UNVERIFIED';
    }
    for (const m of tied) {
      m.nickname = value;
      m.updatedAt = now;
    }
  }
  Object.assign(customer, update);
  customer.updatedAt = now;
}

function parseUpdate(ctx: RequestContext): ContactFields {
  const f = Fields.of(ctx.body);
  f.onlyKnown(['email', 'phoneNumber', 'fullName', 'businessLegalName', 'birthDate', 'region']);
  const update = contactFields(f);
  f.done();
  if (Object.keys(update).length === 0) throw invalidInput('The update must change at least one field');
  if (update.email !== undefined && update.phoneNumber !== undefined) {
    throw invalidInput('email and phoneNumber must be updated in separate calls', [
      { field: 'email', constraint: 'CONFLICT', message: 'cannot be updated together with phoneNumber' },
      { field: 'phoneNumber', constraint: 'CONFLICT', message: 'cannot be updated together with email' },
    ]);
  }
  return update;
}

function changedContact(customer: CustomerRecord, update: ContactFields): Contact | undefined {
  for (const contact of ['email', 'phoneNumber'] as const) {
    const value = update[contact];
    if (value !== undefined && (customer[contact] === undefined || !sameContact(customer[contact], value, contact))) return contact;
  }
  return undefined;
}

function updateCustomer(ctx: RequestContext) {
  const state = ctx.state;
  const customer = requireCustomer(state, ctx.param('customerId'));
  const retry = verifyRetry(ctx);
  const update = parseUpdate(ctx);
  const contact = changedContact(customer, update);
  const tied = contact === undefined ? [] : tiedCredentials(state, customer.id, contact);
  if (retry === null) {
    if (contact === undefined || tied.length === 0) {
      // An email set on a customer whose wallet has no credential provisions it (domain/accounts.ts).
      const unprovisioned = contact === 'email' ? state.store.accountsOfCustomer(customer.id).filter((a) => a.type === 'EMBEDDED_WALLET' && state.store.authMethodsOf(a.id).length === 0) : [];
      if (unprovisioned.length > 0) assertContactFree(state, customer.id, 'email', update.email as string);
      applyUpdate(state, customer, update, [], contact);
      for (const wallet of unprovisioned) provisionWallet(state, wallet, update.email as string);
      return json(200, customerView(customer));
    }
    assertContactFree(state, customer.id, contact, update[contact] as string);
    const wallets = state.store.accountsOfCustomer(customer.id).filter((a) => a.type === 'EMBEDDED_WALLET');
    return issueChallenge(ctx, {
      type: 'UPDATE_CUSTOMER_CONTACT',
      organizationId: wallets[0]?.organizationId ?? customer.id,
      parameters: { customerId: customer.id, field: contact, credentialIds: tied.map((m) => m.id) },
      signer: { kind: 'session', accountIds: wallets.map((w) => w.id) },
      context: { contact, tiedIds: tied.map((m) => m.id) },
    });
  }
  // Signed retry: the tied set must be what was signed for, then everything changes at once.
  const signed = retry.context as { contact: Contact; tiedIds: string[] };
  const tiedNow = tiedCredentials(state, customer.id, signed.contact).map((m) => m.id);
  if (contact !== signed.contact || tiedNow.join(',') !== signed.tiedIds.join(',')) {
    throw conflict(CONTACT[signed.contact].changed, 'The tied credentials changed after the challenge was issued: start again');
  }
  assertContactFree(state, customer.id, signed.contact, update[signed.contact] as string);
  applyUpdate(state, customer, update, tied, contact);
  return json(200, customerView(customer));
}

function deleteCustomer(ctx: RequestContext) {
  const customer = requireCustomer(ctx.state, ctx.param('customerId'));
  removeCustomerAccounts(ctx.state, customer.id);
  ctx.state.store.customers.delete(customer.id);
  return json(200, customerView(customer));
}

export function registerCustomerRoutes(router: Router): void {
  router.post('/customers', createCustomer);
  router.get('/customers', listCustomers);
  router.get('/customers/:customerId', (ctx) => json(200, customerView(requireCustomer(ctx.state, ctx.param('customerId')))));
  router.patch('/customers/:customerId', updateCustomer);
  router.delete('/customers/:customerId', deleteCustomer);
}
