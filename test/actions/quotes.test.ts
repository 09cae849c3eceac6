// Quotes through the wallet facade against the sandbox: createQuote (plain), executeQuote with the
// quote (1 request) or its id (GET + execute), the stamp over the quote's EMBEDDED_WALLET payload,
// the Idempotency-Key (generated, or given and replayed), QUOTE_EXPIRED (from the service, and judged
// locally on the server's clock), INSUFFICIENT_FUNDS, and quotes the wallet cannot sign.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseStamp, utf8Encode, verifySignature, hexToBytes } from '../../src/crypto/index.js';
import type { Quote } from '../../src/types.js';
import { counted, emailLogin, failing, loggedInCustomer, optional, shape, useTestSandbox, testWallet, type TestCustomer, type TestWallet } from './helpers.js';

const env = useTestSandbox();
let payer: TestCustomer;
let payee: TestCustomer;
let t: TestWallet;

beforeAll(async () => {
  ({ customer: payer, t } = await loggedInCustomer(env, { fund: 10_000 }));
  payee = await env.admin.customer();
});

function quote(amount: number): Promise<Quote> {
  return t.wallet.createQuote({ sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount, description: 'test' });
}

function payloadOf(q: Quote): string {
  return q.paymentInstructions![0]!.accountOrWalletInfo!.payloadToSign!;
}

describe('createQuote', () => {
  it('one plain request; the quote carries the EMBEDDED_WALLET payload', async () => {
    const { result, legs, wire } = await counted(t, () => quote(100));
    expect(shape(legs)).toEqual([['POST', 201, 1, false]]);
    expect(JSON.parse(wire[0]!.body!)).toEqual({
      source: { sourceType: 'ACCOUNT', accountId: payer.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: payee.accountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
      description: 'test',
    });
    expect(result).toMatchObject({ id: expect.stringMatching(/^Quote:/), status: 'PENDING', totalSendingAmount: 100 });
    expect(result.paymentInstructions?.[0]?.accountOrWalletInfo).toMatchObject({ payloadToSign: expect.any(String) });
    // accountType is the wire reference's addition: the library signs the payload without it (spec-minimal).
    expect(result.paymentInstructions?.[0]?.accountOrWalletInfo?.accountType).toBe(optional(env.sandbox, 'EMBEDDED_WALLET'));
  });

  it('refuses bad arguments before any request', async () => {
    for (const args of [
      { sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount: 0 },
      { sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount: 1.5 },
      { sourceAccountId: '', destinationAccountId: payee.accountId, amount: 1 },
      { sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount: 1, lockedCurrencySide: 'BOTH' },
    ]) {
      const { error, legs } = await failing(t, () => t.wallet.createQuote(args as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(legs).toHaveLength(0);
    }
  });
});

describe('executeQuote', () => {
  it('given the quote: exactly 1 request, stamped over its payload by the session key, with a generated Idempotency-Key', async () => {
    const q = await quote(250);
    const before = await env.admin.balance(payer.accountId, payer.customerId);
    const signed = t.signs.length;
    const { result, legs, wire } = await counted(t, () => t.wallet.executeQuote(q));
    expect(shape(legs)).toEqual([['POST', 200, 1, true]]);
    expect(wire[0]!.url).toBe(`${env.sandbox.url}/quotes/${encodeURIComponent(q.id)}/execute`);
    expect(wire[0]!.headers.get('Request-Id')).toBeNull();
    expect(wire[0]!.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{32,36}$/);
    const stamp = parseStamp(wire[0]!.headers.get('Service-Wallet-Signature')!);
    expect(stamp.publicKey).toBe(t.wallet.session()!.publicKeyHex);
    expect(await verifySignature(stamp.publicKey, hexToBytes(stamp.signature), utf8Encode(payloadOf(q)))).toBe(true);
    expect(t.signs.slice(signed)).toEqual([expect.objectContaining({ purpose: 'execute-quote', payloadToSign: payloadOf(q), leg: 1 })]);
    expect(result).toMatchObject({ id: q.id, status: 'PROCESSING' });
    expect(await env.admin.balance(payer.accountId, payer.customerId)).toBe(before - 250);
  });

  it('given its id: GET then execute, exactly 2 requests', async () => {
    const q = await quote(10);
    const { result, legs } = await counted(t, () => t.wallet.executeQuote(q.id));
    expect(shape(legs)).toEqual([
      ['GET', 200, 1, false],
      ['POST', 200, 1, true],
    ]);
    expect(result).toMatchObject({ id: q.id, status: 'PROCESSING' });
  });

  it('a given Idempotency-Key is sent, and repeating it replays the result instead of paying twice', async () => {
    const q = await quote(20);
    const key = `pay-${q.id}`;
    const first = await counted(t, () => t.wallet.executeQuote(q, { idempotencyKey: key }));
    expect(first.wire[0]!.headers.get('Idempotency-Key')).toBe(key);
    const balance = await env.admin.balance(payer.accountId, payer.customerId);
    const replay = await counted(t, () => t.wallet.executeQuote(q, { idempotencyKey: key }));
    expect(replay.legs).toHaveLength(1);
    expect(replay.result).toEqual(first.result);
    expect(await env.admin.balance(payer.accountId, payer.customerId)).toBe(balance);
    // Without the key, a second execution is a conflict, not a second payment.
    const { error } = await failing(t, () => t.wallet.executeQuote(q));
    expect(error).toMatchObject({ code: 'CONFLICT', status: 409, details: expect.objectContaining({ quoteId: q.id, idempotencyKey: expect.any(String) }) });
  });

  it('a quote larger than the balance: INSUFFICIENT_FUNDS with a clear message, 1 request', async () => {
    const balance = await env.admin.balance(payer.accountId, payer.customerId);
    const q = await quote(balance + 1);
    const { error, legs } = await failing(t, () => t.wallet.executeQuote(q));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_FUNDS', status: 400, details: expect.objectContaining({ quoteId: q.id }) });
    expect(error.message).toMatch(/fund the wallet or quote a smaller amount/);
    expect(error.message).toContain(q.id);
    expect(shape(legs)).toEqual([['POST', 400, 1, true]]);
    expect(await env.admin.balance(payer.accountId, payer.customerId)).toBe(balance);
  });

  it('an expired quote: QUOTE_EXPIRED from the service, then judged locally once the wallet has seen the server\'s clock', async () => {
    const a = await quote(5);
    const b = await quote(5);
    const c = await quote(5);
    env.sandbox.advanceClock(5 * 60 + 5);

    // The wallet has not yet seen the new time: the service refuses (1 request).
    const fromService = await failing(t, () => t.wallet.executeQuote(a));
    expect(fromService.error).toMatchObject({ code: 'QUOTE_EXPIRED', status: 400 });
    expect(fromService.error.message).toMatch(/expired at .*: create a new quote/);
    expect(shape(fromService.legs)).toEqual([['POST', 400, 1, true]]);

    // That answer's Date header moved the wallet's server clock: no request, no signature asked.
    const signed = t.signs.length;
    const local = await failing(t, () => t.wallet.executeQuote(b));
    expect(local.error).toMatchObject({ code: 'QUOTE_EXPIRED', details: expect.objectContaining({ quoteId: b.id, judged: 'locally' }) });
    expect(local.legs).toHaveLength(0);
    expect(t.signs).toHaveLength(signed);

    // By id: only the GET.
    const byId = await failing(t, () => t.wallet.executeQuote(c.id));
    expect(byId.error.code).toBe('QUOTE_EXPIRED');
    expect(shape(byId.legs)).toEqual([['GET', 200, 1, false]]);
  });

  it('quotes the wallet cannot sign, and bad options, fail before any request', async () => {
    const noPayload = { id: 'Quote:00000000-0000-4000-8000-000000000000', status: 'PENDING' } as Quote;
    const cases: Array<[Quote | string, object | undefined]> = [
      [noPayload, undefined],
      ['', undefined],
      [{ status: 'PENDING' } as unknown as Quote, undefined],
      [noPayload, { idempotencyKey: '' }],
      [noPayload, { idempotencyKey: 'has space' }],
    ];
    for (const [q, options] of cases) {
      const { error, legs } = await failing(t, () => t.wallet.executeQuote(q, options as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(legs).toHaveLength(0);
    }
    const unknown = await failing(t, () => t.wallet.executeQuote(noPayload.id));
    expect(unknown.error).toMatchObject({ code: 'QUOTE_NOT_FOUND', status: 404 });
    expect(unknown.legs).toHaveLength(1);
  });

  it('not logged in: NOT_LOGGED_IN before the execute request', async () => {
    const q = await quote(1);
    const w = testWallet(env.sandbox);
    const { error, legs } = await failing(w, () => w.wallet.executeQuote(q));
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(legs).toHaveLength(0);
  });

  it('a service that answers the stamped leg with a 202 (spec §5.3\'s reading): the challenge is signed and answered, 2 requests', async () => {
    const q = await quote(7);
    const before = await env.admin.balance(payer.accountId, payer.customerId);
    // The service of the other reading: a stamped execute without Request-Id gets a challenge over
    // the quote's payload; the signed retry (with its Request-Id) is the call the sandbox executes.
    const seen: Array<{ requestId: string | null; stamped: boolean }> = [];
    const twoLeg: typeof fetch = async (input, init = {}) => {
      const url = String(input instanceof Request ? input.url : input);
      const headers = new Headers(init.headers);
      if (!url.endsWith('/execute')) return fetch(input, init);
      seen.push({ requestId: headers.get('Request-Id'), stamped: headers.has('Service-Wallet-Signature') });
      if (headers.get('Request-Id') === null) {
        const expiresAt = new Date(Date.now() + 5 * 60_000).toISOString();
        return new Response(JSON.stringify({ payloadToSign: payloadOf(q), requestId: 'Request:quote-execute-1', expiresAt }), {
          status: 202,
          headers: { 'content-type': 'application/json', date: new Date().toUTCString() },
        });
      }
      expect(headers.get('Request-Id')).toBe('Request:quote-execute-1');
      headers.delete('Request-Id');
      return fetch(input, { ...init, headers });
    };
    const w = testWallet(env.sandbox, { fetch: twoLeg });
    await emailLogin(w.wallet, payer.accountId);
    const signed = w.signs.length;
    const { result, legs } = await counted(w, () => w.wallet.executeQuote(q));
    expect(shape(legs)).toEqual([
      ['POST', 202, 1, true],
      ['POST', 200, 2, true],
    ]);
    expect(seen).toEqual([
      { requestId: null, stamped: true },
      { requestId: 'Request:quote-execute-1', stamped: true },
    ]);
    expect(w.signs.slice(signed).map((s) => [s.purpose, s.leg, s.payloadToSign])).toEqual([
      ['execute-quote', 1, payloadOf(q)],
      ['execute-quote', 2, payloadOf(q)],
    ]);
    expect(result).toMatchObject({ id: q.id, status: 'PROCESSING' });
    expect(await env.admin.balance(payer.accountId, payer.customerId)).toBe(before - 7);
  });

  it('a second 202 after the signed retry is UNEXPECTED_CHALLENGE: nothing more is signed', async () => {
    const q = await quote(3);
    const challenge = (n: number) =>
      new Response(JSON.stringify({ payloadToSign: payloadOf(q), requestId: `Request:again-${n}`, expiresAt: new Date(Date.now() + 60_000).toISOString() }), {
        status: 202,
        headers: { 'content-type': 'application/json', date: new Date().toUTCString() },
      });
    let n = 0;
    const always202: typeof fetch = async (input, init = {}) => (String(input instanceof Request ? input.url : input).endsWith('/execute') ? challenge(n++) : fetch(input, init));
    const w = testWallet(env.sandbox, { fetch: always202 });
    await emailLogin(w.wallet, payer.accountId);
    const signed = w.signs.length;
    const { error, legs } = await failing(w, () => w.wallet.executeQuote(q));
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(shape(legs)).toEqual([
      ['POST', 202, 1, true],
      ['POST', 202, 2, true],
    ]);
    expect(w.signs.length - signed).toBe(2);
  });
});
