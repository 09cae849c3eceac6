// Delegated keys through the wallet facade against the sandbox: the three-leg creation (same body on
// every leg, both payloads shown to onBeforeSign), the 409 for a second ACTIVE key, list by wallet
// and by funding source, get, revoke, and the refusals made before any request.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseStamp } from '../../src/crypto/index.js';
import { counted, emailLogin, explained, failing, idPattern, loggedInCustomer, shape, useTestSandbox, testWallet, type TestCustomer, type TestWallet } from './helpers.js';

const env = useTestSandbox();
let customer: TestCustomer;
let t: TestWallet;

beforeAll(async () => {
  ({ customer, t } = await loggedInCustomer(env));
});

describe('createDelegatedKey', () => {
  it('three legs with the same body, both signed by the session key: exactly 3 requests', async () => {
    const card = await env.admin.card(customer);
    const signed = t.signs.length;
    const { result, legs, wire } = await counted(t, () =>
      t.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'card signer' }),
    );
    expect(shape(legs)).toEqual([
      ['POST', 202, 1, false],
      ['POST', 202, 2, true],
      ['POST', 201, 3, true],
    ]);
    const bodies = new Set(wire.map((w) => w.body));
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'card signer' });
    const session = t.wallet.session()!;
    expect(wire.slice(1).map((w) => parseStamp(w.headers.get('Service-Wallet-Signature')!).publicKey)).toEqual([session.publicKeyHex, session.publicKeyHex]);
    expect(new Set(wire.slice(1).map((w) => w.headers.get('Request-Id'))).size).toBe(2);
    const shown = t.signs.slice(signed);
    expect(shown.map((s) => [s.purpose, s.leg])).toEqual([
      ['create-delegated-key', 2],
      ['create-delegated-key', 3],
    ]);
    expect(shown[0]!.payloadToSign).not.toBe(shown[1]!.payloadToSign);

    expect(result).toMatchObject({
      id: expect.stringMatching(idPattern(env.sandbox, 'DelegatedKey')),
      cardId: card.id,
      accountId: customer.accountId,
      fundingSourceId: customer.accountId,
      nickname: 'card signer',
      status: 'ACTIVE',
      publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/),
    });
    expect(Object.keys(result).some((k) => /private/i.test(k))).toBe(false);
  });

  it('a second ACTIVE key for the funding source: 409 CONFLICT', async () => {
    const card = await env.admin.card(customer);
    const first = (await t.wallet.listDelegatedKeys({ fundingSourceId: customer.accountId })).find((k) => k.status === 'ACTIVE');
    expect(first).toBeDefined();
    const { error, legs } = await failing(t, () => t.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'again' }));
    expect(error).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(error.details?.cause).toBe(explained(env.sandbox, 'DELEGATED_KEY_ALREADY_ACTIVE'));
    expect(error.details?.delegatedKeyId).toBe(explained(env.sandbox, first!.id));
    expect(shape(legs)).toEqual([['POST', 409, 1, false]]);
  });

  it('checks its arguments and the login before any request', async () => {
    const card = await env.admin.card(customer);
    for (const args of [undefined, {}, { cardId: card.id, internalAccountId: customer.accountId }, { cardId: 1, internalAccountId: customer.accountId, nickname: 'x' }]) {
      const { error, legs } = await failing(t, () => t.wallet.createDelegatedKey(args as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(legs).toHaveLength(0);
    }
    const stranger = testWallet(env.sandbox);
    const { error, legs } = await failing(stranger, () => stranger.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'x' }));
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(legs).toHaveLength(0);
  });
});

describe('list, get, revoke', () => {
  it('lists by wallet and by funding source (one request each), gets one, revokes it, then a new key can be made', async () => {
    const byAccount = await counted(t, () => t.wallet.listDelegatedKeys({ accountId: customer.accountId }));
    expect(shape(byAccount.legs)).toEqual([['GET', 200, 1, false]]);
    const active = byAccount.result.filter((k) => k.status === 'ACTIVE');
    expect(active).toHaveLength(1);
    const byFunding = await counted(t, () => t.wallet.listDelegatedKeys({ fundingSourceId: customer.accountId }));
    expect(byFunding.legs).toHaveLength(1);
    expect(byFunding.result.map((k) => k.id)).toEqual(byAccount.result.map((k) => k.id));

    const got = await counted(t, () => t.wallet.getDelegatedKey(active[0]!.id));
    expect(got.legs).toHaveLength(1);
    expect(got.result).toEqual(active[0]);

    const revoked = await counted(t, () => t.wallet.revokeDelegatedKey(active[0]!.id));
    expect(shape(revoked.legs)).toEqual([['DELETE', 200, 1, false]]);
    expect(revoked.result).toMatchObject({ id: active[0]!.id, status: 'REVOKED' });
    expect((await t.wallet.getDelegatedKey(active[0]!.id)).status).toBe('REVOKED');

    const card = await env.admin.card(customer);
    const again = await t.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: customer.accountId, nickname: 'replacement' });
    expect(again.status).toBe('ACTIVE');
  });

  it('follows every page of a long list', async () => {
    const other = await env.admin.customer();
    const o = testWallet(env.sandbox);
    await emailLogin(o.wallet, other.accountId);
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) {
      const card = await env.admin.card(other);
      const key = await o.wallet.createDelegatedKey({ cardId: card.id, internalAccountId: other.accountId, nickname: `k${i}` });
      await o.wallet.revokeDelegatedKey(key.id);
      ids.push(key.id);
    }
    const { result, legs } = await counted(o, () => o.wallet.listDelegatedKeys({ accountId: other.accountId }));
    expect(legs).toHaveLength(2);
    expect(result.map((k) => k.id)).toEqual([...ids].reverse());
  });

  it('unknown ids and bad filters', async () => {
    const { error, legs } = await failing(t, () => t.wallet.getDelegatedKey('DelegatedKey:00000000-0000-4000-8000-000000000000'));
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(legs).toHaveLength(1);
    for (const filter of [{}, undefined, { accountId: '' }]) {
      const bad = await failing(t, () => t.wallet.listDelegatedKeys(filter as never));
      expect(bad.error.code).toBe('INVALID_ARGUMENT');
      expect(bad.legs).toHaveLength(0);
    }
    expect((await failing(t, () => t.wallet.revokeDelegatedKey(''))).error.code).toBe('INVALID_ARGUMENT');
  });
});
