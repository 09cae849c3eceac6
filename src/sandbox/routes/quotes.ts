/**
 * Quotes (spec §3.2, §4.3; wire-reference §8.3). Money movement: domain/transfers.ts.
 *
 * - `POST /quotes` `{source:{sourceType:"ACCOUNT", accountId}, destination:{destinationType:"ACCOUNT",
 *   accountId}, lockedCurrencySide, lockedCurrencyAmount, description?, immediatelyExecute?}` →
 *   `201 Quote` `PENDING` (or `PROCESSING` when executed at once). Every bad field is listed in
 *   `details.errors[]`; unknown fields are refused too (`UNKNOWN_FIELD`, decided here so that a
 *   misspelt `immediatelyExecute` cannot pass silently). Only `ACCOUNT` sources and destinations
 *   exist in the sandbox. Unknown account → `404 ACCOUNT_NOT_FOUND`; source = destination →
 *   `400 SELF_PAYMENT`; different currencies: fixed sandbox rates (rates.ts), between one customer's
 *   accounts or two customers' alike (spec §1, §4.3); a pair without a rate or an amount too small
 *   to price → `400 QUOTE_RATE_UNAVAILABLE`.
 * - An `EMBEDDED_WALLET` source gives `paymentInstructions: [{accountOrWalletInfo:{accountType:
 *   "EMBEDDED_WALLET", payloadToSign}, instructionsNotes}]`; `immediatelyExecute: true` is refused for
 *   it with `400 INVALID_INPUT` (field `immediatelyExecute`, constraint `CONFLICT`): the spec allows
 *   immediate execution only where no wallet signature is needed. Other internal-account sources
 *   may execute at once (`400 INSUFFICIENT_FUNDS` then creates no quote).
 * - `GET /quotes/{id}` → `200 Quote` (`404 QUOTE_NOT_FOUND`); `transactionId` once settled.
 * - `POST /quotes/{id}/execute` (no body, or `{}`) → `200 Quote` `PROCESSING`. Order of checks:
 *   unknown quote `404 QUOTE_NOT_FOUND`; for an embedded-wallet source the `Service-Wallet-Signature`
 *   stamp over the quote's `payloadToSign` by an active session of that wallet (or
 *   `sandbox-valid-signature`), on a replay too — one stamped call, or a 202 first leg and a signed
 *   retry, by the sandbox's `quoteExecute` mode (quote-execute.ts: the spec reads both ways;
 *   `401 WALLET_SIGNATURE_MISSING / _MALFORMED / _INVALID`, `REQUEST_ID_MISSING`); an `Idempotency-Key`
 *   already answered → the same answer again; quote not
 *   `PENDING` → `409 CONFLICT` (no double spend without an idempotency key); expired →
 *   `400 QUOTE_EXPIRED`; short balance → `400 INSUFFICIENT_FUNDS`.
 *
 * Idempotency (decided here): `Idempotency-Key` (1–255 visible ASCII characters, else
 * `400 INVALID_INPUT`) is remembered with the quote it executed, and only a successful execution is
 * recorded: the same key on the same quote replays that `200` body byte for byte; the same key on
 * another quote → `409 CONFLICT`. A failed attempt records nothing, so a corrected retry with the
 * same key proceeds.
 */
import { present } from '../present.js';
import { json, type Reply, type RequestContext } from '../context.js';
import { currencyView } from '../currencies.js';
import { price } from '../rates.js';
import { executeTransfer, quotes, QUOTE_TTL_MS, settleTransfers, type LockedSide, type QuoteRecord } from '../domain/transfers.js';
import { badRequest, conflict, invalidInput, notFound } from '../errors.js';
import { idempotencyKey } from '../idempotency.js';
import { requireAccount, requireProvisionedWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { bodyDigest, issueChallenge, requireStamp, retryHeaders, verifyRetry } from '../signed-retry.js';
import { newId, type Store } from '../store.js';
import { Fields, isPlainObject } from '../validate.js';

const ID_RULE = { required: true, max: 200 } as const;
const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;
const LOCKED_SIDES: readonly LockedSide[] = ['SENDING', 'RECEIVING'];

interface ExecutionRecord {
  quoteId: string;
  body: unknown;
}

function executions(store: Store): Map<string, ExecutionRecord> {
  return store.collection<ExecutionRecord>('quotes.executions');
}

export function quoteView(q: QuoteRecord): Record<string, unknown> {
  return present('Quote', {
    id: q.id,
    status: q.status,
    createdAt: new Date(q.createdAt).toISOString(),
    expiresAt: new Date(q.expiresAt).toISOString(),
    source: { sourceType: 'ACCOUNT', accountId: q.sourceAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: q.destinationAccountId },
    sendingCurrency: currencyView(q.sendingCurrency),
    receivingCurrency: currencyView(q.receivingCurrency),
    totalSendingAmount: q.totalSendingAmount,
    totalReceivingAmount: q.totalReceivingAmount,
    exchangeRate: q.exchangeRate,
    feesIncluded: 0,
    platformFeesIncluded: 0,
    lockedCurrencySide: q.lockedCurrencySide,
    lockedCurrencyAmount: q.lockedCurrencyAmount,
    ...(q.description !== undefined ? { description: q.description } : {}),
    ...(q.transactionId !== undefined ? { transactionId: q.transactionId } : {}),
    ...(q.payloadToSign !== undefined
      ? {
          paymentInstructions: [
            {
              accountOrWalletInfo: { accountType: 'EMBEDDED_WALLET', payloadToSign: q.payloadToSign },
              instructionsNotes: 'Sign payloadToSign with a session key of the wallet and send the stamp to POST /quotes/{id}/execute.',
            },
          ],
        }
      : {}),
  });
}

interface QuoteRequest {
  sourceAccountId: string;
  destinationAccountId: string;
  lockedCurrencySide: LockedSide;
  lockedCurrencyAmount: number;
  description?: string;
  immediatelyExecute: boolean;
}

function accountRef(f: Fields, name: 'source' | 'destination'): string | undefined {
  const typeField = name === 'source' ? 'sourceType' : 'destinationType';
  const ref = f.object(name, { required: true });
  if (ref === undefined) return undefined;
  ref.onlyKnown([typeField, 'accountId']);
  const type = ref.string(typeField, { required: true, max: 64 });
  if (type !== undefined && type !== 'ACCOUNT') ref.add(typeField, 'ENUM', 'must be ACCOUNT (the sandbox supports account-to-account quotes only)');
  return ref.string('accountId', ID_RULE);
}

function parseQuoteRequest(body: unknown): QuoteRequest {
  const f = Fields.of(body);
  f.onlyKnown(['source', 'destination', 'lockedCurrencySide', 'lockedCurrencyAmount', 'description', 'immediatelyExecute']);
  const sourceAccountId = accountRef(f, 'source');
  const destinationAccountId = accountRef(f, 'destination');
  const lockedCurrencySide = f.enum('lockedCurrencySide', LOCKED_SIDES, { required: true });
  const lockedCurrencyAmount = f.integer('lockedCurrencyAmount', { required: true, min: 1, max: MAX_AMOUNT });
  const description = f.string('description', { max: 1000 });
  const immediatelyExecute = f.boolean('immediatelyExecute') ?? false;
  f.done();
  return {
    sourceAccountId: f.req(sourceAccountId),
    destinationAccountId: f.req(destinationAccountId),
    lockedCurrencySide: f.req(lockedCurrencySide),
    lockedCurrencyAmount: f.req(lockedCurrencyAmount),
    ...(description !== undefined ? { description } : {}),
    immediatelyExecute,
  };
}

function createQuote(ctx: RequestContext) {
  const { state } = ctx;
  const req = parseQuoteRequest(ctx.body);
  const source = requireAccount(state, req.sourceAccountId);
  const destination = requireAccount(state, req.destinationAccountId);
  if (source.id === destination.id) throw badRequest('SELF_PAYMENT', 'The source and destination accounts are the same');
  // Cross-currency: fixed sandbox rates, whoever holds the two accounts (rates.ts).
  const priced = price(currencyView(source.currency), currencyView(destination.currency), req.lockedCurrencySide, req.lockedCurrencyAmount);
  if (priced === undefined || priced.totalSendingAmount <= 0 || priced.totalReceivingAmount <= 0) {
    throw badRequest('QUOTE_RATE_UNAVAILABLE', `The sandbox cannot price ${req.lockedCurrencyAmount} from ${source.currency} to ${destination.currency} (no rate for the pair, or the other side would be zero)`);
  }
  if (source.type === 'EMBEDDED_WALLET') requireProvisionedWallet(state, source.id, 'source.accountId');
  if (source.type === 'EMBEDDED_WALLET' && req.immediatelyExecute) {
    throw invalidInput('immediatelyExecute is not allowed for an embedded-wallet source: execute the quote with a wallet signature', [
      { field: 'immediatelyExecute', constraint: 'CONFLICT', message: 'must be false for an EMBEDDED_WALLET source' },
    ]);
  }
  const now = state.clock.now();
  const quote: QuoteRecord = {
    id: newId('Quote'),
    status: 'PENDING',
    sourceAccountId: source.id,
    destinationAccountId: destination.id,
    sendingCurrency: source.currency,
    receivingCurrency: destination.currency,
    totalSendingAmount: priced.totalSendingAmount,
    totalReceivingAmount: priced.totalReceivingAmount,
    exchangeRate: priced.exchangeRate,
    lockedCurrencySide: req.lockedCurrencySide,
    lockedCurrencyAmount: req.lockedCurrencyAmount,
    ...(req.description !== undefined ? { description: req.description } : {}),
    createdAt: now,
    expiresAt: now + QUOTE_TTL_MS,
  };
  if (source.type === 'EMBEDDED_WALLET') {
    // Unique per quote (its id and the time), binds the transfer's terms and the request body.
    quote.payloadToSign = JSON.stringify({
      type: 'ACTIVITY_TYPE_EXECUTE_QUOTE',
      quoteId: quote.id,
      organizationId: source.organizationId ?? source.id,
      timestampMs: String(now),
      parameters: {
        sourceAccountId: source.id,
        destinationAccountId: destination.id,
        sendingCurrency: quote.sendingCurrency,
        totalSendingAmount: quote.totalSendingAmount,
        receivingCurrency: quote.receivingCurrency,
        totalReceivingAmount: quote.totalReceivingAmount,
        expiresAt: new Date(quote.expiresAt).toISOString(),
      },
      bodyDigest: bodyDigest(ctx.rawBody),
    });
  }
  if (req.immediatelyExecute) executeTransfer(state, quote, source, destination);
  quotes(state.store).set(quote.id, quote);
  return json(201, quoteView(quote));
}

function requireQuote(ctx: RequestContext): QuoteRecord {
  const id = ctx.param('quoteId');
  const quote = quotes(ctx.state.store).get(id);
  if (quote === undefined) throw notFound('QUOTE_NOT_FOUND', `Quote ${id} was not found`);
  return quote;
}

function getQuote(ctx: RequestContext) {
  settleTransfers(ctx.state);
  return json(200, quoteView(requireQuote(ctx)));
}

/**
 * The signature of an embedded-wallet execution, by the sandbox's mode (quote-execute.ts). Returns
 * a `202` challenge for an unsigned call in the `signed-retry` and `either` modes, else null once
 * the stamp (or the signed retry) is verified.
 */
function checkExecuteSignature(ctx: RequestContext, quote: QuoteRecord & { payloadToSign: string }): Reply | null {
  const signer = { kind: 'session', accountIds: [quote.sourceAccountId] } as const;
  const mode = ctx.state.config.quoteExecute;
  const { stamp, requestId } = retryHeaders(ctx);
  if (mode === 'stamp' || (mode === 'either' && stamp !== undefined && requestId === undefined)) {
    requireStamp(ctx, quote.payloadToSign, signer);
    return null;
  }
  if (verifyRetry(ctx) !== null) return null;
  const source = requireAccount(ctx.state, quote.sourceAccountId);
  return issueChallenge(ctx, {
    type: 'EXECUTE_QUOTE',
    organizationId: source.organizationId ?? source.id,
    parameters: { quoteId: quote.id },
    // Spec §5.3: "where payloadToSign comes from the quote": the same bytes as in paymentInstructions.
    payloadToSign: quote.payloadToSign,
    signer,
  });
}

function executeQuote(ctx: RequestContext) {
  const { state } = ctx;
  if (ctx.body !== undefined && !(isPlainObject(ctx.body) && Object.keys(ctx.body).length === 0)) {
    throw invalidInput('POST /quotes/{id}/execute takes no body');
  }
  const key = idempotencyKey(ctx);
  const quote = requireQuote(ctx);
  // The signature first, replay or not: an Idempotency-Key proves nothing about who asks.
  if (quote.payloadToSign !== undefined) {
    const challenge = checkExecuteSignature(ctx, { ...quote, payloadToSign: quote.payloadToSign });
    if (challenge !== null) return challenge;
  }
  const seen = key === undefined ? undefined : executions(state.store).get(key);
  if (seen !== undefined) {
    if (seen.quoteId !== quote.id) throw conflict('CONFLICT', 'This Idempotency-Key was already used to execute another quote', { quoteId: seen.quoteId });
    return json(200, seen.body);
  }
  if (quote.status !== 'PENDING') {
    throw conflict('CONFLICT', 'The quote was already executed', { status: quote.status });
  }
  if (state.clock.now() >= quote.expiresAt) {
    throw badRequest('QUOTE_EXPIRED', 'The quote has expired: request a new quote', { expiresAt: new Date(quote.expiresAt).toISOString() });
  }
  const source = requireAccount(state, quote.sourceAccountId);
  const destination = requireAccount(state, quote.destinationAccountId);
  executeTransfer(state, quote, source, destination);
  const body = quoteView(quote);
  if (key !== undefined) executions(state.store).set(key, { quoteId: quote.id, body });
  return json(200, body);
}

export function registerQuoteRoutes(router: Router): void {
  router.post('/quotes', createQuote);
  router.get('/quotes/:quoteId', getQuote);
  router.post('/quotes/:quoteId/execute', executeQuote);
}
