/**
 * Sandbox mode only: a second customer, "Demo coffee shop", whose USDC account is offered as a
 * transfer destination (paying someone else is what a transfer is for). Created on first use.
 */
import { randomUUID } from 'node:crypto';
import type { Payee } from './demo-api.js';
import { errorBody, listData, type Upstream } from './upstream.js';

export function createMerchant(upstream: Upstream): () => Promise<Payee> {
  let pending: Promise<Payee> | undefined;
  const create = async (): Promise<Payee> => {
    const created = await upstream.call('POST', '/customers', {
      body: { customerType: 'BUSINESS', platformCustomerId: `demo-merchant-${randomUUID()}`, businessLegalName: 'Demo coffee shop', currencies: ['USDC'] },
    });
    if (created.status !== 201 && created.status !== 200) throw new Error(`creating the demo merchant failed: ${errorBody(created).code}`);
    const customerId = String((created.body as { id?: unknown }).id);
    const accounts = await upstream.call('GET', '/internal-account', { query: { customerId, currency: 'USDC', type: 'INTERNAL_CRYPTO' } });
    const account = listData(accounts)[0];
    if (account === undefined) throw new Error('the demo merchant has no USDC account');
    return { label: 'Demo coffee shop', accountId: String(account.id) };
  };
  return () => {
    pending ??= create().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}
