// Each signed action answers exactly the challenges it needs: one, two for delegated-key creation.
// A service (here: the sandbox behind a scripted middleman) that answers the last signed leg with
// one more challenge gets a typed UNEXPECTED_CHALLENGE and no further signature.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { emailLogin, failing, testWallet, useTestSandbox, type TestCustomer, type TestWallet } from './helpers.js';

const env = useTestSandbox();
let customer: TestCustomer;

beforeAll(async () => {
  customer = await env.admin.customer();
});

/**
 * A wallet whose requests reach the sandbox through a middleman that turns the final answer of the
 * action at `path` (a 2xx after a signed leg) into one more challenge.
 */
async function walletAskedOnceMore(path: string): Promise<TestWallet & { extra: string[] }> {
  const extra: string[] = [];
  const middleman: typeof fetch = async (input, init = {}) => {
    const response = await fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    const signed = new Headers(init.headers).has('Service-Wallet-Signature');
    if (!url.split('?')[0]!.endsWith(path) || !signed || response.status === 202 || !response.ok) return response;
    const requestId = `Request:${randomUUID()}`;
    extra.push(requestId);
    const challenge = { payloadToSign: `{"one":"more","requestId":"${requestId}"}`, requestId, expiresAt: new Date(Date.now() + 5 * 60_000).toISOString() };
    return new Response(JSON.stringify(challenge), { status: 202, headers: { 'Content-Type': 'application/json', Date: new Date().toUTCString() } });
  };
  const t = testWallet(env.sandbox, { fetch: middleman });
  await emailLogin(t.wallet, customer.accountId);
  t.signs.length = 0; // the login's own signature
  return { ...t, extra };
}

describe('a service asking for one more signature than the action needs', () => {
  it('updateAccount (one challenge): UNEXPECTED_CHALLENGE, one signature, the session kept', async () => {
    const t = await walletAskedOnceMore(`/internal-accounts/${encodeURIComponent(customer.accountId)}`);
    const { error, legs } = await failing(t, () => t.wallet.updateAccount(customer.accountId, { privateEnabled: true }));
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(error.details).toEqual({ purpose: expect.any(String), allowed: 1 });
    expect(t.extra).toHaveLength(1);
    expect(t.signs.map((s) => s.leg)).toEqual([2]);
    expect(legs.map((l) => [l.leg, l.status, l.signed])).toEqual([[1, 202, false], [2, 202, true]]);
    expect(t.wallet.session(customer.accountId)).not.toBeNull();
    t.wallet.dispose();
  });

  it('exportWallet (one challenge): UNEXPECTED_CHALLENGE before a second signature', async () => {
    const t = await walletAskedOnceMore(`/internal-accounts/${encodeURIComponent(customer.accountId)}/export`);
    const { error } = await failing(t, () => t.wallet.exportWallet());
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(t.signs.filter((s) => s.purpose === 'export-wallet').map((s) => s.leg)).toEqual([2]);
    t.wallet.dispose();
  });

  it('createDelegatedKey (two challenges): UNEXPECTED_CHALLENGE before a third signature', async () => {
    const card = await env.admin.card(customer);
    const t = await walletAskedOnceMore('/auth/delegated-keys');
    const { error, legs } = await failing(t, () => t.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'k' }));
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(error.details).toEqual({ purpose: 'create-delegated-key', allowed: 2 });
    expect(t.signs.map((s) => s.leg)).toEqual([2, 3]);
    expect(legs.map((l) => [l.leg, l.status, l.signed])).toEqual([[1, 202, false], [2, 202, true], [3, 202, true]]);
    t.wallet.dispose();
  });
});
