/**
 * Quotes funded by an embedded wallet (wire reference §8.3, spec §4.3): creating one (a plain call,
 * handy for demos and tests) and executing it — the quote's `EMBEDDED_WALLET` payload stamped with a
 * session of the source wallet and sent on `POST /quotes/{id}/execute`, always with an
 * `Idempotency-Key` so that a retried execution cannot pay twice.
 *
 * Decision (issue 34): the spec reads two ways. §4.3 says the execute call carries the stamp over
 * the quote's `payloadToSign` (one stamped leg, what the sandbox does: an unsigned call is 401);
 * §5.3 lists quote execute among the 202 signed-retry actions. The library sends the stamped leg
 * first (§4.3 and wire §8.3: one request) and then follows whichever reading the service shows:
 * - it answers `202` with a challenge: that ONE challenge is signed (shown to onBeforeSign as leg 2)
 *   and sent with its `Request-Id`; a second challenge is UNEXPECTED_CHALLENGE;
 * - it refuses a stamp without `Request-Id` (`REQUEST_ID_MISSING`, the signed-retry rule of a
 *   service that reads §5.3 alone): nothing was executed, so the call starts over once as a signed
 *   retry — an unsigned first leg, its `202`, the signed leg — with the same Idempotency-Key (the
 *   user is asked to sign twice: the refused stamp and the challenge).
 */
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord, type Quote } from '../types.js';
import { ACCOUNT_ID, accountOf, expectRecord, optionalString, requireString, seg } from './args.js';
import { signedNow } from './signing.js';

/** What `wallet.createQuote` asks a quote for: a payment between two accounts. */
export interface CreateQuoteArgs {
  /** The paying account (an embedded wallet for a quote that `executeQuote` signs). */
  sourceAccountId: string;
  /** The receiving account. */
  destinationAccountId: string;
  /** Integer amount in the smallest unit of the locked side's currency (cents for USD). */
  amount: number;
  /** Which side `amount` fixes; default 'SENDING'. */
  lockedCurrencySide?: 'SENDING' | 'RECEIVING';
  /** A description kept with the quote. */
  description?: string;
}

/** Options of `wallet.executeQuote`. */
export interface ExecuteQuoteOptions {
  /** Sent as `Idempotency-Key`; default a fresh random UUID. Pass your own to retry safely after a lost answer. */
  idempotencyKey?: string;
  /** The wallet whose session signs; default the quote's source account, else the current session's. */
  accountId?: string;
}

/** `Idempotency-Key` values the spec's sandbox accepts: 1–255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** `POST /quotes` for an account-to-account transfer → `201 Quote` PENDING. One request, no signature. */
export async function createQuote(ctx: WalletContext, args: CreateQuoteArgs): Promise<Quote> {
  if (!isRecord(args)) throw invalidArgument('args', 'an object { sourceAccountId, destinationAccountId, amount }');
  const sourceAccountId = requireString(args.sourceAccountId, 'args.sourceAccountId', ACCOUNT_ID);
  const destinationAccountId = requireString(args.destinationAccountId, 'args.destinationAccountId', ACCOUNT_ID);
  const { amount } = args;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) throw invalidArgument('args.amount', 'a positive integer (smallest currency unit)');
  const side = args.lockedCurrencySide ?? 'SENDING';
  if (side !== 'SENDING' && side !== 'RECEIVING') throw invalidArgument('args.lockedCurrencySide', "'SENDING' or 'RECEIVING'");
  const description = optionalString(args.description, 'args.description');
  const answer = await ctx.client.request<unknown>({
    method: 'POST',
    path: '/quotes',
    body: {
      source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
      destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
      lockedCurrencySide: side,
      lockedCurrencyAmount: amount,
      ...(description !== undefined ? { description } : {}),
    },
  });
  return expectRecord<Quote>(answer, 'a Quote');
}

/**
 * The payload the wallet signs: the first `paymentInstructions[].accountOrWalletInfo.payloadToSign`.
 * Decision (issue 25): the spec guarantees `payloadToSign` for an embedded-wallet source (§2.5) and
 * nothing else; `accountType: "EMBEDDED_WALLET"` is the wire reference's addition, so it is not
 * required — an entry that names ANOTHER account type is skipped (it is not the wallet's payload).
 */
export function walletPayloadOf(quote: Quote): string | undefined {
  const instructions = quote.paymentInstructions;
  if (!Array.isArray(instructions)) return undefined;
  for (const instruction of instructions) {
    const info: unknown = isRecord(instruction) ? instruction.accountOrWalletInfo : undefined;
    if (isRecord(info) && (info.accountType === undefined || info.accountType === 'EMBEDDED_WALLET') && typeof info.payloadToSign === 'string' && info.payloadToSign !== '') {
      return info.payloadToSign;
    }
  }
  return undefined;
}

function sourceAccountOf(quote: Quote): string | undefined {
  const source = quote.source;
  return isRecord(source) && typeof source.accountId === 'string' && source.accountId !== '' ? source.accountId : undefined;
}

function randomKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  if (typeof c?.getRandomValues !== 'function') throw new WalletError('CRYPTO_UNAVAILABLE', 'no crypto.getRandomValues to make an Idempotency-Key');
  return Array.from(c.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function amountText(quote: Quote): string {
  const amount = quote.totalSendingAmount;
  const currency = isRecord(quote.sendingCurrency) ? quote.sendingCurrency.code : undefined;
  return typeof amount === 'number' ? ` (${amount}${typeof currency === 'string' ? ` ${currency}` : ''} in smallest units)` : '';
}

/** The service's refusals a payer can act on, with messages that say what to do. */
function explained(error: WalletError, quote: Quote, account: string, idempotencyKey: string): WalletError {
  const details = { ...(error.details ?? {}), quoteId: quote.id, idempotencyKey };
  const base = { cause: error, details, ...(error.status !== undefined ? { status: error.status } : {}) };
  if (error.code === 'QUOTE_EXPIRED') {
    const at = typeof quote.expiresAt === 'string' ? ` at ${quote.expiresAt}` : '';
    return new WalletError('QUOTE_EXPIRED', `quote ${quote.id} expired${at}: create a new quote and execute that one`, base);
  }
  if (error.code === 'INSUFFICIENT_FUNDS') {
    return new WalletError('INSUFFICIENT_FUNDS', `${account} holds too little to pay quote ${quote.id}${amountText(quote)}: fund the wallet or quote a smaller amount`, base);
  }
  return new WalletError(error.code, error.message, base);
}

/**
 * Executes a quote funded by an embedded wallet: given the quote (or its id: then `GET /quotes/{id}`
 * first), stamps its EMBEDDED_WALLET payload with a session of the paying wallet (shown to
 * onBeforeSign first) and sends `POST /quotes/{id}/execute` with the stamp and an Idempotency-Key.
 * One request (two with an id) → the quote, PROCESSING; one more (a signed retry) when the service
 * answers the stamped leg with a 202 challenge, two more when it refuses a lone stamp
 * (`REQUEST_ID_MISSING`) and wants the signed retry (spec §5.3's reading).
 *
 * Errors: QUOTE_EXPIRED (also judged here, on the server's clock, before asking for a signature),
 * INSUFFICIENT_FUNDS, `409 CONFLICT` when already executed under another key, INVALID_ARGUMENT for a
 * quote with no EMBEDDED_WALLET payload. Errors of the execute call carry details.quoteId and
 * details.idempotencyKey (retry with that key after a lost answer: the service replays its result).
 */
export async function executeQuote(ctx: WalletContext, quoteOrId: Quote | string, options: ExecuteQuoteOptions = {}): Promise<Quote> {
  if (!isRecord(options)) throw invalidArgument('options', 'an object');
  const givenKey = options.idempotencyKey;
  if (givenKey !== undefined && (typeof givenKey !== 'string' || !IDEMPOTENCY_KEY.test(givenKey))) {
    throw invalidArgument('options.idempotencyKey', '1 to 255 visible ASCII characters');
  }
  const givenAccount = optionalString(options.accountId, 'options.accountId', ACCOUNT_ID);
  let quote: Quote;
  if (typeof quoteOrId === 'string') {
    const id = requireString(quoteOrId, 'quoteOrId', 'a Quote or a Quote id');
    quote = expectRecord<Quote>(await ctx.client.request<unknown>({ method: 'GET', path: `/quotes/${seg(id)}` }), 'a Quote');
  } else {
    if (!isRecord(quoteOrId) || typeof quoteOrId.id !== 'string' || quoteOrId.id === '') throw invalidArgument('quoteOrId', 'a Quote (with its id) or a Quote id');
    quote = quoteOrId;
  }
  const payload = walletPayloadOf(quote);
  if (payload === undefined) {
    throw new WalletError(
      'INVALID_ARGUMENT',
      `quote ${quote.id} has no EMBEDDED_WALLET payloadToSign: it is not funded by an embedded wallet, or its payment instructions are withheld (status ${String(quote.status)})`,
    );
  }
  // Decision: an expiry already visible on the server's clock (estimated from its Date headers) fails
  // here, so the user is never asked to sign for a quote the service will refuse.
  const expiresAt = typeof quote.expiresAt === 'string' ? Date.parse(quote.expiresAt) : Number.NaN;
  if (Number.isFinite(expiresAt) && ctx.sessions.serverNow() >= expiresAt) {
    throw new WalletError('QUOTE_EXPIRED', `quote ${quote.id} expired at ${String(quote.expiresAt)}: create a new quote and execute that one`, {
      details: { quoteId: quote.id, expiresAt: quote.expiresAt, judged: 'locally' },
    });
  }
  const account = givenAccount ?? sourceAccountOf(quote) ?? (await accountOf(ctx, undefined));
  const idempotencyKey = givenKey ?? randomKey();
  const execute = (stampOnly: string | undefined) =>
    signedNow<unknown>(ctx, { accountId: account }, {
      method: 'POST',
      path: `/quotes/${seg(quote.id)}/execute`,
      ...(stampOnly === undefined ? {} : { stampOnly }),
      // §5.3's reading: the service may answer with one 202 challenge (see the module comment).
      challenges: 1,
      idempotencyKey,
      purpose: 'execute-quote',
    });
  try {
    let done: Awaited<ReturnType<typeof execute>>;
    try {
      done = await execute(payload);
    } catch (error) {
      // A service that reads §5.3 alone refuses the lone stamp before doing anything: start over as a signed retry.
      if (!isWalletError(error, 'REQUEST_ID_MISSING')) throw error;
      done = await execute(undefined);
    }
    return expectRecord<Quote>(done.answer, 'the executed Quote');
  } catch (error) {
    throw isWalletError(error) ? explained(error, quote, account, idempotencyKey) : error;
  }
}
