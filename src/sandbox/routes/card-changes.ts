/**
 * Listing and changing cards (spec §3.4, §4.6; issue 25). Decided here where the spec is open:
 *
 * - `GET /cards?cardholderId=&fundingSource=&status=&limit=&cursor=` (the spec names the filters,
 *   not their parameters): the list shape of §2.1, oldest first; a bad `status` → `400 INVALID_INPUT`.
 * - `PATCH /cards/{id}` body `{status?, fundingSource?, maxSpendPerTransaction?, maxSpendPerDay?,
 *   maxTransactionsPerDay?}`, at least one (else `400 INVALID_INPUT`); the platform credential alone
 *   authenticates it, no signed retry (rule 7). Checked in this order:
 *   1. fields: unknown ones, a `status` outside `ACTIVE | FROZEN | CLOSED`, limits that are not
 *      positive integers or `null` (clears) → `400 INVALID_INPUT` listing them all;
 *   2. `status: CLOSED` on a closed card → `409 CARD_ALREADY_CLOSED`; anything else on a closed card →
 *      `409 CARD_NOT_MUTABLE`;
 *   3. `fundingSource` or a limit together with `status: CLOSED` (rules 4, 5), or `fundingSource`
 *      with any `status` (rule 4: the sandbox's issuer makes the authorization decisions) → `400
 *      INVALID_INPUT`;
 *   4. a transition other than ACTIVE→FROZEN, FROZEN→ACTIVE, ACTIVE|FROZEN→CLOSED (so also
 *      ACTIVE→ACTIVE) → `409 INVALID_STATE_TRANSITION`;
 *   5. `fundingSource` of another customer or currency → `400 INVALID_INPUT` (rule 4); an unknown
 *      one `404 ACCOUNT_NOT_FOUND`; spend limits without the card's funding source's
 *      `supportsSpendLimits`, `maxTransactionsPerDay` without `supportsTransactionCountLimit` →
 *      `400 INVALID_INPUT` (rule 2).
 *   Then all changes apply at once → `200 Card`. Closing sets `statusReason: CLOSED_BY_PLATFORM` and
 *   detaches the funding source (the card no longer names one); the card stays readable.
 */
import { json, type RequestContext } from '../context.js';
import { cards, requireCard, type CardRecord, type CardStatus } from '../domain/cards.js';
import { conflict, invalidField, invalidInput, type FieldError } from '../errors.js';
import { paginate } from '../list.js';
import { requireAccount } from '../lookups.js';
import type { Router } from '../router.js';
import { Fields, queryParam } from '../validate.js';
import { accountView } from '../views.js';
import { cardView } from './cards.js';

const STATUSES: readonly CardStatus[] = ['PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'];
const REQUESTABLE = ['ACTIVE', 'FROZEN', 'CLOSED'] as const;
const LIMITS = ['maxSpendPerTransaction', 'maxSpendPerDay', 'maxTransactionsPerDay'] as const;
type Limit = (typeof LIMITS)[number];

function listCards(ctx: RequestContext) {
  const cardholderId = queryParam(ctx.query, 'cardholderId', { max: 200 });
  const fundingSource = queryParam(ctx.query, 'fundingSource', { max: 200 });
  const status = ctx.query.get('status');
  if (status !== null && !(STATUSES as readonly string[]).includes(status)) {
    throw invalidInput('status must be a card status', [{ field: 'status', constraint: 'ENUM', message: `must be one of ${STATUSES.join(', ')}` }]);
  }
  const all = [...cards(ctx.state.store).values()]
    .map((c) => requireCard(ctx.state, c.id))
    .filter((c) => (cardholderId === undefined || c.cardholderId === cardholderId) && (fundingSource === undefined || c.fundingSource === fundingSource) && (status === null || c.status === status));
  return json(200, paginate(all, ctx.query, cardView));
}

interface CardPatch {
  status?: (typeof REQUESTABLE)[number];
  fundingSource?: string;
  /** A limit's new value; `null` clears it. */
  limits: Partial<Record<Limit, number | null>>;
}

function parsePatch(body: unknown): CardPatch {
  const raw = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : body;
  // null clears a limit: take those out before the typed checks.
  const cleared = LIMITS.filter((name) => typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)[name] === null);
  const rest = typeof raw === 'object' && raw !== null ? Object.fromEntries(Object.entries(raw).filter(([k]) => !(cleared as readonly string[]).includes(k))) : raw;
  const f = Fields.of(rest);
  f.onlyKnown(['status', 'fundingSource', ...LIMITS]);
  const status = f.enum('status', REQUESTABLE);
  const fundingSource = f.string('fundingSource', { max: 200 });
  const limits: CardPatch['limits'] = {};
  for (const name of LIMITS) {
    const value = f.integer(name, { min: 1, max: Number.MAX_SAFE_INTEGER });
    if (value !== undefined) limits[name] = value;
  }
  f.done();
  for (const name of cleared) limits[name] = null;
  const patch: CardPatch = { limits, ...(status !== undefined ? { status } : {}), ...(fundingSource !== undefined ? { fundingSource } : {}) };
  if (status === undefined && fundingSource === undefined && Object.keys(limits).length === 0) {
    throw invalidInput(`The update must carry at least one of status, fundingSource, ${LIMITS.join(', ')}`);
  }
  return patch;
}

function allowed(from: CardStatus, to: CardStatus): boolean {
  return (from === 'ACTIVE' && (to === 'FROZEN' || to === 'CLOSED')) || (from === 'FROZEN' && (to === 'ACTIVE' || to === 'CLOSED'));
}

function updateCard(ctx: RequestContext) {
  const { state } = ctx;
  const patch = parsePatch(ctx.body);
  const card = requireCard(state, ctx.param('cardId'));
  if (card.status === 'CLOSED') {
    if (patch.status === 'CLOSED') throw conflict('CARD_ALREADY_CLOSED', 'The card is already closed');
    throw conflict('CARD_NOT_MUTABLE', 'A closed card cannot be changed');
  }
  const limitNames = Object.keys(patch.limits) as Limit[];
  if (patch.status === 'CLOSED' && (patch.fundingSource !== undefined || limitNames.length > 0)) {
    throw invalidInput('Closing a card takes no fundingSource and no limits', [...(patch.fundingSource !== undefined ? ['fundingSource'] : []), ...limitNames].map((field) => ({ field, constraint: 'CONFLICT' as const, message: 'cannot be sent with status CLOSED' })));
  }
  if (patch.status !== undefined && patch.fundingSource !== undefined) {
    throw invalidField('fundingSource', 'CONFLICT', 'cannot be combined with a status change (the issuer makes the authorization decisions)');
  }
  if (patch.status !== undefined && !allowed(card.status, patch.status)) {
    throw conflict('INVALID_STATE_TRANSITION', `A card cannot go from ${card.status} to ${patch.status}`);
  }
  if (patch.fundingSource !== undefined) {
    const account = requireAccount(state, patch.fundingSource);
    if (account.customerId !== card.cardholderId) throw invalidField('fundingSource', 'CONFLICT', 'must be an internal account of the cardholder');
    if (account.currency !== card.currency) throw invalidField('fundingSource', 'CONFLICT', `must be in the card's currency (${card.currency})`);
  }
  const source = card.fundingSource === undefined ? undefined : state.store.accounts.get(card.fundingSource);
  const caps = (source === undefined ? {} : (accountView(source).cardCapabilities ?? {})) as Record<string, unknown>;
  const refused: FieldError[] = [];
  for (const name of limitNames) {
    const needs = name === 'maxTransactionsPerDay' ? 'supportsTransactionCountLimit' : 'supportsSpendLimits';
    if (caps[needs] !== true) refused.push({ field: name, constraint: 'CONFLICT', message: `the funding source does not support it (${needs})` });
  }
  if (refused.length > 0) throw invalidInput('The funding source does not support these limits', refused);

  apply(card, patch, state.clock.now());
  return json(200, cardView(card));
}

function apply(card: CardRecord, patch: CardPatch, now: number): void {
  for (const [name, value] of Object.entries(patch.limits) as [Limit, number | null][]) {
    if (value === null) delete card[name];
    else card[name] = value;
  }
  if (patch.fundingSource !== undefined) card.fundingSource = patch.fundingSource;
  if (patch.status !== undefined) {
    card.status = patch.status;
    if (patch.status === 'CLOSED') {
      card.statusReason = 'CLOSED_BY_PLATFORM';
      delete card.fundingSource;
    }
  }
  card.updatedAt = now;
}

export function registerCardChangeRoutes(router: Router): void {
  router.get('/cards', listCards);
  router.patch('/cards/:cardId', updateCard);
}
