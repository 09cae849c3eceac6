// Issue 34: the sandbox refuses only what the spec refuses. Each block is one decision, written
// where it is made (the file named in the block's title); generated inputs where they vary.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { knownCurrencies } from '../../src/sandbox/currencies.js';
import { findEmbeddedWallet } from '../../src/testing/client.js';
import { sealOtp } from './helpers/bundles.js';
import { createCustomer, otpLogin, signed } from './helpers/flows.js';
import { type Api, enc, start } from './helpers/http.js';
import { derSign, newKey, type TestKey } from './helpers/keys.js';

const SIG = 'Service-Wallet-Signature';
let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

/** `hex` with the letters of the positions `mask` picks in upper case. */
const recase = (hex: string, mask: boolean[]) => [...hex].map((c, i) => (mask[i % mask.length] ? c.toUpperCase() : c)).join('');
const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** The currencies spec §2.2's fiat account types name (`<CODE>_ACCOUNT`), copied from the spec. */
const SPEC_ACCOUNT_CURRENCIES = 'AED BDT BRL BWP CAD COP DKK EGP EUR GBP GHS GTQ HKD HTG IDR INR JMD KES MWK MXN MYR NGN PHP PKR RWF SGD SLV THB TZS UGX USD VND XAF XOF ZAR ZMW CNY ILS TRY'.split(' ');

describe('stamps: any key order, JSON whitespace and hex case (stamp.ts, spec §5.4)', () => {
  it('a real stamp verifies whatever the order of its three fields and the case of its hex; a wrong signature still fails', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const fields = (k: TestKey, p: string) => ({ publicKey: k.compressed, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: derSign(k, p) });
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(['publicKey', 'scheme', 'signature'] as const, { minLength: 3, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(0, 1, 2),
        fc.boolean(),
        async (order, keyCase, sigCase, indent, tamper) => {
          const first = await api.patch(path, { privateEnabled: true });
          expect(first.status).toBe(202);
          const f = fields(key, first.json.payloadToSign);
          const signature = tamper ? derSign(newKey(), first.json.payloadToSign) : f.signature;
          const cased = { publicKey: recase(f.publicKey, keyCase), scheme: f.scheme, signature: recase(signature, sigCase) };
          const value = b64(JSON.stringify(Object.fromEntries(order.map((n) => [n, cased[n]])), null, indent));
          const r = await api.patch(path, { privateEnabled: true }, { headers: { [SIG]: value, 'Request-Id': first.json.requestId } });
          // The oracle: the bytes the fields name, not their spelling, decide.
          if (tamper) expect(r.json.code, r.text).toBe('WALLET_SIGNATURE_INVALID');
          else expect(r.status, r.text).toBe(200);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('OTP bundles and verify bodies (domain/otp.ts, routes/credential-verify.ts, spec §4.5)', () => {
  it('the bundle and its plaintext open in any key order and hex case; `type` may be left out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.boolean(), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.boolean(), async (bundleReversed, plainReversed, hexCase, withType) => {
        const w = await createCustomer(api);
        const key = newKey();
        const c = await api.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
        const publicKey = recase(key.compressed, hexCase);
        const plain = plainReversed ? JSON.stringify({ public_key: publicKey, otp_code: '000000' }) : JSON.stringify({ otp_code: '000000', public_key: publicKey });
        const sealed = JSON.parse(await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed, plain));
        const enc2 = recase(sealed.encappedPublic, hexCase);
        const ct = recase(sealed.ciphertext, [...hexCase].reverse());
        const bundle = bundleReversed ? JSON.stringify({ ciphertext: ct, encappedPublic: enc2 }) : JSON.stringify({ encappedPublic: enc2, ciphertext: ct });
        const body = withType ? { type: 'EMAIL_OTP', encryptedOtpBundle: bundle } : { encryptedOtpBundle: bundle };
        const session = await signed(api, 'POST', `/auth/credentials/${enc(w.email.id)}/verify`, body, key);
        expect(session.status, session.text).toBe(200);
        // The session key is the key the bundle bound, whatever its case was.
        expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
      }),
      { numRuns: 8 },
    );
  });

  it('a plaintext or bundle with a field twice is refused (400 INVALID_INPUT); a type of another credential too', async () => {
    const w = await createCustomer(api);
    const key = newKey();
    const c = await api.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
    const twice = `{"otp_code":"000000","public_key":"${newKey().compressed}","public_key":"${key.compressed}"}`;
    const sealed = await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed, twice);
    const r = await api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { encryptedOtpBundle: sealed });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    const s = JSON.parse(await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed));
    const dup = `{"encappedPublic":"${s.encappedPublic}","ciphertext":"${s.ciphertext}","ciphertext":"${s.ciphertext}"}`;
    expect((await api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { encryptedOtpBundle: dup })).json.code).toBe('INVALID_INPUT');
    const other = await api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { type: 'OAUTH', encryptedOtpBundle: JSON.stringify(s) });
    expect(other.status).toBe(400);
  });

  it('an OAuth login without `type` works', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const email = `o-${Math.random()}@example.com`;
    const registration = (await api.post('/sandbox/oauth/token', { email, nonce: 'r' }, { auth: false })).json.oidcToken;
    const added = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: registration }, key);
    expect(added.status, added.text).toBe(201);
    const login = newKey();
    // Hex of any case (spec §4.5 "66 hex characters"); the nonce binds the exact string sent (wire §5.2).
    const clientPublicKey = login.compressed.toUpperCase();
    const nonce = createHash('sha256').update(clientPublicKey).digest('hex');
    const oidcToken = (await api.post('/sandbox/oauth/token', { email, nonce }, { auth: false })).json.oidcToken;
    const r = await api.post(`/auth/credentials/${enc(added.json.id)}/verify`, { oidcToken, clientPublicKey });
    expect(r.status, r.text).toBe(200);
  });
});

describe('sandbox-valid-signature (stamp.ts, spec §5.4 "for any signed account action")', () => {
  it('executes an embedded-wallet quote of a wallet that has no session', async () => {
    const w = await createCustomer(api);
    const to = await createCustomer(api);
    await api.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount: 1_000_000 });
    const q = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: w.wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: to.wallet.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 });
    expect(q.status, q.text).toBe(201);
    const r = await api.post(`/quotes/${enc(q.json.id)}/execute`, undefined, { headers: { [SIG]: 'sandbox-valid-signature' } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe('PROCESSING');
  });
});

describe('currencies (currencies.ts): every one the spec names, unknown → INVALID_CURRENCY', () => {
  it('the list holds every currency of spec §2.2 account types', () => {
    const known = new Set(knownCurrencies().map((c) => c.code));
    expect(SPEC_ACCOUNT_CURRENCIES.filter((c) => !known.has(c))).toEqual([]);
  });

  it('a customer in any spec currency gets an account in it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SPEC_ACCOUNT_CURRENCIES), async (code) => {
        const w = await createCustomer(api, { currencies: [code] });
        expect(w.accounts.map((a: any) => a.balance.currency.code)).toContain(code);
      }),
      { numRuns: 15 },
    );
  });

  it('an unknown code → 400 INVALID_CURRENCY naming it in details.errors', async () => {
    const known = new Set(knownCurrencies().map((c) => c.code));
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !known.has(s)), async (code) => {
        const r = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${Math.random()}`, currencies: ['USD', code] });
        expect(r.status, r.text).toBe(400);
        expect(r.json.code).toBe('INVALID_CURRENCY');
        expect(r.json.details.errors).toEqual([expect.objectContaining({ field: 'currencies[1]', constraint: 'ENUM' })]);
      }),
      { numRuns: 30 },
    );
  });
});

describe('cross-customer FX (rates.ts, spec §1, §4.3)', () => {
  it('a quote between two customers in different currencies is priced at the fixed rate', async () => {
    const codes = knownCurrencies().map((c) => c.code);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...codes), fc.constantFrom(...codes), fc.constantFrom('SENDING', 'RECEIVING'), async (from, to, side) => {
        const a = await createCustomer(api, { currencies: [from] });
        const b = await createCustomer(api, { currencies: [to] });
        const source = a.accounts.find((x: any) => x.balance.currency.code === from && x.id !== a.wallet.id) ?? a.wallet;
        const destination = b.accounts.find((x: any) => x.balance.currency.code === to && x.id !== b.wallet.id) ?? b.wallet;
        const q = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: source.id }, destination: { destinationType: 'ACCOUNT', accountId: destination.id }, lockedCurrencySide: side, lockedCurrencyAmount: 10 ** 12 });
        expect(q.status, q.text).toBe(201);
        expect(q.json.exchangeRate).toBeGreaterThan(0);
        expect(side === 'SENDING' ? q.json.totalSendingAmount : q.json.totalReceivingAmount).toBe(10 ** 12);
        expect(q.json.totalSendingAmount).toBeGreaterThan(0);
        expect(q.json.totalReceivingAmount).toBeGreaterThan(0);
      }),
      { numRuns: 12 },
    );
  });
});

describe('quote execute, both readings of the spec (quote-execute.ts)', () => {
  async function walletQuote(target: Api) {
    const w = await createCustomer(target);
    const to = await createCustomer(target);
    const { key } = await otpLogin(target, w.email.id);
    await target.post(`/sandbox/internal-accounts/${enc(w.wallet.id)}/fund`, { amount: 1_000_000 });
    const q = await target.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: w.wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: to.wallet.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 });
    expect(q.status, q.text).toBe(201);
    return { key, quote: q.json, path: `/quotes/${enc(q.json.id)}/execute`, payload: q.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string };
  }
  const stampOf = (key: TestKey, payload: string) => b64(JSON.stringify({ publicKey: key.compressed, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: derSign(key, payload) }));

  it('stamp (default): unsigned → 401 WALLET_SIGNATURE_MISSING; one stamped call → 200', async () => {
    expect(api.sandbox.quoteExecute).toBe('stamp');
    const { key, path, payload } = await walletQuote(api);
    expect((await api.post(path)).json.code).toBe('WALLET_SIGNATURE_MISSING');
    expect((await api.post(path, undefined, { headers: { [SIG]: stampOf(key, payload) } })).status).toBe(200);
  });

  it('signed-retry: unsigned → 202 with the quote payload; the signed retry → 200; a stamp alone → 401 REQUEST_ID_MISSING', async () => {
    const target = await start({ quoteExecute: 'signed-retry' });
    onTestFinished(() => target.sandbox.close());
    const { key, path, payload } = await walletQuote(target);
    expect((await target.post(path, undefined, { headers: { [SIG]: stampOf(key, payload) } })).json.code).toBe('REQUEST_ID_MISSING');
    const first = await target.post(path);
    expect(first.status, first.text).toBe(202);
    expect(first.json.payloadToSign).toBe(payload);
    const r = await target.post(path, undefined, { headers: { [SIG]: stampOf(key, first.json.payloadToSign), 'Request-Id': first.json.requestId } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe('PROCESSING');
    // The request id is single use.
    expect((await target.post(path, undefined, { headers: { [SIG]: stampOf(key, payload), 'Request-Id': first.json.requestId } })).json.code).toBe('WALLET_SIGNATURE_INVALID');
  });

  it('either: a 202 first leg and its retry, or one stamped call, both execute', async () => {
    const target = await start({ quoteExecute: 'either' });
    onTestFinished(() => target.sandbox.close());
    const a = await walletQuote(target);
    const first = await target.post(a.path);
    expect(first.status).toBe(202);
    expect((await target.post(a.path, undefined, { headers: { [SIG]: stampOf(a.key, first.json.payloadToSign), 'Request-Id': first.json.requestId } })).status).toBe(200);
    const b = await walletQuote(target);
    expect((await target.post(b.path, undefined, { headers: { [SIG]: stampOf(b.key, b.payload) } })).status).toBe(200);
  });

  it('a bad mode is refused at start; SANDBOX_QUOTE_EXECUTE is read', async () => {
    await expect(start({ quoteExecute: 'sometimes' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const { resolveQuoteExecute } = await import('../../src/sandbox/quote-execute.js');
    expect(resolveQuoteExecute(undefined, { SANDBOX_QUOTE_EXECUTE: 'either' })).toBe('either');
    expect(resolveQuoteExecute(undefined, {})).toBe('stamp');
  });
});

describe('faults are taken only by authenticated requests (server.ts)', () => {
  it('an unauthenticated call is answered 401 and leaves the fault armed', async () => {
    api.sandbox.faults.add({ kind: 'error', path: '/auth/sessions', method: 'GET' });
    onTestFinished(() => api.sandbox.faults.clear());
    const stray = await api.get('/auth/sessions?accountId=x', { auth: false });
    expect(stray.status).toBe(401);
    expect(api.sandbox.faults.list()).toHaveLength(1);
    const mine = await api.get('/auth/sessions?accountId=x');
    expect(mine.status).toBe(500);
    expect(api.sandbox.faults.list()).toHaveLength(0);
  });
});

describe('spec-minimal omits what the spec does not define (SPEC-MINIMAL.md)', () => {
  it("no account `type`, no card `cardholderId`; the wallet is found by the spec's rule", async () => {
    const minimal = await start({ profile: 'spec-minimal' });
    onTestFinished(() => minimal.sandbox.close());
    const w = await minimal.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${Math.random()}`, email: `m-${Math.random()}@example.com`, currencies: ['USD', 'KES'] });
    const accounts = (await minimal.get(`/internal-account?customerId=${enc(w.json.id)}`)).json.data;
    expect(accounts).toHaveLength(3);
    for (const a of accounts) expect('type' in a).toBe(false);
    const wallet = await findEmbeddedWallet(accounts, async (id) => (await minimal.get(`/auth/credentials?accountId=${enc(id)}`)).status === 200);
    expect(wallet).toBeDefined();
    expect((await minimal.get(`/auth/credentials?accountId=${enc(wallet as string)}`)).json.data).toHaveLength(1);
    const card = await minimal.post('/cards', { cardholderId: w.json.id, fundingSource: wallet }, { headers: { 'Idempotency-Key': `k-${Math.random()}` } });
    expect(card.status, card.text).toBe(201);
    expect('cardholderId' in card.json).toBe(false);
    // The service profile still sends both.
    const service = await start({ profile: 'service' });
    onTestFinished(() => service.sandbox.close());
    const s = await service.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${Math.random()}`, email: `s-${Math.random()}@example.com` });
    const sa = (await service.get(`/internal-account?customerId=${enc(s.json.id)}`)).json.data;
    expect(sa.map((a: any) => a.type).sort()).toEqual(['EMBEDDED_WALLET', 'INTERNAL_FIAT']);
  });

  it('findEmbeddedWallet: `type` where present, else the first account whose credential list answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.boolean(), async (isWallet, typed) => {
        const accounts = isWallet.map((w, i) => ({ id: `a${i}`, ...(typed ? { type: w ? 'EMBEDDED_WALLET' : 'INTERNAL_FIAT' } : {}) }));
        const asked: string[] = [];
        const found = await findEmbeddedWallet(accounts, async (id) => {
          asked.push(id);
          return isWallet[Number(id.slice(1))] === true;
        });
        const first = isWallet.indexOf(true);
        expect(found).toBe(first === -1 ? undefined : `a${first}`);
        if (typed) expect(asked).toEqual([]);
      }),
    );
  });
});
