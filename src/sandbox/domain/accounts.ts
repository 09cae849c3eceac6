/**
 * Internal accounts made with a customer (wire-reference / issue: one per listed currency, plus one
 * `EMBEDDED_WALLET` account holding a fresh BIP-39 mnemonic and an `EMAIL_OTP` credential for the
 * customer's email), and sandbox funding.
 *
 * Decided here: a customer without an email still gets its embedded wallet, but with no credential:
 * the wallet is NOT PROVISIONED (spec §7.4 `409 WALLET_NOT_PROVISIONED`, "embedded wallet not
 * provisioned"). Every call that acts on such a wallet — adding a credential, a signed action on it
 * (PATCH, export, delegated key), a quote from it — answers `409 WALLET_NOT_PROVISIONED`
 * (lookups.ts `requireProvisionedWallet`); reads (credential and session lists) answer empty. Setting
 * the customer's email (a plain `PATCH /customers/{id}`: no credential is tied yet) provisions it:
 * the `EMAIL_OTP` credential is created then. Embedded wallets hold USDC.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { EMBEDDED_WALLET_CURRENCY, findCurrency } from '../currencies.js';
import { generateMnemonicEntropy } from '../crypto/bip39.js';
import type { SandboxState } from '../context.js';
import { newId, type AuthMethodRecord, type CustomerRecord, type InternalAccountRecord, type TransactionRecord } from '../store.js';

function reference(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

export function createCustomerAccounts(state: SandboxState, customer: CustomerRecord): InternalAccountRecord[] {
  const now = state.clock.now();
  const accounts: InternalAccountRecord[] = customer.currencies.map((code) => ({
    id: newId('InternalAccount'),
    customerId: customer.id,
    type: findCurrency(code)?.crypto ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT',
    currency: code,
    available: 0,
    total: 0,
    privateEnabled: false,
    reference: reference(),
    createdAt: now,
    updatedAt: now,
  }));
  const wallet: InternalAccountRecord = {
    id: newId('InternalAccount'),
    customerId: customer.id,
    type: 'EMBEDDED_WALLET',
    currency: EMBEDDED_WALLET_CURRENCY,
    available: 0,
    total: 0,
    privateEnabled: false,
    organizationId: randomUUID(),
    mnemonicEntropy: generateMnemonicEntropy(),
    reference: reference(),
    createdAt: now,
    updatedAt: now,
  };
  accounts.push(wallet);
  for (const a of accounts) state.store.accounts.set(a.id, a);
  if (customer.email !== undefined) provisionWallet(state, wallet, customer.email);
  return accounts;
}

/** Provisions a wallet: its `EMAIL_OTP` credential for `email` (at creation, or when the email is first set). */
export function provisionWallet(state: SandboxState, wallet: InternalAccountRecord, email: string): void {
  const now = state.clock.now();
  const method: AuthMethodRecord = { id: newId('AuthMethod'), accountId: wallet.id, type: 'EMAIL_OTP', nickname: email, createdAt: now, updatedAt: now };
  state.store.authMethods.set(method.id, method);
}

/** Removes a customer's accounts, their credentials, sessions and pending OTPs (customer deletion). */
export function removeCustomerAccounts(state: SandboxState, customerId: string): void {
  const { store } = state;
  for (const a of store.accountsOfCustomer(customerId)) {
    for (const m of store.authMethodsOf(a.id)) {
      store.authMethods.delete(m.id);
      store.otpIssuances.delete(m.id);
      store.challengeTimes.delete(m.id);
    }
    for (const [id, s] of store.sessions) if (s.accountId === a.id) store.sessions.delete(id);
    store.accounts.delete(a.id);
  }
}

/** Adds `amount` to an account and records the INCOMING COMPLETED transaction. */
export function fundAccount(state: SandboxState, account: InternalAccountRecord, customer: CustomerRecord, amount: number): TransactionRecord {
  const now = state.clock.now();
  account.available += amount;
  account.total += amount;
  account.updatedAt = now;
  const tx: TransactionRecord = {
    id: newId('Transaction'),
    status: 'COMPLETED',
    type: 'INCOMING',
    direction: 'CREDIT',
    destination: { accountId: account.id, currency: account.currency },
    sentAmount: { amount, currency: account.currency },
    receivedAmount: { amount, currency: account.currency },
    customerId: customer.id,
    platformCustomerId: customer.platformCustomerId,
    description: 'Sandbox funding',
    settledAt: now,
    createdAt: now,
    accountId: account.id,
  };
  state.store.transactions.set(tx.id, tx);
  return tx;
}
