/**
 * Quotes and the money movement behind them (spec §2.4, §2.5, §3.2, §3.3, §4.3).
 *
 * Decided here, where the spec and the wire reference leave it open:
 * - Same currency: `exchangeRate` 1, `feesIncluded` and `platformFeesIncluded` 0, so the sending and
 *   receiving totals both equal `lockedCurrencyAmount` whichever side is locked. Different
 *   currencies: fixed sandbox rates between one customer's own accounts, else `400
 *   QUOTE_RATE_UNAVAILABLE` (rates.ts).
 * - A quote lives {@link QUOTE_TTL_MS} (5 minutes, the spec §8 example).
 * - Execution moves both balances at once (sender's available and total debited, receiver's
 *   credited) and records an `OUTGOING` `DEBIT` transaction for the sender and an `INCOMING`
 *   `CREDIT` one for the receiver, both `PROCESSING`. They settle to `COMPLETED` (with `settledAt`)
 *   on the next read of a quote or a transaction ({@link settleTransfers}); the quote then carries
 *   `transactionId` (the sender's `OUTGOING` transaction) and keeps `status: PROCESSING` (the spec
 *   names no later quote status).
 * - The balance is checked at execution, not at quote creation (`400 INSUFFICIENT_FUNDS`).
 */
import { badRequest } from '../errors.js';
import { requireCustomer } from '../lookups.js';
import type { SandboxState } from '../context.js';
import { newId, type InternalAccountRecord, type Store, type TransactionRecord } from '../store.js';

export const QUOTE_TTL_MS = 5 * 60 * 1000;

export type QuoteStatus = 'PENDING' | 'PROCESSING';
export type LockedSide = 'SENDING' | 'RECEIVING';

export interface QuoteRecord {
  id: string;
  status: QuoteStatus;
  sourceAccountId: string;
  destinationAccountId: string;
  sendingCurrency: string;
  receivingCurrency: string;
  totalSendingAmount: number;
  totalReceivingAmount: number;
  exchangeRate: number;
  lockedCurrencySide: LockedSide;
  lockedCurrencyAmount: number;
  description?: string;
  /** Embedded-wallet sources: the payload the execute stamp must sign. */
  payloadToSign?: string;
  createdAt: number;
  expiresAt: number;
  executedAt?: number;
  /** Ids of the two transactions, set at execution. */
  outgoingTransactionId?: string;
  incomingTransactionId?: string;
  /** Set once the transactions settled (spec: "includes the transaction id when settled"). */
  transactionId?: string;
}

export function quotes(store: Store): Map<string, QuoteRecord> {
  return store.collection<QuoteRecord>('quotes');
}

/** Quotes executed but not yet settled. */
function unsettled(store: Store): Map<string, QuoteRecord> {
  return store.collection<QuoteRecord>('quotes.unsettled');
}

/**
 * Moves the money for `quote` and records the two transactions. The caller has checked the state
 * (PENDING, not expired, signature) and calls this synchronously right after.
 * Throws `400 INSUFFICIENT_FUNDS` when the sender's available balance is short.
 */
export function executeTransfer(state: SandboxState, quote: QuoteRecord, sender: InternalAccountRecord, receiver: InternalAccountRecord): void {
  const store = state.store;
  if (sender.available < quote.totalSendingAmount) {
    throw badRequest('INSUFFICIENT_FUNDS', 'The source account balance is lower than the quote amount', {
      available: sender.available,
      required: quote.totalSendingAmount,
    });
  }
  const senderCustomer = requireCustomer(state, sender.customerId);
  const receiverCustomer = requireCustomer(state, receiver.customerId);
  const now = state.clock.now();
  sender.available -= quote.totalSendingAmount;
  sender.total -= quote.totalSendingAmount;
  sender.updatedAt = now;
  receiver.available += quote.totalReceivingAmount;
  receiver.total += quote.totalReceivingAmount;
  receiver.updatedAt = now;
  const common = {
    status: 'PROCESSING',
    source: { accountId: sender.id, currency: quote.sendingCurrency },
    destination: { accountId: receiver.id, currency: quote.receivingCurrency },
    sentAmount: { amount: quote.totalSendingAmount, currency: quote.sendingCurrency },
    receivedAmount: { amount: quote.totalReceivingAmount, currency: quote.receivingCurrency },
    ...(quote.description !== undefined ? { description: quote.description } : {}),
    exchangeRate: quote.exchangeRate,
    quoteId: quote.id,
    createdAt: now,
  } as const;
  const outgoing: TransactionRecord = {
    ...common,
    id: newId('Transaction'),
    type: 'OUTGOING',
    direction: 'DEBIT',
    customerId: senderCustomer.id,
    platformCustomerId: senderCustomer.platformCustomerId,
    accountId: sender.id,
  };
  const incoming: TransactionRecord = {
    ...common,
    id: newId('Transaction'),
    type: 'INCOMING',
    direction: 'CREDIT',
    customerId: receiverCustomer.id,
    platformCustomerId: receiverCustomer.platformCustomerId,
    accountId: receiver.id,
  };
  store.transactions.set(outgoing.id, outgoing);
  store.transactions.set(incoming.id, incoming);
  quote.status = 'PROCESSING';
  quote.executedAt = now;
  quote.outgoingTransactionId = outgoing.id;
  quote.incomingTransactionId = incoming.id;
  unsettled(store).set(quote.id, quote);
}

/** Settles every executed transfer: its transactions become COMPLETED, the quote gets `transactionId`. */
export function settleTransfers(state: SandboxState): void {
  const pending = unsettled(state.store);
  if (pending.size === 0) return;
  const now = state.clock.now();
  for (const quote of pending.values()) {
    for (const id of [quote.outgoingTransactionId, quote.incomingTransactionId]) {
      const tx = id === undefined ? undefined : state.store.transactions.get(id);
      if (tx !== undefined && tx.status === 'PROCESSING') {
        tx.status = 'COMPLETED';
        tx.settledAt = now;
      }
    }
    if (quote.outgoingTransactionId !== undefined) quote.transactionId = quote.outgoingTransactionId;
  }
  pending.clear();
}
