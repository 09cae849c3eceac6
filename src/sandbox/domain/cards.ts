/**
 * Cards (spec §3.4, §4.6): the record, lookup and provisioning.
 *
 * Decided here: the sandbox issuer always provisions successfully, and it does so at the first read
 * after creation — a card answers `PROCESSING` from `POST /cards` and `ACTIVE` from any later read
 * (`GET /cards/{id}`, an idempotent replay of `POST /cards`, delegated-key creation). That keeps
 * tests deterministic while a client still has to cope with the `PROCESSING` state.
 * The spec names no 404 code for cards: an unknown card is `404 NOT_FOUND`.
 */
import { notFound } from '../errors.js';
import type { SandboxState } from '../context.js';
import type { Store } from '../store.js';

export type CardStatus = 'PROCESSING' | 'ACTIVE' | 'FROZEN' | 'CLOSED';

export interface CardRecord {
  id: string;
  /** The cardholder (a customer id). */
  cardholderId: string;
  /** The bound internal account; none once the card is closed (detached, spec §3.4). */
  fundingSource?: string;
  currency: string;
  status: CardStatus;
  /** Why it is CLOSED (`CLOSED_BY_PLATFORM`). */
  statusReason?: string;
  maxSpendPerTransaction?: number;
  maxSpendPerDay?: number;
  maxTransactionsPerDay?: number;
  last4: string;
  expirationMonth: number;
  expirationYear: number;
  createdAt: number;
  updatedAt: number;
}

export function cards(store: Store): Map<string, CardRecord> {
  return store.collection<CardRecord>('cards');
}

/** Completes provisioning of a card created by an earlier request. */
export function provision(state: SandboxState, card: CardRecord): CardRecord {
  if (card.status === 'PROCESSING') {
    card.status = 'ACTIVE';
    card.updatedAt = state.clock.now();
  }
  return card;
}

/** A card by id (`404 NOT_FOUND`), provisioned if it was still processing. */
export function requireCard(state: SandboxState, id: string): CardRecord {
  const card = cards(state.store).get(id);
  if (card === undefined) throw notFound('NOT_FOUND', `Card ${id} was not found`);
  return provision(state, card);
}
