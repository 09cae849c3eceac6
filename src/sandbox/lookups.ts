/**
 * Record lookups that answer the spec's 404 codes (and 400 when an id names the wrong kind of
 * record), shared by every route.
 */
import { conflict, invalidInput, notFound } from './errors.js';
import type { SandboxState } from './context.js';
import { isActive, type AuthMethodRecord, type CustomerRecord, type InternalAccountRecord, type SessionRecord } from './store.js';

export function requireCustomer(state: SandboxState, id: string): CustomerRecord {
  const c = state.store.customers.get(id);
  if (c === undefined) throw notFound('CUSTOMER_NOT_FOUND', `Customer ${id} was not found`);
  return c;
}

export function requireAccount(state: SandboxState, id: string): InternalAccountRecord {
  const a = state.store.accounts.get(id);
  if (a === undefined) throw notFound('ACCOUNT_NOT_FOUND', `Internal account ${id} was not found`);
  return a;
}

/** An `EMBEDDED_WALLET` internal account (404 when unknown, 400 for another account type). */
export function requireWallet(state: SandboxState, id: string, field = 'accountId'): InternalAccountRecord & { organizationId: string } {
  const a = requireAccount(state, id);
  if (a.type !== 'EMBEDDED_WALLET' || a.organizationId === undefined) {
    throw invalidInput(`${id} is not an embedded wallet`, [{ field, constraint: 'FORMAT', message: 'must be an EMBEDDED_WALLET internal account' }]);
  }
  return a as InternalAccountRecord & { organizationId: string };
}

/** A provisioned embedded wallet: {@link requireWallet}, and `409 WALLET_NOT_PROVISIONED` when it has no credential (domain/accounts.ts). */
export function requireProvisionedWallet(state: SandboxState, id: string, field = 'accountId'): InternalAccountRecord & { organizationId: string } {
  const wallet = requireWallet(state, id, field);
  if (state.store.authMethodsOf(wallet.id).length === 0) {
    throw conflict('WALLET_NOT_PROVISIONED', `The embedded wallet ${id} is not provisioned: its customer has no email yet (set one with PATCH /customers/{id})`);
  }
  return wallet;
}

export function requireAuthMethod(state: SandboxState, id: string): AuthMethodRecord {
  const m = state.store.authMethods.get(id);
  if (m === undefined) throw notFound('AUTH_METHOD_NOT_FOUND', `Credential ${id} was not found`);
  return m;
}

/** A session that is neither revoked nor expired (else `404 SESSION_NOT_FOUND`). */
export function requireActiveSession(state: SandboxState, id: string): SessionRecord {
  const s = state.store.sessions.get(id);
  if (s === undefined || !isActive(s, state.clock.now())) throw notFound('SESSION_NOT_FOUND', `No active session ${id}`);
  return s;
}
