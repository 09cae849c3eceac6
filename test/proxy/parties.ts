/**
 * Two customers on a real local sandbox, each with everything the library's routes name: a wallet
 * and a USDC account, the wallet's email credential, a session, a card, a quote, a delegated key
 * and a transaction. Made directly on the sandbox with the platform credentials, as a platform
 * backend (or the customer's own earlier calls) would have.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { Api, enc, start } from '../sandbox/helpers/http.js';
import { createCustomer, otpLogin, retryHeaders } from '../sandbox/helpers/flows.js';

export interface Party {
  readonly label: string;
  readonly customerId: string;
  readonly email: string;
  readonly fullName: string;
  readonly walletId: string;
  readonly usdcId: string;
  readonly credentialId: string;
  readonly sessionId: string;
  readonly cardId: string;
  readonly quoteId: string;
  readonly delegatedKeyId: string;
  readonly transactionId: string;
}

/** Every id and personal value of a party: none of them may appear in an answer to someone else. */
export function secretsOf(p: Party): string[] {
  return [p.customerId, p.email, p.fullName, p.walletId, p.usdcId, p.credentialId, p.sessionId, p.cardId, p.quoteId, p.delegatedKeyId, p.transactionId];
}

export async function makeParty(api: Api, label: string): Promise<Party> {
  const fullName = `${label} ${randomUUID().slice(0, 8)}`;
  const w = await createCustomer(api, { fullName, currencies: ['USDC'] });
  const usdc = w.accounts.find((a: { type: string }) => a.type !== 'EMBEDDED_WALLET');
  const { session, key } = await otpLogin(api, w.email.id);

  const card = await api.post('/cards', { cardholderId: w.customer.id, fundingSource: w.wallet.id }, { headers: { 'Idempotency-Key': randomUUID() } });
  expect(card.status, card.text).toBe(201);
  const quote = await api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: w.wallet.id },
    destination: { destinationType: 'ACCOUNT', accountId: usdc.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 5,
  });
  expect(quote.status, quote.text).toBe(201);

  const dkBody = { cardId: card.json.id, internalAccountId: w.wallet.id, nickname: `${label} signer` };
  const leg1 = await api.post('/auth/delegated-keys', dkBody);
  const leg2 = await api.post('/auth/delegated-keys', dkBody, { headers: retryHeaders(leg1, key) });
  const leg3 = await api.post('/auth/delegated-keys', dkBody, { headers: retryHeaders(leg2, key) });
  expect(leg3.status, leg3.text).toBe(201);

  const fund = await api.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount: 100 });
  expect(fund.status, fund.text).toBe(200);
  const txs = await api.get(`/transactions?customerId=${enc(w.customer.id)}`);
  expect(txs.status, txs.text).toBe(200);

  return {
    label,
    customerId: w.customer.id,
    email: w.customer.email,
    fullName,
    walletId: w.wallet.id,
    usdcId: usdc.id,
    credentialId: w.email.id,
    sessionId: session.id,
    cardId: card.json.id,
    quoteId: quote.json.id,
    delegatedKeyId: leg3.json.id,
    transactionId: txs.json.data[0].id,
  };
}

export async function startParties(): Promise<{ api: Api; alice: Party; bob: Party }> {
  const api = await start();
  const alice = await makeParty(api, 'Alice');
  const bob = await makeParty(api, 'Bob');
  return { api, alice, bob };
}
