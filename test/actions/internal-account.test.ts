// Internal account update through the wallet facade against the sandbox: the signed PATCH in two
// requests, the plain one on an account that is not a wallet, a body altered between the legs
// (401 WALLET_SIGNATURE_BODY_MISMATCH), SESSION_EXPIRED and bad patches refused before any request.
import { beforeAll, describe, expect, it } from 'vitest';
import { counted, emailLogin, failing, idPattern, optional, shape, useTestSandbox, testWallet, type TestCustomer } from './helpers.js';

const env = useTestSandbox();
let customer: TestCustomer;

beforeAll(async () => {
  customer = await env.admin.customer();
});

describe('updateAccount', () => {
  it('signed PATCH on the wallet: exactly 2 requests, the payload shown to onBeforeSign', async () => {
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, customer.accountId);
    const signed = t.signs.length;
    const { result, legs, wire } = await counted(t, () => t.wallet.updateAccount(customer.accountId, { privateEnabled: true }));
    expect(shape(legs)).toEqual([
      ['PATCH', 202, 1, false],
      ['PATCH', 200, 2, true],
    ]);
    expect(wire[0]!.body).toBe('{"privateEnabled":true}');
    expect(wire[1]!.body).toBe(wire[0]!.body);
    expect(result).toMatchObject({ id: customer.accountId });
    expect(result.type).toBe(optional(env.sandbox, 'EMBEDDED_WALLET'));
    expect(result.privateEnabled).toBe(optional(env.sandbox, true));
    expect(t.signs.slice(signed)).toEqual([expect.objectContaining({ purpose: 'update-internal-account', method: 'PATCH', leg: 2, requestId: expect.stringMatching(idPattern(env.sandbox, 'Request')) })]);
  });

  it('an account that is not a wallet answers at once: 1 request, no session needed', async () => {
    const t = testWallet(env.sandbox);
    const { result, legs } = await counted(t, () => t.wallet.updateAccount(customer.fiatAccountId, { privateEnabled: true }));
    expect(shape(legs)).toEqual([['PATCH', 200, 1, false]]);
    expect(result.id).toBe(customer.fiatAccountId);
    expect(result.privateEnabled).toBe(optional(env.sandbox, true));
  });

  it('a body changed between the legs is refused: 401 WALLET_SIGNATURE_BODY_MISMATCH', async () => {
    // A proxy gone wrong: it rewrites the body of the signed retry.
    const t = testWallet(env.sandbox, {
      alter: (init) => {
        const headers = new Headers(init.headers);
        return headers.has('Request-Id') && typeof init.body === 'string' ? { ...init, body: init.body.replace('true', 'false') } : init;
      },
    });
    await emailLogin(t.wallet, customer.accountId);
    const { error, legs, wire } = await failing(t, () => t.wallet.updateAccount(customer.accountId, { privateEnabled: true }));
    expect(error).toMatchObject({ code: 'WALLET_SIGNATURE_BODY_MISMATCH', status: 401 });
    expect(shape(legs)).toEqual([
      ['PATCH', 202, 1, false],
      ['PATCH', 401, 2, true],
    ]);
    expect(wire.map((w) => w.body)).toEqual(['{"privateEnabled":true}', '{"privateEnabled":false}']);
    // The session is still good: the failure was the body, not the key.
    expect(t.wallet.session()).not.toBeNull();
  });

  it('an expired session never signs: SESSION_EXPIRED before any request, or NOT_LOGGED_IN once the wallet dropped it', async () => {
    const other = await env.admin.customer();
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, other.accountId);
    env.admin.sandbox.advanceClock(16 * 60);
    await env.admin.call('GET', '/sandbox/clock');
    // The wallet learns the server's time from the next answer it sees.
    await t.wallet.listCredentials(other.accountId);
    const { error, legs } = await failing(t, () => t.wallet.updateAccount(other.accountId, { privateEnabled: true }));
    // Which one depends on whether the expiry timer already removed the session: held and expired →
    // refused before any request; already removed → the account could be one that needs no
    // signature, so the call goes out and stops at the challenge.
    // (SESSION_EXPIRED is said only once the service agrees: one GET /auth/sessions, session invariant I6.)
    if (error.code === 'SESSION_EXPIRED') expect(legs.filter((l) => !(l.method === 'GET' && l.path === '/auth/sessions'))).toHaveLength(0);
    else expect(shape(legs)).toEqual([['PATCH', 202, 1, false]]);
    expect(['SESSION_EXPIRED', 'NOT_LOGGED_IN']).toContain(error.code);
  });

  it('not logged in: the first leg goes out (the account might need no signature), then NOT_LOGGED_IN at the challenge', async () => {
    const t = testWallet(env.sandbox);
    const { error, legs } = await failing(t, () => t.wallet.updateAccount(customer.accountId, { privateEnabled: false }));
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(shape(legs)).toEqual([['PATCH', 202, 1, false]]);
  });

  it('bad arguments are refused before any request', async () => {
    const t = testWallet(env.sandbox);
    for (const [id, patch] of [
      ['', { privateEnabled: true }],
      [customer.accountId, {}],
      [customer.accountId, null],
      [customer.accountId, { privateEnabled: 'yes' }],
      [customer.accountId, { privateEnable: true }],
      // nickname: neither the spec nor the wire reference defines it (issue 25).
      [customer.accountId, { nickname: 'Savings' }],
    ] as const) {
      const { error, legs } = await failing(t, () => t.wallet.updateAccount(id, patch as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(legs).toHaveLength(0);
    }
  });
});
