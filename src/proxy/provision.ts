/**
 * Provisioning, on the backend: a customer with an embedded wallet for a user of the app, and the
 * one JSON document the app hands that user's browser so it can create the wallet.
 *
 * ```ts
 * const { customerId, accountId } = await provisionCustomer(service, {
 *   platformCustomerId: user.id, email: user.email, fullName: user.name,
 * });
 * // store both on the user; later, for the signed-in user's browser:
 * return bootstrapResponse({ accountId, trustedKeys: [ENCLAVE_KEY_HEX], baseUrl: '/api' });
 * ```
 */
import { invalidArgument, WalletError } from '../errors.js';
import { DEFAULT_IS_WALLET, NOT_A_WALLET_STATUSES } from './wallets.js';
import { clientFromOptions, listData, ServiceUnavailable, type ServiceAnswer, type ServiceClient, type ServiceOptions } from './service.js';

export type { ServiceOptions } from './service.js';
export { bootstrapResponse, walletBootstrap, type WalletBootstrap } from './bootstrap.js';

/** The user to create a customer (and its embedded wallet) for, with {@link provisionCustomer}. */
export interface NewCustomer {
  /** Your own id for this user: unique per platform. Provisioning the same one again returns the same customer. */
  readonly platformCustomerId: string;
  /** The user's email: the EMAIL_OTP credential of the embedded wallet. */
  readonly email: string;
  /** The user's full name (individuals). */
  readonly fullName?: string;
  /** E.164, e.g. `+14155550123`. */
  readonly phoneNumber?: string;
  /** Default `INDIVIDUAL`. */
  readonly customerType?: 'INDIVIDUAL' | 'BUSINESS';
  /** Default `['USDC']`. */
  readonly currencies?: readonly string[];
  /** Further fields of `POST /customers` (region, birthDate, address…), sent as they are. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** What {@link provisionCustomer} resolves to. */
export interface ProvisionedCustomer {
  /** The customer (`Customer:…`). */
  readonly customerId: string;
  /** The customer's `EMBEDDED_WALLET` internal account: what the browser's wallet signs for. */
  readonly accountId: string;
  /** False when the customer already existed (same `platformCustomerId`). */
  readonly created: boolean;
  /**
   * When the customer already existed: the fields given to `provisionCustomer` whose value differs
   * on the existing customer (`email`, `fullName`, `phoneNumber`), e.g. the user changed their email
   * in your app since. Empty when created, or when everything matches. The existing customer is
   * returned unchanged: update it (`PATCH /customers/{id}`) or ask the user, as your app decides.
   */
  readonly mismatched: readonly ('email' | 'fullName' | 'phoneNumber')[];
}

const WALLET_ATTEMPTS = 5;
const WALLET_RETRY_MS = 200;

function serviceError(answer: ServiceAnswer, what: string): WalletError {
  const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  const code = typeof body.code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(body.code) ? body.code : 'BAD_RESPONSE';
  const details = typeof body.details === 'object' && body.details !== null ? (body.details as Record<string, unknown>) : undefined;
  // The service's own reason is kept (it describes the caller's input, never the credentials).
  const reason = typeof body.reason === 'string' && body.reason !== '' ? body.reason.slice(0, 300) : `${what} answered ${answer.status} ${code}`;
  return new WalletError(code, reason, { status: answer.status, ...(details ? { details } : {}) });
}

async function call(service: ServiceClient, ...args: Parameters<ServiceClient['call']>): Promise<ServiceAnswer> {
  try {
    return await service.call(...args);
  } catch (e) {
    if (e instanceof ServiceUnavailable) throw new WalletError('NETWORK_ERROR', e.message);
    throw e;
  }
}

/**
 * The customer's embedded wallet account id, or `undefined` when it has none (yet). Which account
 * is the wallet follows the rule of wallets.ts (the spec names no field for it): an account whose
 * record says `type: EMBEDDED_WALLET`; among accounts whose record has no `type`, the first whose
 * credential list the service answers (`GET /auth/credentials?accountId=`, spec §4.5: served for an
 * embedded-wallet account).
 */
export async function findEmbeddedWallet(options: ServiceOptions, customerId: string): Promise<string | undefined> {
  if (typeof customerId !== 'string' || customerId === '') throw invalidArgument('customerId', 'a non-empty string');
  return walletOf(clientFromOptions(options), customerId);
}

async function walletOf(service: ServiceClient, customerId: string): Promise<string | undefined> {
  const answer = await call(service, 'GET', '/internal-account', { query: { customerId, limit: '100' } });
  if (answer.status !== 200) throw serviceError(answer, 'GET /internal-account');
  const accounts = listData(answer).filter((a) => typeof a.id === 'string' && a.id !== '' && (a.customerId === undefined || a.customerId === customerId));
  const typed = accounts.find((a) => DEFAULT_IS_WALLET(a) === true);
  if (typed !== undefined) return String(typed.id);
  for (const account of accounts.filter((a) => DEFAULT_IS_WALLET(a) === undefined)) {
    const credentials = await call(service, 'GET', '/auth/credentials', { query: { accountId: String(account.id) } });
    if (credentials.status === 200) return String(account.id);
    if (!NOT_A_WALLET_STATUSES.includes(credentials.status)) throw serviceError(credentials, 'GET /auth/credentials');
  }
  return undefined;
}

async function existingCustomer(service: ServiceClient, platformCustomerId: string): Promise<Record<string, unknown> | undefined> {
  const answer = await call(service, 'GET', '/customers', { query: { platformCustomerId } });
  if (answer.status !== 200) return undefined;
  return listData(answer).find((c) => c.platformCustomerId === platformCustomerId && typeof c.id === 'string');
}

/** The given contact fields whose value differs on the existing customer's record. */
function mismatchedFields(customer: NewCustomer, existing: Record<string, unknown>): ProvisionedCustomer['mismatched'] {
  const fields = ['email', 'fullName', 'phoneNumber'] as const;
  return fields.filter((name) => {
    const wanted = customer[name];
    if (wanted === undefined) return false;
    const have = existing[name];
    // Emails compare without case (the service may normalise them).
    return name === 'email' ? typeof have !== 'string' || have.toLowerCase() !== wanted.toLowerCase() : have !== wanted;
  });
}

/**
 * Creates the customer (`POST /customers`) and returns it with its embedded wallet. Idempotent on
 * `platformCustomerId`: when the service answers `409 CONFLICT` for it, the existing customer is
 * looked up and returned (`created: false`), with `mismatched` naming the given fields whose value
 * differs on it (the existing customer is not changed). The wallet is created by the service with the
 * customer; it is looked for a few times (about a second) before giving up with
 * `WalletError('BAD_RESPONSE')`. Service refusals are `WalletError`s with the service's
 * code, `status` and `details` (e.g. `INVALID_INPUT` with `details.errors[]`).
 */
export async function provisionCustomer(options: ServiceOptions, customer: NewCustomer): Promise<ProvisionedCustomer> {
  const service = clientFromOptions(options);
  if (typeof customer !== 'object' || customer === null) throw invalidArgument('customer', 'an object');
  if (typeof customer.platformCustomerId !== 'string' || customer.platformCustomerId === '') throw invalidArgument('customer.platformCustomerId', 'a non-empty string');
  // The service validates the values (its INVALID_INPUT names each bad field); only the types are checked here.
  if (typeof customer.email !== 'string' || customer.email === '') throw invalidArgument('customer.email', 'a non-empty string');
  const body = {
    ...customer.extra,
    customerType: customer.customerType ?? 'INDIVIDUAL',
    platformCustomerId: customer.platformCustomerId,
    email: customer.email,
    currencies: [...(customer.currencies ?? ['USDC'])],
    ...(customer.fullName === undefined ? {} : { fullName: customer.fullName }),
    ...(customer.phoneNumber === undefined ? {} : { phoneNumber: customer.phoneNumber }),
  };
  const answer = await call(service, 'POST', '/customers', { body });
  let customerId: string | undefined;
  let created = true;
  let mismatched: ProvisionedCustomer['mismatched'] = [];
  if (answer.status === 200 || answer.status === 201) {
    customerId = typeof (answer.body as { id?: unknown } | undefined)?.id === 'string' ? (answer.body as { id: string }).id : undefined;
  } else if (answer.status === 409 && (answer.body as { code?: unknown } | undefined)?.code === 'CONFLICT') {
    const existing = await existingCustomer(service, customer.platformCustomerId);
    customerId = existing === undefined ? undefined : String(existing.id);
    if (existing !== undefined) mismatched = mismatchedFields(customer, existing);
    created = false;
  }
  if (customerId === undefined) throw serviceError(answer, 'POST /customers');

  for (let attempt = 1; ; attempt++) {
    const accountId = await walletOf(service, customerId);
    if (accountId !== undefined) return { customerId, accountId, created, mismatched };
    if (attempt >= WALLET_ATTEMPTS) break;
    await new Promise((resolve) => setTimeout(resolve, WALLET_RETRY_MS));
  }
  throw new WalletError('BAD_RESPONSE', 'The customer has no embedded wallet account.');
}

