// Contact change through the wallet facade against the sandbox: one field per call (both refused
// before any request), an email change tied to the EMAIL_OTP credential signed in exactly 2 requests,
// a phone change with no tied credential in 1 plain request (no session needed), a phone change tied
// to SMS_OTP signed, and the service's conflicts.
import { describe, expect, it } from 'vitest';
import { parseStamp } from '../../src/crypto/index.js';
import { addSmsAndLogin, counted, emailLogin, failing, randomPhone, shape, useTestSandbox, testWallet } from './helpers.js';

const env = useTestSandbox();

describe('changeContact', () => {
  it('refuses email and phone together, and other shapes, before any request', async () => {
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, customer.accountId);
    const start = t.requests.length;
    const both = await failing(t, () => t.wallet.changeContact(customer.customerId, { email: 'a@example.com', phoneNumber: '+15550000000' } as never));
    expect(both.error.code).toBe('INVALID_ARGUMENT');
    expect(both.error.message).toMatch(/not both/);
    for (const change of [{}, null, { fullName: 'X' }, { email: '' }, { email: 'a@example.com', fullName: 'X' }]) {
      expect((await failing(t, () => t.wallet.changeContact(customer.customerId, change as never))).error.code).toBe('INVALID_ARGUMENT');
    }
    expect((await failing(t, () => t.wallet.changeContact('', { email: 'a@example.com' }))).error.code).toBe('INVALID_ARGUMENT');
    expect(t.requests.length).toBe(start);
  });

  it('an email tied to the EMAIL_OTP credential: signed retry, exactly 2 requests; the credential follows', async () => {
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    const session = await emailLogin(t.wallet, customer.accountId);
    const email = `changed-${customer.customerId.slice(9, 17)}@example.com`;
    const signed = t.signs.length;
    const { result, legs, wire } = await counted(t, () => t.wallet.changeContact(customer.customerId, { email }));
    expect(shape(legs)).toEqual([
      ['PATCH', 202, 1, false],
      ['PATCH', 200, 2, true],
    ]);
    expect(wire.map((w) => w.body)).toEqual([JSON.stringify({ email }), JSON.stringify({ email })]);
    expect(parseStamp(wire[1]!.headers.get('Service-Wallet-Signature')!).publicKey).toBe(session.publicKeyHex);
    expect(t.signs.slice(signed)).toEqual([expect.objectContaining({ purpose: 'change-contact', method: 'PATCH', leg: 2 })]);
    expect(result).toMatchObject({ id: customer.customerId, email });
    expect((await t.wallet.listCredentials()).find((c) => c.type === 'EMAIL_OTP')?.nickname).toBe(email);
  });

  it('a phone number no credential is tied to: 1 plain request, no session needed', async () => {
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    const phoneNumber = randomPhone();
    const { result, legs } = await counted(t, () => t.wallet.changeContact(customer.customerId, { phoneNumber }));
    expect(shape(legs)).toEqual([['PATCH', 200, 1, false]]);
    expect(result).toMatchObject({ id: customer.customerId, phoneNumber });
  });

  it('a phone number tied to SMS_OTP: signed, 2 requests', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, customer.accountId);
    await addSmsAndLogin(t.wallet, customer.accountId);
    const phoneNumber = randomPhone();
    const { result, legs } = await counted(t, () => t.wallet.changeContact(customer.customerId, { phoneNumber }, { accountId: customer.accountId }));
    expect(shape(legs)).toEqual([
      ['PATCH', 202, 1, false],
      ['PATCH', 200, 2, true],
    ]);
    expect(result.phoneNumber).toBe(phoneNumber);
    expect((await t.wallet.listCredentials()).find((c) => c.type === 'SMS_OTP')?.nickname).toBe(phoneNumber);
  });

  it('an email another wallet\'s credential already uses: 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS after 1 request', async () => {
    const taken = await env.admin.customer();
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, customer.accountId);
    const { error, legs } = await failing(t, () => t.wallet.changeContact(customer.customerId, { email: taken.email }));
    expect(error).toMatchObject({ code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', status: 409 });
    expect(shape(legs)).toEqual([['PATCH', 409, 1, false]]);
  });

  it('a change that needs a signature with no session here: NOT_LOGGED_IN at the challenge, nothing changed', async () => {
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    const { error, legs } = await failing(t, () => t.wallet.changeContact(customer.customerId, { email: `x-${customer.email}` }));
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(shape(legs)).toEqual([['PATCH', 202, 1, false]]);
    expect((await env.admin.call<{ email: string }>('GET', `/customers/${encodeURIComponent(customer.customerId)}`)).email).toBe(customer.email);
  });
});
