import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer } from './helpers/flows.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

describe('customers', () => {
  it('POST /customers → 201 with KYC APPROVED and its accounts', async () => {
    const pcid = `pc-${randomUUID()}`;
    const r = await api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: pcid,
      email: 'ada@example.com',
      phoneNumber: '+14155550100',
      fullName: 'Ada Lovelace',
      region: 'US',
      currencies: ['USD', 'EUR'],
      birthDate: '1990-12-10',
      somethingElse: 'ignored',
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      id: expect.stringMatching(/^Customer:[0-9a-f-]{36}$/),
      customerType: 'INDIVIDUAL',
      platformCustomerId: pcid,
      email: 'ada@example.com',
      phoneNumber: '+14155550100',
      currencies: ['USD', 'EUR'],
      kycStatus: 'APPROVED',
      contactVerification: { email: 'UNVERIFIED', phone: 'UNVERIFIED' },
    });
    expect(r.json.somethingElse).toBeUndefined();
    const accounts = await api.get(`/internal-account?customerId=${enc(r.json.id)}`);
    expect(accounts.status).toBe(200);
    expect(accounts.json).toMatchObject({ hasMore: false, totalCount: 3 });
    const byType = accounts.json.data.map((a: any) => [a.type, a.balance.currency.code]);
    expect(byType).toEqual([
      ['INTERNAL_FIAT', 'USD'],
      ['INTERNAL_FIAT', 'EUR'],
      ['EMBEDDED_WALLET', 'USDC'],
    ]);
    const wallet = accounts.json.data[2];
    expect(wallet).toMatchObject({
      id: expect.stringMatching(/^InternalAccount:/),
      customerId: r.json.id,
      balance: { amount: 0, currency: { code: 'USDC', decimals: 6 } },
      totalBalance: { amount: 0 },
      cardCapabilities: { supportsPanReveal: true },
    });
    expect(JSON.stringify(wallet)).not.toMatch(/mnemonic/i);
    const creds = await api.get(`/auth/credentials?accountId=${enc(wallet.id)}`);
    expect(creds.json.data).toEqual([
      { id: expect.stringMatching(/^AuthMethod:/), accountId: wallet.id, type: 'EMAIL_OTP', nickname: 'ada@example.com', createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
  });

  it('field validation lists every bad field', async () => {
    const r = await api.post('/customers', { customerType: 'PERSON', email: 'nope', phoneNumber: '555', currencies: ['USD', 'XXX', 'USD'], birthDate: '1990-13-01', fullName: 5 });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors.map((e: any) => `${e.field}:${e.constraint}`).sort()).toEqual([
      'birthDate:FORMAT',
      'currencies[2]:CONFLICT',
      'customerType:ENUM',
      'email:FORMAT',
      'fullName:TYPE',
      'phoneNumber:FORMAT',
      'platformCustomerId:REQUIRED',
    ]);
    for (const e of r.json.details.errors) expect(typeof e.message).toBe('string');
  });

  it('a duplicate platformCustomerId → 409 CONFLICT; free again after delete', async () => {
    const w = await createCustomer(api);
    const dup = await api.post('/customers', { customerType: 'BUSINESS', platformCustomerId: w.customer.platformCustomerId });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('CONFLICT');
    const del = await api.delete(`/customers/${enc(w.customer.id)}`);
    expect(del.status).toBe(200);
    expect(del.json.id).toBe(w.customer.id);
    expect((await api.get(`/customers/${enc(w.customer.id)}`)).json.code).toBe('CUSTOMER_NOT_FOUND');
    expect((await api.get(`/auth/credentials?accountId=${enc(w.wallet.id)}`)).json.code).toBe('ACCOUNT_NOT_FOUND');
    const again = await api.post('/customers', { customerType: 'BUSINESS', platformCustomerId: w.customer.platformCustomerId, businessLegalName: 'Acme' });
    expect(again.status).toBe(201);
  });

  it('GET /customers/{id}, unknown → 404 CUSTOMER_NOT_FOUND', async () => {
    const w = await createCustomer(api);
    const r = await api.get(`/customers/${enc(w.customer.id)}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual(w.customer);
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const x = await api.call(method, '/customers/Customer:missing', method === 'PATCH' ? { body: { fullName: 'x' } } : {});
      expect(x.status).toBe(404);
      expect(x.json.code).toBe('CUSTOMER_NOT_FOUND');
    }
  });

  it('GET /customers filters and paginates (newest first)', async () => {
    const local = await start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await createCustomer(local)).customer.id);
      const page1 = await local.get('/customers?limit=2');
      expect(page1.json).toMatchObject({ hasMore: true, totalCount: 5, nextCursor: expect.any(String) });
      expect(page1.json.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
      const page2 = await local.get(`/customers?limit=2&cursor=${page1.json.nextCursor}`);
      expect(page2.json.data.map((c: any) => c.id)).toEqual([ids[2], ids[1]]);
      const page3 = await local.get(`/customers?limit=2&cursor=${page2.json.nextCursor}`);
      expect(page3.json).toMatchObject({ hasMore: false, data: [{ id: ids[0] }] });
      expect(page3.json.nextCursor).toBeUndefined();
      const one = await local.get(`/customers?platformCustomerId=${(await local.get(`/customers/${enc(ids[2] as string)}`)).json.platformCustomerId}`);
      expect(one.json.data.map((c: any) => c.id)).toEqual([ids[2]]);
      for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=zzz']) {
        const bad = await local.get(`/customers?${q}`);
        expect(bad.status, q).toBe(400);
        expect(bad.json.code).toBe('INVALID_INPUT');
      }
    } finally {
      await local.sandbox.close();
    }
  });

  it('PATCH without tied OTP credentials answers 200 at once; both contacts → 400', async () => {
    const w = await createCustomer(api);
    const r = await api.patch(`/customers/${enc(w.customer.id)}`, { fullName: 'New Name', phoneNumber: '+14155550111' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ fullName: 'New Name', phoneNumber: '+14155550111' });
    const both = await api.patch(`/customers/${enc(w.customer.id)}`, { email: 'a@example.com', phoneNumber: '+14155550112' });
    expect(both.status).toBe(400);
    expect(both.json.code).toBe('INVALID_INPUT');
    expect(both.json.details.errors.map((e: any) => e.field)).toEqual(['email', 'phoneNumber']);
    const unknown = await api.patch(`/customers/${enc(w.customer.id)}`, { platformCustomerId: 'x' });
    expect(unknown.status).toBe(400);
    expect((await api.patch(`/customers/${enc(w.customer.id)}`, {})).status).toBe(400);
  });

  it('a customer without email gets a wallet but no credential', async () => {
    const r = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}` });
    expect(r.status).toBe(201);
    expect(r.json.currencies).toEqual(['USD']);
    const accounts = await api.get(`/internal-account?customerId=${enc(r.json.id)}&type=EMBEDDED_WALLET`);
    expect(accounts.json.data).toHaveLength(1);
    const creds = await api.get(`/auth/credentials?accountId=${enc(accounts.json.data[0].id)}`);
    expect(creds.json.data).toEqual([]);
  });

  it('its wallet is not provisioned: acting on it → 409 WALLET_NOT_PROVISIONED (spec §7.4); setting an email provisions it', async () => {
    const r = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}` });
    const wallet = (await api.get(`/internal-account?customerId=${enc(r.json.id)}&type=EMBEDDED_WALLET`)).json.data[0];
    const id = enc(wallet.id);
    const other = await createCustomer(api);
    const refusals = [
      await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }),
      await api.patch(`/internal-accounts/${id}`, { privateEnabled: true }),
      await api.post(`/internal-accounts/${id}/export`, { clientPublicKey: `04${'11'.repeat(64)}` }),
      await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: other.wallet.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 }),
    ];
    for (const a of refusals) expect([a.status, a.json.code], a.text).toEqual([409, 'WALLET_NOT_PROVISIONED']);
    const email = `late-${randomUUID()}@example.com`;
    const set = await api.patch(`/customers/${enc(r.json.id)}`, { email });
    expect(set.status, set.text).toBe(200);
    const creds = (await api.get(`/auth/credentials?accountId=${id}`)).json.data;
    expect(creds).toEqual([expect.objectContaining({ type: 'EMAIL_OTP', nickname: email, accountId: wallet.id })]);
    expect((await api.post(`/auth/credentials/${enc(creds[0].id)}/challenge`, {})).status).toBe(200);
  });
});

describe('contact verification (code 123456)', () => {
  it('email and phone: send, wrong code 400, right code VERIFIED', async () => {
    const w = await createCustomer(api, { phoneNumber: '+14155550123' });
    const base = `/customers/${enc(w.customer.id)}`;
    const sent = await api.post(`${base}/verify-email`);
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ customerId: w.customer.id, channel: 'EMAIL', expiresAt: expect.any(String) });
    const wrong = await api.post(`${base}/verify-email/confirm`, { code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.json.details.errors[0].field).toBe('code');
    const ok = await api.post(`${base}/verify-email/confirm`, { code: '123456' });
    expect(ok.status).toBe(200);
    expect(ok.json.contactVerification).toEqual({ email: 'VERIFIED', phone: 'UNVERIFIED' });
    expect((await api.post(`${base}/verify-phone`)).json.channel).toBe('SMS');
    const phone = await api.post(`${base}/verify-phone/confirm`, { code: '123456' });
    expect(phone.json.contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });
    expect((await api.post(`${base}/verify-phone/confirm`, {})).status).toBe(400);
  });

  it('no phone → 400 MISSING_MANDATORY_USER_INFO; unknown customer → 404', async () => {
    const w = await createCustomer(api);
    const r = await api.post(`/customers/${enc(w.customer.id)}/verify-phone`);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('MISSING_MANDATORY_USER_INFO');
    expect((await api.post('/customers/Customer:x/verify-email')).json.code).toBe('CUSTOMER_NOT_FOUND');
  });
});

describe('sandbox funding and KYC', () => {
  it('fund adds balance and records an INCOMING COMPLETED transaction', async () => {
    const w = await createCustomer(api);
    const r = await api.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount: 2_500_000 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: w.wallet.id, balance: { amount: 2_500_000 }, totalBalance: { amount: 2_500_000 }, transactionId: expect.stringMatching(/^Transaction:/) });
    const again = await api.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount: 1 });
    expect(again.json.balance.amount).toBe(2_500_001);
    for (const amount of [0, -5, 1.5, '10', null]) {
      const bad = await api.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount });
      expect(bad.status, String(amount)).toBe(400);
    }
    expect((await api.post('/sandbox/internal-accounts/InternalAccount:x/fund', { amount: 1 })).json.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('the transaction record is in the store for the transactions route', async () => {
    const { createSandboxState } = await import('../../src/sandbox/server.js');
    const { createCustomerAccounts, fundAccount } = await import('../../src/sandbox/domain/accounts.js');
    const state = createSandboxState({ log: false });
    const customer = {
      id: 'Customer:1',
      customerType: 'INDIVIDUAL' as const,
      platformCustomerId: 'p1',
      currencies: ['USD'],
      kycStatus: 'APPROVED' as const,
      contactVerification: { email: 'UNVERIFIED' as const, phone: 'UNVERIFIED' as const },
      createdAt: 0,
      updatedAt: 0,
    };
    const [usd] = createCustomerAccounts(state, customer);
    const tx = fundAccount(state, usd!, customer, 100);
    expect(state.store.transactions.get(tx.id)).toMatchObject({
      status: 'COMPLETED',
      type: 'INCOMING',
      direction: 'CREDIT',
      accountId: usd!.id,
      receivedAmount: { amount: 100, currency: 'USD' },
      customerId: 'Customer:1',
      platformCustomerId: 'p1',
    });
  });

  it('POST /sandbox/customers/{id}/kyc sets the status', async () => {
    const w = await createCustomer(api);
    const r = await api.post(`/sandbox/customers/${enc(w.customer.id)}/kyc`, { kycStatus: 'PENDING' });
    expect(r.json.kycStatus).toBe('PENDING');
    expect((await api.post(`/sandbox/customers/${enc(w.customer.id)}/kyc`, { kycStatus: 'MAYBE' })).status).toBe(400);
  });

  it('GET /internal-account filters by currency; unknown customer → 404', async () => {
    const w = await createCustomer(api, { currencies: ['USD', 'USDC'] });
    const usdc = await api.get(`/internal-account?customerId=${enc(w.customer.id)}&currency=USDC`);
    expect(usdc.json.data.map((a: any) => a.type).sort()).toEqual(['EMBEDDED_WALLET', 'INTERNAL_CRYPTO']);
    expect((await api.get('/internal-account?customerId=Customer:none')).json.code).toBe('CUSTOMER_NOT_FOUND');
  });
});

describe('contact verification outside the regime (spec §7.4)', () => {
  it('with contactVerificationRegions, a customer of another region (or none) gets 409 on all four routes; one inside works', async () => {
    const regional = await start({ contactVerificationRegions: ['NG'] });
    try {
      const outside = await createCustomer(regional, { region: 'US', phoneNumber: '+14155550199' });
      const none = await createCustomer(regional);
      const inside = await createCustomer(regional, { region: 'NG' });
      for (const w of [outside, none]) {
        const base = `/customers/${enc(w.customer.id)}`;
        for (const [path, body] of [['/verify-email', undefined], ['/verify-email/confirm', { code: '123456' }], ['/verify-phone', undefined], ['/verify-phone/confirm', { code: '123456' }]] as const) {
          const r = await regional.post(`${base}${path}`, body);
          expect([r.status, r.json.code], path).toEqual([409, 'CONTACT_VERIFICATION_NOT_REQUIRED']);
        }
      }
      const ok = await regional.post(`/customers/${enc(inside.customer.id)}/verify-email/confirm`, { code: '123456' });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.contactVerification.email).toBe('VERIFIED');
    } finally {
      await regional.sandbox.close();
    }
  });
});
