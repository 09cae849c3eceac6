import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, stamp as coreStamp } from '../../src/crypto/index.js';
import { buildEncryptedOtpBundle } from '../../src/crypto/enclave.js';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, type Wallet } from './helpers/flows.js';
import { newKey, stamp, type TestKey } from './helpers/keys.js';

const SIG = 'Service-Wallet-Signature';

let api: Api;
let alice: Wallet;
let bob: Wallet;
let aliceKey: TestKey;
let bobKey: TestKey;

function walletQuote(from: Wallet, to: Wallet, amount: number, extra: Record<string, unknown> = {}) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: from.wallet.id },
    destination: { destinationType: 'ACCOUNT', accountId: to.wallet.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
    ...extra,
  };
}

async function fund(accountId: string, amount: number): Promise<void> {
  const r = await api.post(`/sandbox/internal-accounts/${enc(accountId)}/fund`, { amount });
  expect(r.status, r.text).toBe(200);
}

/** Account id → customer id, to read balances through GET /internal-account. */
const owners = new Map<string, string>();

async function balance(accountId: string): Promise<number> {
  const list = await api.get(`/internal-account?customerId=${enc(owners.get(accountId) ?? '')}`);
  return list.json.data.find((a: any) => a.id === accountId).balance.amount;
}

async function newQuote(from: Wallet, to: Wallet, amount: number): Promise<any> {
  const r = await api.post('/quotes', walletQuote(from, to, amount));
  expect(r.status, r.text).toBe(201);
  return r.json;
}

function payloadOf(quote: any): string {
  return quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign;
}

async function execute(quote: any, headers: Record<string, string> = {}, body?: unknown) {
  return api.post(`/quotes/${enc(quote.id)}/execute`, body, { headers });
}

beforeAll(async () => {
  api = await start();
  alice = await createCustomer(api);
  bob = await createCustomer(api);
  for (const w of [alice, bob]) for (const a of w.accounts) owners.set(a.id, w.customer.id);
  aliceKey = (await otpLogin(api, alice.email.id)).key;
  bobKey = (await otpLogin(api, bob.email.id)).key;
  await fund(alice.wallet.id, 1_000_000);
});
afterAll(() => api.sandbox.close());

describe('POST /quotes', () => {
  it('embedded-wallet source → 201 PENDING quote with the payload to sign; same currency, rate 1, no fees', async () => {
    const r = await api.post('/quotes', walletQuote(alice, bob, 2500, { description: 'lunch' }));
    expect(r.status, r.text).toBe(201);
    const q = r.json;
    expect(q).toMatchObject({
      id: expect.stringMatching(/^Quote:[0-9a-f-]{36}$/),
      status: 'PENDING',
      source: { sourceType: 'ACCOUNT', accountId: alice.wallet.id },
      destination: { destinationType: 'ACCOUNT', accountId: bob.wallet.id },
      sendingCurrency: { code: 'USDC', decimals: 6 },
      receivingCurrency: { code: 'USDC', decimals: 6 },
      totalSendingAmount: 2500,
      totalReceivingAmount: 2500,
      exchangeRate: 1,
      feesIncluded: 0,
      platformFeesIncluded: 0,
      description: 'lunch',
    });
    expect(q.transactionId).toBeUndefined();
    expect(Date.parse(q.expiresAt) - Date.parse(q.createdAt)).toBe(5 * 60 * 1000);
    expect(q.paymentInstructions).toHaveLength(1);
    expect(q.paymentInstructions[0].accountOrWalletInfo).toEqual({ accountType: 'EMBEDDED_WALLET', payloadToSign: expect.any(String) });
    const payload = JSON.parse(payloadOf(q));
    expect(payload).toMatchObject({
      type: 'ACTIVITY_TYPE_EXECUTE_QUOTE',
      quoteId: q.id,
      organizationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestampMs: expect.stringMatching(/^[0-9]+$/),
      parameters: { sourceAccountId: alice.wallet.id, destinationAccountId: bob.wallet.id, totalSendingAmount: 2500, sendingCurrency: 'USDC' },
    });
  });

  it('RECEIVING side locks the same amount on both sides', async () => {
    const r = await api.post('/quotes', walletQuote(alice, bob, 7, { lockedCurrencySide: 'RECEIVING' }));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ totalSendingAmount: 7, totalReceivingAmount: 7, lockedCurrencySide: 'RECEIVING' });
  });

  it('payloads are never reused, even for identical requests', async () => {
    const a = await newQuote(alice, bob, 10);
    const b = await newQuote(alice, bob, 10);
    expect(payloadOf(a)).not.toBe(payloadOf(b));
  });

  it('every bad field is listed in details.errors[]', async () => {
    const r = await api.post('/quotes', {
      source: { sourceType: 'UMA', accountId: 5 },
      destination: 'x',
      lockedCurrencySide: 'BOTH',
      lockedCurrencyAmount: 1.5,
      description: 42,
      immediatelyExecute: 'yes',
      extra: true,
    });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    const fields = r.json.details.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(
      ['description', 'destination', 'extra', 'immediatelyExecute', 'lockedCurrencyAmount', 'lockedCurrencySide', 'source.accountId', 'source.sourceType'].sort(),
    );
    for (const e of r.json.details.errors) expect(e).toEqual({ field: expect.any(String), constraint: expect.any(String), message: expect.any(String) });
  });

  it('missing required fields, amounts below 1, non-object bodies → 400 INVALID_INPUT', async () => {
    const empty = await api.post('/quotes', {});
    expect(empty.status).toBe(400);
    expect(empty.json.details.errors.map((e: any) => [e.field, e.constraint]).sort()).toEqual([
      ['destination', 'REQUIRED'],
      ['lockedCurrencyAmount', 'REQUIRED'],
      ['lockedCurrencySide', 'REQUIRED'],
      ['source', 'REQUIRED'],
    ]);
    const zero = await api.post('/quotes', walletQuote(alice, bob, 0));
    expect(zero.status).toBe(400);
    expect(zero.json.details.errors).toEqual([expect.objectContaining({ field: 'lockedCurrencyAmount', constraint: 'RANGE' })]);
    const nested = await api.post('/quotes', { ...walletQuote(alice, bob, 1), source: {} });
    expect(nested.json.details.errors.map((e: any) => e.field).sort()).toEqual(['source.accountId', 'source.sourceType']);
    for (const body of [[], 'x', null]) {
      const r = await api.post('/quotes', undefined, { raw: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe('INVALID_INPUT');
    }
    const bad = await api.post('/quotes', undefined, { raw: '{"source":', headers: { 'Content-Type': 'application/json' } });
    expect(bad.status).toBe(400);
  });

  it('unknown account → 404 ACCOUNT_NOT_FOUND; same account → 400 SELF_PAYMENT; other currency → 400 QUOTE_RATE_UNAVAILABLE', async () => {
    const unknown = await api.post('/quotes', { ...walletQuote(alice, bob, 1), destination: { destinationType: 'ACCOUNT', accountId: 'InternalAccount:nope' } });
    expect([unknown.status, unknown.json.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const self = await api.post('/quotes', walletQuote(alice, alice, 1));
    expect([self.status, self.json.code]).toEqual([400, 'SELF_PAYMENT']);
    const usd = bob.accounts.find((a: any) => a.balance.currency.code === 'USD');
    const fx = await api.post('/quotes', { ...walletQuote(alice, bob, 1), destination: { destinationType: 'ACCOUNT', accountId: usd.id } });
    expect([fx.status, fx.json.code]).toEqual([400, 'QUOTE_RATE_UNAVAILABLE']);
  });

  it("cross-currency between one customer's own accounts: a fixed sandbox rate (USDC→USD at par, rounded in the platform's favour)", async () => {
    const carol = await createCustomer(api);
    const carolKey = (await otpLogin(api, carol.email.id)).key;
    await fund(carol.wallet.id, 1_000_000);
    for (const a of carol.accounts) owners.set(a.id, carol.customer.id);
    const usd = carol.accounts.find((a: any) => a.balance.currency.code === 'USD');
    const sending = await api.post('/quotes', { ...walletQuote(carol, carol, 567_890), destination: { destinationType: 'ACCOUNT', accountId: usd.id } });
    expect(sending.status, sending.text).toBe(201);
    expect(sending.json).toMatchObject({ exchangeRate: 1, totalSendingAmount: 567_890, totalReceivingAmount: 56, sendingCurrency: { code: 'USDC' }, receivingCurrency: { code: 'USD' } });
    const receiving = await api.post('/quotes', { ...walletQuote(carol, carol, 56), lockedCurrencySide: 'RECEIVING', destination: { destinationType: 'ACCOUNT', accountId: usd.id } });
    expect(receiving.json).toMatchObject({ totalSendingAmount: 560_000, totalReceivingAmount: 56 });
    // Less than one cent cannot be priced.
    const dust = await api.post('/quotes', { ...walletQuote(carol, carol, 9_999), destination: { destinationType: 'ACCOUNT', accountId: usd.id } });
    expect([dust.status, dust.json.code]).toEqual([400, 'QUOTE_RATE_UNAVAILABLE']);
    // Executed, it moves the priced amounts.
    const before = await balance(usd.id);
    const payload = sending.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign;
    const done = await api.post(`/quotes/${enc(sending.json.id)}/execute`, undefined, { headers: { 'Service-Wallet-Signature': stamp(payload, carolKey) } });
    expect(done.status, done.text).toBe(200);
    expect(await balance(usd.id)).toBe(before + 56);
  });

  it('immediatelyExecute is refused for an embedded-wallet source (400 INVALID_INPUT) and nothing moves', async () => {
    const before = await balance(alice.wallet.id);
    const r = await api.post('/quotes', walletQuote(alice, bob, 1, { immediatelyExecute: true }));
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('INVALID_INPUT');
    expect(r.json.details.errors).toEqual([expect.objectContaining({ field: 'immediatelyExecute', constraint: 'CONFLICT' })]);
    expect(await balance(alice.wallet.id)).toBe(before);
    const off = await api.post('/quotes', walletQuote(alice, bob, 1, { immediatelyExecute: false }));
    expect(off.status).toBe(201);
  });

  it('immediatelyExecute from an ordinary internal account → 201 PROCESSING and the money moves; short balance → 400 INSUFFICIENT_FUNDS', async () => {
    const from = alice.accounts.find((a: any) => a.balance.currency.code === 'USD');
    const to = bob.accounts.find((a: any) => a.balance.currency.code === 'USD');
    await fund(from.id, 500);
    const body = { source: { sourceType: 'ACCOUNT', accountId: from.id }, destination: { destinationType: 'ACCOUNT', accountId: to.id }, lockedCurrencySide: 'SENDING', immediatelyExecute: true };
    const short = await api.post('/quotes', { ...body, lockedCurrencyAmount: 501 });
    expect([short.status, short.json.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    const r = await api.post('/quotes', { ...body, lockedCurrencyAmount: 200 });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toBe('PROCESSING');
    expect(r.json.paymentInstructions).toBeUndefined();
    expect(await balance(from.id)).toBe(300);
    expect(await balance(to.id)).toBe(200);
    const again = await api.post(`/quotes/${enc(r.json.id)}/execute`);
    expect([again.status, again.json.code]).toEqual([409, 'CONFLICT']);
  });
});

describe('GET /quotes/{id}', () => {
  it('returns the quote; unknown id → 404 QUOTE_NOT_FOUND', async () => {
    const q = await newQuote(alice, bob, 3);
    const r = await api.get(`/quotes/${enc(q.id)}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual(q);
    const missing = await api.get('/quotes/Quote:00000000-0000-0000-0000-000000000000');
    expect([missing.status, missing.json.code]).toEqual([404, 'QUOTE_NOT_FOUND']);
  });
});

describe('POST /quotes/{id}/execute', () => {
  it('signed by the wallet session → 200 PROCESSING; balances move; settles with an OUTGOING and an INCOMING transaction', async () => {
    const aliceBefore = await balance(alice.wallet.id);
    const bobBefore = await balance(bob.wallet.id);
    const q = await newQuote(alice, bob, 1234);
    const r = await execute(q, { [SIG]: stamp(payloadOf(q), aliceKey) });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: q.id, status: 'PROCESSING' });
    expect(r.json.transactionId).toBeUndefined();
    expect(await balance(alice.wallet.id)).toBe(aliceBefore - 1234);
    expect(await balance(bob.wallet.id)).toBe(bobBefore + 1234);

    const settled = await api.get(`/quotes/${enc(q.id)}`);
    expect(settled.json.status).toBe('PROCESSING');
    expect(settled.json.transactionId).toMatch(/^Transaction:[0-9a-f-]{36}$/);
    const tx = await api.get(`/transactions/${enc(settled.json.transactionId)}`);
    expect(tx.status).toBe(200);
    expect(tx.json).toMatchObject({
      status: 'COMPLETED',
      type: 'OUTGOING',
      direction: 'DEBIT',
      source: { accountId: alice.wallet.id, currency: 'USDC' },
      destination: { accountId: bob.wallet.id, currency: 'USDC' },
      sentAmount: { amount: 1234, currency: { code: 'USDC' } },
      receivedAmount: { amount: 1234, currency: { code: 'USDC' } },
      customerId: alice.customer.id,
      platformCustomerId: alice.customer.platformCustomerId,
      exchangeRate: 1,
      quoteId: q.id,
      settledAt: expect.any(String),
    });
    const incoming = await api.get(`/transactions?customerId=${enc(bob.customer.id)}&type=INCOMING&senderAccountIdentifier=${enc(alice.wallet.id)}`);
    expect(incoming.json.data.find((t: any) => t.quoteId === q.id)).toMatchObject({ direction: 'CREDIT', status: 'COMPLETED', customerId: bob.customer.id });
  });

  it('a stamp made with the library crypto core (src/crypto) is accepted', async () => {
    const key = await generateSessionKey();
    const challenge = await api.post(`/auth/credentials/${enc(alice.email.id)}/challenge`, {});
    const body = {
      type: 'EMAIL_OTP',
      encryptedOtpBundle: await buildEncryptedOtpBundle({
        targetBundle: challenge.json.otpEncryptionTargetBundle,
        otpCode: '000000',
        sessionPublicKeyHex: key.publicKeyHex,
        trustedKeys: [api.sandbox.enclavePublicKey],
      }),
    };
    const leg1 = await api.post(`/auth/credentials/${enc(alice.email.id)}/verify`, body);
    expect(leg1.status).toBe(202);
    const leg2 = await api.post(`/auth/credentials/${enc(alice.email.id)}/verify`, body, {
      headers: { [SIG]: await coreStamp(leg1.json.payloadToSign, key), 'Request-Id': leg1.json.requestId },
    });
    expect(leg2.status, leg2.text).toBe(200);
    const q = await newQuote(alice, bob, 5);
    const r = await execute(q, { [SIG]: await coreStamp(payloadOf(q), key) });
    expect(r.status, r.text).toBe(200);
  });

  it('sandbox-valid-signature is accepted', async () => {
    const q = await newQuote(alice, bob, 1);
    const r = await execute(q, { [SIG]: 'sandbox-valid-signature' });
    expect(r.status).toBe(200);
  });

  it('without a signature → 401 WALLET_SIGNATURE_MISSING; garbage → 401 WALLET_SIGNATURE_MALFORMED; nothing moves', async () => {
    const before = await balance(alice.wallet.id);
    const q = await newQuote(alice, bob, 1);
    const none = await execute(q);
    expect([none.status, none.json.code]).toEqual([401, 'WALLET_SIGNATURE_MISSING']);
    const garbage = await execute(q, { [SIG]: 'not-a-stamp' });
    expect([garbage.status, garbage.json.code]).toEqual([401, 'WALLET_SIGNATURE_MALFORMED']);
    expect(await balance(alice.wallet.id)).toBe(before);
    expect((await api.get(`/quotes/${enc(q.id)}`)).json.status).toBe('PENDING');
  });

  it('wrong key, another wallet’s session, or a signature over something else → 401 WALLET_SIGNATURE_INVALID', async () => {
    const q = await newQuote(alice, bob, 1);
    const stranger = await execute(q, { [SIG]: stamp(payloadOf(q), newKey()) });
    expect([stranger.status, stranger.json.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    const bobSigns = await execute(q, { [SIG]: stamp(payloadOf(q), bobKey) });
    expect([bobSigns.status, bobSigns.json.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    const other = await newQuote(alice, bob, 1);
    const wrongPayload = await execute(q, { [SIG]: stamp(payloadOf(other), aliceKey) });
    expect([wrongPayload.status, wrongPayload.json.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    // The quote is still executable after failed attempts.
    expect((await execute(q, { [SIG]: stamp(payloadOf(q), aliceKey) })).status).toBe(200);
  });

  it('no 202 leg: a Request-Id header is not needed (and ignored when sent)', async () => {
    const q = await newQuote(alice, bob, 1);
    const r = await execute(q, { [SIG]: stamp(payloadOf(q), aliceKey), 'Request-Id': 'Request:whatever' });
    expect(r.status).toBe(200);
  });

  it('executing twice without Idempotency-Key → 409 CONFLICT, no double spend', async () => {
    const q = await newQuote(alice, bob, 100);
    const headers = { [SIG]: stamp(payloadOf(q), aliceKey) };
    expect((await execute(q, headers)).status).toBe(200);
    const before = await balance(alice.wallet.id);
    const again = await execute(q, headers);
    expect([again.status, again.json.code]).toEqual([409, 'CONFLICT']);
    expect(await balance(alice.wallet.id)).toBe(before);
  });

  it('Idempotency-Key: the same key replays the same answer and debits once; on another quote → 409', async () => {
    const q = await newQuote(alice, bob, 250);
    const before = await balance(alice.wallet.id);
    const headers = { [SIG]: stamp(payloadOf(q), aliceKey), 'Idempotency-Key': `exec-${q.id}` };
    const first = await execute(q, headers);
    const second = await execute(q, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(await balance(alice.wallet.id)).toBe(before - 250);
    const other = await newQuote(alice, bob, 1);
    const reused = await execute(other, { [SIG]: stamp(payloadOf(other), aliceKey), 'Idempotency-Key': `exec-${q.id}` });
    expect([reused.status, reused.json.code]).toEqual([409, 'CONFLICT']);
  });

  it('a failed attempt does not record its Idempotency-Key; a malformed key → 400', async () => {
    const q = await newQuote(alice, bob, 1);
    const failed = await execute(q, { [SIG]: stamp(payloadOf(q), newKey()), 'Idempotency-Key': `k-${q.id}` });
    expect(failed.status).toBe(401);
    const ok = await execute(q, { [SIG]: stamp(payloadOf(q), aliceKey), 'Idempotency-Key': `k-${q.id}` });
    expect(ok.status).toBe(200);
    const bad = await execute(q, { [SIG]: stamp(payloadOf(q), aliceKey), 'Idempotency-Key': 'x'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.json.details.errors[0].field).toBe('Idempotency-Key');
  });

  it('quote larger than the balance → 400 INSUFFICIENT_FUNDS; the quote stays PENDING and executes once funded', async () => {
    const have = await balance(alice.wallet.id);
    const q = await newQuote(alice, bob, have + 1);
    const headers = { [SIG]: stamp(payloadOf(q), aliceKey) };
    const short = await execute(q, headers);
    expect([short.status, short.json.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect(await balance(alice.wallet.id)).toBe(have);
    expect((await api.get(`/quotes/${enc(q.id)}`)).json.status).toBe('PENDING');
    await fund(alice.wallet.id, 1);
    expect((await execute(q, headers)).status).toBe(200);
    expect(await balance(alice.wallet.id)).toBe(0);
    await fund(alice.wallet.id, 1_000_000);
  });

  it('a body is refused (the call takes none); {} is accepted; unknown quote → 404 QUOTE_NOT_FOUND', async () => {
    const q = await newQuote(alice, bob, 1);
    const withBody = await execute(q, { [SIG]: 'sandbox-valid-signature' }, { amount: 5 });
    expect([withBody.status, withBody.json.code]).toEqual([400, 'INVALID_INPUT']);
    expect((await execute(q, { [SIG]: 'sandbox-valid-signature' }, {})).status).toBe(200);
    const missing = await api.post('/quotes/Quote:nope/execute', undefined, { headers: { [SIG]: 'sandbox-valid-signature' } });
    expect([missing.status, missing.json.code]).toEqual([404, 'QUOTE_NOT_FOUND']);
  });
});

describe('quote expiry (own sandbox: the clock moves)', () => {
  let local: Api;
  let a: Wallet;
  let b: Wallet;
  let key: TestKey;
  beforeAll(async () => {
    local = await start();
    a = await createCustomer(local);
    b = await createCustomer(local);
    key = (await otpLogin(local, a.email.id)).key;
    expect((await local.post(`/sandbox/internal-accounts/${enc(a.wallet.id)}/fund`, { amount: 100 })).status).toBe(200);
  });
  afterAll(() => local.sandbox.close());

  it('executes just before expiresAt; at expiresAt → 400 QUOTE_EXPIRED and nothing moves', async () => {
    const early = (await local.post('/quotes', walletQuote(a, b, 10))).json;
    const late = (await local.post('/quotes', walletQuote(a, b, 10))).json;
    local.sandbox.advanceClock(299);
    expect((await local.post(`/quotes/${enc(early.id)}/execute`, undefined, { headers: { [SIG]: stamp(payloadOf(early), key) } })).status).toBe(200);
    expect((await local.post('/sandbox/clock/advance', { seconds: 1 })).status).toBe(200);
    const r = await local.post(`/quotes/${enc(late.id)}/execute`, undefined, { headers: { [SIG]: stamp(payloadOf(late), key) } });
    expect([r.status, r.json.code]).toEqual([400, 'QUOTE_EXPIRED']);
    const accounts = await local.get(`/internal-account?customerId=${enc(a.customer.id)}`);
    expect(accounts.json.data.find((x: any) => x.id === a.wallet.id).balance.amount).toBe(90);
  });
});

describe('garbage never breaks quotes', () => {
  it('a valid body with any one field (or nested field) replaced by random JSON, random headers on execute: 4xx with a code or a success, never 5xx', async () => {
    const q = await newQuote(alice, bob, 1);
    const headerText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_:=+/ .{}"'.split('')), maxLength: 80 });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.jsonValue({ maxDepth: 3 }), fc.option(headerText), fc.option(headerText), async (pick, value, sig, idem) => {
        const base: any = walletQuote(alice, bob, 1);
        const paths = [['source'], ['source', 'accountId'], ['source', 'sourceType'], ['destination'], ['destination', 'accountId'], ['lockedCurrencySide'], ['lockedCurrencyAmount'], ['immediatelyExecute'], ['description']];
        const path = paths[pick % paths.length] as string[];
        if (path.length === 1) base[path[0] as string] = value;
        else base[path[0] as string] = { ...base[path[0] as string], [path[1] as string]: value };
        const created = await api.post('/quotes', base);
        expect(created.status, created.text).toBeLessThan(500);
        if (created.status >= 400) expect(typeof created.json?.code).toBe('string');
        const headers: Record<string, string> = {};
        if (sig !== null) headers[SIG] = sig;
        if (idem !== null) headers['Idempotency-Key'] = idem;
        const executed = await api.post(`/quotes/${enc(q.id)}/execute`, value === null ? undefined : value, { headers });
        expect(executed.status, executed.text).toBeLessThan(500);
        expect(executed.status).not.toBe(200);
        expect(typeof executed.json?.code).toBe('string');
      }),
      { numRuns: 150 },
    );
  });
});
