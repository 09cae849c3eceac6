/**
 * Cards, as much as delegated keys need (spec §3.4, §4.6; record and provisioning in
 * domain/cards.ts).
 *
 * - `POST /cards` with header `Idempotency-Key` (required: absent → `400 INVALID_INPUT`, field
 *   `Idempotency-Key`; 1–255 visible ASCII characters) and body `{cardholderId, fundingSource,
 *   maxSpendPerTransaction?, maxSpendPerDay?, maxTransactionsPerDay?}` → `201 Card` `PROCESSING`.
 *   Checks in order: every bad or unknown field in `details.errors[]` (limits are positive
 *   integers); `404 CUSTOMER_NOT_FOUND` / `404 ACCOUNT_NOT_FOUND`; a funding source of another
 *   customer → `400 INVALID_INPUT`; cardholder KYC not `APPROVED` → `400 CARDHOLDER_KYC_NOT_APPROVED`
 *   (rule 1); spend limits without the funding source's `supportsSpendLimitsAtIssuance`, or
 *   `maxTransactionsPerDay` without `supportsTransactionCountLimit` → `400 INVALID_INPUT` (rule 2).
 * - Idempotency (decided here): a key that created a card answers `201` with that card as it is
 *   now (same id, so `ACTIVE` once provisioned) when the body is the same JSON, and `409 CONFLICT`
 *   when the body differs. Failed requests record nothing. Keys are platform-wide.
 * - `GET /cards/{id}` → `200 Card` (never a reveal URL); `404 NOT_FOUND`.
 * - `GET /cards`, `PATCH /cards/{id}`: card-changes.ts.
 */
import { present } from '../present.js';
import { randomInt } from 'node:crypto';
import { json, type RequestContext } from '../context.js';
import { cards, requireCard, type CardRecord } from '../domain/cards.js';
import { badRequest, conflict, invalidField, invalidInput, type FieldError } from '../errors.js';
import { IDEMPOTENCY_HEADER, idempotencyKey } from '../idempotency.js';
import { jsonEqual } from '../json-equal.js';
import { requireAccount, requireCustomer } from '../lookups.js';
import type { Router } from '../router.js';
import { newId, type Store } from '../store.js';
import { Fields } from '../validate.js';
import { accountView } from '../views.js';

const LIMIT_RULE = { min: 1, max: Number.MAX_SAFE_INTEGER } as const;
const CARD_LIFETIME_YEARS = 3;

interface IssuedCard {
  cardId: string;
  body: unknown;
}

function issued(store: Store): Map<string, IssuedCard> {
  return store.collection<IssuedCard>('cards.idempotency');
}

export function cardView(c: CardRecord): Record<string, unknown> {
  return present('Card', {
    id: c.id,
    cardholderId: c.cardholderId,
    ...(c.fundingSource !== undefined ? { fundingSource: c.fundingSource } : {}),
    currency: c.currency,
    status: c.status,
    ...(c.statusReason !== undefined ? { statusReason: c.statusReason } : {}),
    last4: c.last4,
    expirationMonth: c.expirationMonth,
    expirationYear: c.expirationYear,
    ...(c.maxSpendPerTransaction !== undefined ? { maxSpendPerTransaction: c.maxSpendPerTransaction } : {}),
    ...(c.maxSpendPerDay !== undefined ? { maxSpendPerDay: c.maxSpendPerDay } : {}),
    ...(c.maxTransactionsPerDay !== undefined ? { maxTransactionsPerDay: c.maxTransactionsPerDay } : {}),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  });
}

interface CardCapabilities {
  supportsSpendLimitsAtIssuance?: unknown;
  supportsTransactionCountLimit?: unknown;
}

function createCard(ctx: RequestContext) {
  const { state } = ctx;
  const key = idempotencyKey(ctx);
  if (key === undefined) throw invalidField(IDEMPOTENCY_HEADER, 'REQUIRED', 'is required on POST /cards');
  const seen = issued(state.store).get(key);
  if (seen !== undefined) {
    if (!jsonEqual(seen.body, ctx.body)) throw conflict('CONFLICT', 'This Idempotency-Key was already used with a different body', { cardId: seen.cardId });
    return json(201, cardView(requireCard(state, seen.cardId)));
  }

  const f = Fields.of(ctx.body);
  f.onlyKnown(['cardholderId', 'fundingSource', 'maxSpendPerTransaction', 'maxSpendPerDay', 'maxTransactionsPerDay']);
  const cardholderId = f.string('cardholderId', { required: true, max: 200 });
  const fundingSource = f.string('fundingSource', { required: true, max: 200 });
  const maxSpendPerTransaction = f.integer('maxSpendPerTransaction', LIMIT_RULE);
  const maxSpendPerDay = f.integer('maxSpendPerDay', LIMIT_RULE);
  const maxTransactionsPerDay = f.integer('maxTransactionsPerDay', LIMIT_RULE);
  f.done();

  const holder = requireCustomer(state, f.req(cardholderId));
  const account = requireAccount(state, f.req(fundingSource));
  if (account.customerId !== holder.id) throw invalidField('fundingSource', 'CONFLICT', 'must be an internal account of the cardholder');
  if (holder.kycStatus !== 'APPROVED') {
    throw badRequest('CARDHOLDER_KYC_NOT_APPROVED', `The cardholder's KYC status is ${holder.kycStatus}, not APPROVED`);
  }
  const caps = (accountView(account).cardCapabilities ?? {}) as CardCapabilities;
  const refused: FieldError[] = [];
  if (caps.supportsSpendLimitsAtIssuance !== true) {
    for (const [name, value] of [['maxSpendPerTransaction', maxSpendPerTransaction], ['maxSpendPerDay', maxSpendPerDay]] as const) {
      if (value !== undefined) refused.push({ field: name, constraint: 'CONFLICT', message: 'the funding source does not support spend limits at issuance' });
    }
  }
  if (caps.supportsTransactionCountLimit !== true && maxTransactionsPerDay !== undefined) {
    refused.push({ field: 'maxTransactionsPerDay', constraint: 'CONFLICT', message: 'the funding source does not support a transaction count limit' });
  }
  if (refused.length > 0) throw invalidInput('The funding source does not support these limits', refused);

  const now = state.clock.now();
  const expiry = new Date(now);
  const card: CardRecord = {
    id: newId('Card'),
    cardholderId: holder.id,
    fundingSource: account.id,
    currency: account.currency,
    status: 'PROCESSING',
    ...(maxSpendPerTransaction !== undefined ? { maxSpendPerTransaction } : {}),
    ...(maxSpendPerDay !== undefined ? { maxSpendPerDay } : {}),
    ...(maxTransactionsPerDay !== undefined ? { maxTransactionsPerDay } : {}),
    last4: String(randomInt(0, 10_000)).padStart(4, '0'),
    expirationMonth: expiry.getUTCMonth() + 1,
    expirationYear: expiry.getUTCFullYear() + CARD_LIFETIME_YEARS,
    createdAt: now,
    updatedAt: now,
  };
  cards(state.store).set(card.id, card);
  issued(state.store).set(key, { cardId: card.id, body: ctx.body });
  return json(201, cardView(card));
}

function getCard(ctx: RequestContext) {
  return json(200, cardView(requireCard(ctx.state, ctx.param('cardId'))));
}

export function registerCardRoutes(router: Router): void {
  router.post('/cards', createCard);
  router.get('/cards/:cardId', getCard);
}
