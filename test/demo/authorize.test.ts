/**
 * The demo's confinement (the proxy's ownership checks, `createProxy({ currentUser })`, at `/api`), over HTTP against
 * the real stack: user A owns a wallet with a session, a card, a quote and a delegated key; user B
 * (another browser, another customer) can reach none of it, a browser without the demo cookie
 * reaches nothing, a request that names no id is refused, and A's own calls go through.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../demo/server/stack.js';
import { generateSessionKey, stamp } from '../../src/crypto/index.js';
import { Browser, enc, signUp, type Answer, type Me } from './browser.js';
import { emailCredentialId, otpLogin, SIGNATURE_HEADER, signedRetry, type Login } from './wallet.js';

let stack: DemoStack;

interface User {
  browser: Browser;
  me: Me;
  customerId: string;
  walletId: string;
  /** The customer's USDC account that is not the embedded wallet. */
  usdcId: string;
}

async function user(label: string): Promise<User> {
  const { browser, me } = await signUp(stack.url, label);
  const usdc = me.accounts.find((a) => a.type !== 'EMBEDDED_WALLET');
  return { browser, me, customerId: me.customer.id, walletId: me.walletAccountId ?? '', usdcId: usdc?.id ?? '' };
}

let a: User;
let b: User;
/** A's email credential, session (and key), card, quote and delegated key. */
const ofA = { credentialId: '', sessionId: '', cardId: '', quoteId: '', delegatedKeyId: '' };
let loginA: Login;
let delegatedLegs: Answer[];

const cardBody = (holder: User, funder: User) => ({ cardholderId: holder.customerId, fundingSource: funder.walletId });
const quoteBody = (from: User, to: User) => ({
  source: { sourceType: 'ACCOUNT', accountId: from.walletId },
  destination: { destinationType: 'ACCOUNT', accountId: to.usdcId },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 5,
});

beforeAll(async () => {
  stack = await startDemoStack({ port: 0, quiet: true, watch: false });
  [a, b] = await Promise.all([user('User A'), user('User B')]);
  const A = a.browser;

  ofA.credentialId = await emailCredentialId(A, a.walletId);
  loginA = await otpLogin(A, ofA.credentialId, a.me);
  ofA.sessionId = loginA.session.id;

  const card = await A.post('/api/cards', cardBody(a, a), { headers: { 'Idempotency-Key': randomUUID() } });
  expect(card.status, card.text).toBe(201);
  ofA.cardId = card.json.id;

  const quote = await A.post('/api/quotes', quoteBody(a, b));
  expect(quote.status, quote.text).toBe(201);
  ofA.quoteId = quote.json.id;

  // A delegated key for the card: three legs, each retry stamped by A's session key.
  const dkBody = { cardId: ofA.cardId, internalAccountId: a.walletId, nickname: 'A card signer' };
  const leg1 = await A.post('/api/auth/delegated-keys', dkBody);
  const leg2 = await signedRetry(A, 'POST', '/api/auth/delegated-keys', dkBody, leg1, loginA.key);
  const leg3 = await signedRetry(A, 'POST', '/api/auth/delegated-keys', dkBody, leg2, loginA.key);
  expect(leg3.status, leg3.text).toBe(201);
  delegatedLegs = [leg1, leg2, leg3];
  ofA.delegatedKeyId = leg3.json.id;
});
afterAll(() => stack?.close());

/** One request as a table row; paths and bodies are functions because the ids exist only after set-up. */
interface Call {
  readonly label: string;
  readonly method: string;
  readonly path: () => string;
  readonly body?: () => unknown;
  /** The refusal's code, for the 404 table. */
  readonly code?: string;
}

const call = (label: string, method: string, path: () => string, body?: () => unknown, code?: string): Call => ({
  label,
  method,
  path,
  ...(body !== undefined ? { body } : {}),
  ...(code !== undefined ? { code } : {}),
});

/** Everything of A's the demo README lists, as B would try it. */
const OF_A_FORBIDDEN: Call[] = [
  call("A's credentials list", 'GET', () => `/api/auth/credentials?accountId=${enc(a.walletId)}`),
  call('a new credential on A\'s wallet', 'POST', () => '/api/auth/credentials', () => ({ type: 'EMAIL_OTP', accountId: a.walletId, email: 'b@example.com' })),
  call("A's account PATCH", 'PATCH', () => `/api/internal-accounts/${enc(a.walletId)}`, () => ({ privateEnabled: true })),
  call("A's wallet export", 'POST', () => `/api/internal-accounts/${enc(a.walletId)}/export`, () => ({})),
  call("A's account list", 'GET', () => `/api/internal-account?customerId=${enc(a.customerId)}`),
  call("A's customer GET", 'GET', () => `/api/customers/${enc(a.customerId)}`),
  call("A's customer PATCH", 'PATCH', () => `/api/customers/${enc(a.customerId)}`, () => ({ email: 'b-owns-this@example.com' })),
  call('a card for A', 'POST', () => '/api/cards', () => cardBody(a, a)),
  call('a card for A on B\'s wallet', 'POST', () => '/api/cards', () => cardBody(a, b)),
  call("a card for B funded by A's wallet", 'POST', () => '/api/cards', () => cardBody(b, a)),
  call("a quote paid from A's wallet", 'POST', () => '/api/quotes', () => quoteBody(a, b)),
  call("A's transactions by customerId", 'GET', () => `/api/transactions?customerId=${enc(a.customerId)}`),
  call("A's transactions by account", 'GET', () => `/api/transactions?senderAccountIdentifier=${enc(a.walletId)}`),
  call("B's customerId with A's account", 'GET', () => `/api/transactions?customerId=${enc(b.customerId)}&senderAccountIdentifier=${enc(a.walletId)}`),
  call("A's sessions list", 'GET', () => `/api/auth/sessions?accountId=${enc(a.walletId)}`),
  call("delegated keys of A's account", 'GET', () => `/api/auth/delegated-keys?accountId=${enc(a.walletId)}`),
  call("delegated keys of A's funding source", 'GET', () => `/api/auth/delegated-keys?fundingSourceId=${enc(a.walletId)}`),
  call("a delegated key on A's wallet", 'POST', () => '/api/auth/delegated-keys', () => ({ cardId: ofA.cardId, internalAccountId: a.walletId, nickname: 'B' })),
  call("funding A's wallet", 'POST', () => `/api/sandbox/internal-accounts/${enc(a.walletId)}/fund`, () => ({ amount: 1 })),
];

/** A's credential and session: the service lists them per wallet only, so not-B's and unknown look alike → 404. */
const OF_A_NOT_FOUND: Call[] = [
  call("challenge on A's credential", 'POST', () => `/api/auth/credentials/${enc(ofA.credentialId)}/challenge`, () => ({}), 'AUTH_METHOD_NOT_FOUND'),
  call("verify on A's credential", 'POST', () => `/api/auth/credentials/${enc(ofA.credentialId)}/verify`, () => ({ type: 'EMAIL_OTP', encryptedOtpBundle: 'x' }), 'AUTH_METHOD_NOT_FOUND'),
  call("delete A's credential", 'DELETE', () => `/api/auth/credentials/${enc(ofA.credentialId)}`, undefined, 'AUTH_METHOD_NOT_FOUND'),
  call("delete A's session", 'DELETE', () => `/api/auth/sessions/${enc(ofA.sessionId)}`, undefined, 'SESSION_NOT_FOUND'),
  call("refresh A's session", 'POST', () => `/api/auth/sessions/${enc(ofA.sessionId)}/refresh`, () => ({}), 'SESSION_NOT_FOUND'),
];

/**
 * A's quote, card and delegated key: looked up one by one, found to be A's → answered exactly as an
 * unknown id (404 with the kind's code: the proxy's S11, src/proxy/scope.ts), never forwarded.
 */
const OF_A_LOOKED_UP: Call[] = [
  call("A's quote read", 'GET', () => `/api/quotes/${enc(ofA.quoteId)}`, undefined, 'QUOTE_NOT_FOUND'),
  call("A's quote execute", 'POST', () => `/api/quotes/${enc(ofA.quoteId)}/execute`, undefined, 'QUOTE_NOT_FOUND'),
  call("A's card read", 'GET', () => `/api/cards/${enc(ofA.cardId)}`, undefined, 'NOT_FOUND'),
  call("a delegated key for A's card on B's wallet", 'POST', () => '/api/auth/delegated-keys', () => ({ cardId: ofA.cardId, internalAccountId: b.walletId, nickname: 'B' }), 'NOT_FOUND'),
  call("A's delegated key read", 'GET', () => `/api/auth/delegated-keys/${enc(ofA.delegatedKeyId)}`, undefined, 'NOT_FOUND'),
  call("A's delegated key revoke", 'DELETE', () => `/api/auth/delegated-keys/${enc(ofA.delegatedKeyId)}`, undefined, 'NOT_FOUND'),
];

function send(browser: Browser, { method, path, body }: Call): Promise<Answer> {
  const payload = body?.();
  return browser.call(method, path(), payload === undefined ? {} : { body: payload });
}

function expectNothingOfA(answer: Answer): void {
  expect(answer.text).not.toContain(a.me.customer.email);
  expect(answer.text).not.toContain('payloadToSign');
}

describe("user B and user A's things", () => {
  it.each(OF_A_FORBIDDEN)('$label → 403 FORBIDDEN', async (row) => {
    const answer = await send(b.browser, row);
    expect([answer.status, answer.json?.code], answer.text).toEqual([403, 'FORBIDDEN']);
    expectNothingOfA(answer);
  });

  it.each([...OF_A_NOT_FOUND, ...OF_A_LOOKED_UP])('$label → 404 $code (unknown and not-yours look alike)', async (row) => {
    const answer = await send(b.browser, row);
    expect([answer.status, answer.json?.code], answer.text).toEqual([404, row.code]);
    expectNothingOfA(answer);
  });

  it("an id of A's is refused the same way when asked again (cached owners stay A's)", async () => {
    for (const row of [...OF_A_NOT_FOUND, ...OF_A_LOOKED_UP]) {
      const answer = await send(b.browser, row);
      expect([answer.status, answer.json?.code], row.label).toEqual([404, row.code]);
    }
  });

  it("a second browser signed in as B is confined the same way", async () => {
    const other = new Browser(stack.url);
    expect((await other.post('/demo/signin', { email: b.me.customer.email })).status).toBe(200);
    expect((await other.get(`/api/customers/${enc(a.customerId)}`)).status).toBe(403);
    expect((await other.get(`/api/quotes/${enc(ofA.quoteId)}`)).status).toBe(404);
  });

  it("nothing of A's changed upstream", async () => {
    const A = a.browser;
    const accounts = await A.get(`/api/internal-account?customerId=${enc(a.customerId)}`);
    expect(accounts.status, accounts.text).toBe(200);
    const wallet = (accounts.json.data as { id: string; privateEnabled: boolean; balance: { amount: number } }[]).find((x) => x.id === a.walletId);
    expect(wallet).toMatchObject({ privateEnabled: false, balance: { amount: 0 } });
    const customer = await A.get(`/api/customers/${enc(a.customerId)}`);
    expect(customer.json.email).toBe(a.me.customer.email);
    const credentials = await A.get(`/api/auth/credentials?accountId=${enc(a.walletId)}`);
    expect((credentials.json.data as { id: string }[]).map((m) => m.id)).toEqual([ofA.credentialId]);
    const sessions = await A.get(`/api/auth/sessions?accountId=${enc(a.walletId)}`);
    expect((sessions.json.data as { id: string }[]).map((s) => s.id)).toEqual([ofA.sessionId]);
    const quote = await A.get(`/api/quotes/${enc(ofA.quoteId)}`);
    expect([quote.status, quote.json.status]).toEqual([200, 'PENDING']);
    const key = await A.get(`/api/auth/delegated-keys/${enc(ofA.delegatedKeyId)}`);
    expect([key.status, key.json.status]).toEqual([200, 'ACTIVE']);
    const cards = await A.get(`/api/cards/${enc(ofA.cardId)}`);
    expect([cards.status, cards.json.cardholderId]).toEqual([200, a.customerId]);
  });
});

describe('no demo cookie', () => {
  it('every /api route → 401 LOGIN_REQUIRED, A\'s and B\'s alike', async () => {
    const stranger = new Browser(stack.url);
    const calls: Call[] = [
      ...OF_A_FORBIDDEN,
      ...OF_A_NOT_FOUND,
      ...OF_A_LOOKED_UP,
      call("B's own accounts", 'GET', () => `/api/internal-account?customerId=${enc(b.customerId)}`),
      call('transactions with no filter', 'GET', () => '/api/transactions'),
    ];
    for (const row of calls) {
      const answer = await send(stranger, row);
      expect([answer.status, answer.json?.code], row.label).toEqual([401, 'LOGIN_REQUIRED']);
    }
  });
});

describe('a request naming no id where one is needed', () => {
  // Lists filtered by customer get the signed-in user's customer as their filter (src/proxy/scope.ts S2).
  const SCOPED: Call[] = [
    call('GET /transactions with no filter', 'GET', () => '/api/transactions'),
    call('GET /transactions filtered by status only', 'GET', () => '/api/transactions?status=COMPLETED'),
    call('GET /internal-account with no customerId', 'GET', () => '/api/internal-account'),
  ];
  it.each(SCOPED)("$label → 200 with B's records only (the customer filter is set to B's)", async (row) => {
    const answer = await send(b.browser, row);
    expect(answer.status, answer.text).toBe(200);
    for (const record of answer.json.data as { customerId?: string }[]) expect(record.customerId).toBe(b.customerId);
  });

  const NO_ID: Call[] = [
    call('GET /auth/credentials with no accountId', 'GET', () => '/api/auth/credentials'),
    call('GET /auth/sessions with no accountId', 'GET', () => '/api/auth/sessions'),
    call('GET /auth/delegated-keys with no filter', 'GET', () => '/api/auth/delegated-keys'),
    call('POST /quotes with no source', 'POST', () => '/api/quotes', () => ({ destination: { destinationType: 'ACCOUNT', accountId: b.usdcId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 })),
    call('POST /cards with neither cardholder nor funding source', 'POST', () => '/api/cards', () => ({ maxSpendPerDay: 100 })),
  ];

  it.each(NO_ID)('$label → 403 FORBIDDEN (B is logged in)', async (row) => {
    const answer = await send(b.browser, row);
    expect([answer.status, answer.json?.code], answer.text).toEqual([403, 'FORBIDDEN']);
  });
});

describe("A's own calls go through", () => {
  it('the email-OTP login: the verify first leg answered 202, the signed retry 200 with an AuthSession of the wallet', () => {
    const [first, retry] = loginA.legs;
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) });
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ id: ofA.sessionId, accountId: a.walletId });
  });

  it('the delegated key: 202, 202, then 201 ACTIVE', () => {
    expect(delegatedLegs.map((l) => l.status)).toEqual([202, 202, 201]);
    expect(delegatedLegs[2]?.json).toMatchObject({ cardId: ofA.cardId, accountId: a.walletId, status: 'ACTIVE' });
  });

  it("PATCH of A's wallet: first leg 202, signed retry 200", async () => {
    const path = `/api/internal-accounts/${enc(a.walletId)}`;
    const body = { nickname: 'Everyday wallet' };
    const first = await a.browser.patch(path, body);
    expect(first.status, first.text).toBe(202);
    expect(first.json.requestId).toMatch(/^Request:/);
    const retry = await signedRetry(a.browser, 'PATCH', path, body, first, loginA.key);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.nickname).toBe('Everyday wallet');
  });

  it('reads of its own customer, accounts, credentials, sessions, transactions, card, quote and keys → 200', async () => {
    const reads = [
      `/api/customers/${enc(a.customerId)}`,
      `/api/internal-account?customerId=${enc(a.customerId)}`,
      `/api/auth/credentials?accountId=${enc(a.walletId)}`,
      `/api/auth/sessions?accountId=${enc(a.walletId)}`,
      `/api/transactions?customerId=${enc(a.customerId)}`,
      `/api/cards/${enc(ofA.cardId)}`,
      `/api/quotes/${enc(ofA.quoteId)}`,
      `/api/auth/delegated-keys?accountId=${enc(a.walletId)}`,
      `/api/auth/delegated-keys/${enc(ofA.delegatedKeyId)}`,
    ];
    for (const path of reads) {
      const answer = await a.browser.get(path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    }
  });

  it('a second browser of A (signed in by email) reaches A\'s ids too; B\'s own calls go through for B', async () => {
    const again = new Browser(stack.url);
    expect((await again.post('/demo/signin', { email: a.me.customer.email })).status).toBe(200);
    expect((await again.get(`/api/quotes/${enc(ofA.quoteId)}`)).status).toBe(200);
    expect((await again.get(`/api/auth/delegated-keys/${enc(ofA.delegatedKeyId)}`)).status).toBe(200);
    expect((await b.browser.get(`/api/auth/credentials?accountId=${enc(b.walletId)}`)).status).toBe(200);
    expect((await b.browser.get(`/api/internal-account?customerId=${enc(b.customerId)}`)).status).toBe(200);
  });

  it('ids the service makes later pass the ownership lookup: add an SMS credential, log in with it, refresh, end a session, delete the credential', async () => {
    const A = a.browser;
    const addBody = { type: 'SMS_OTP', accountId: a.walletId };
    const added = await signedRetry(A, 'POST', '/api/auth/credentials', addBody, await A.post('/api/auth/credentials', addBody), loginA.key);
    expect(added.status, added.text).toBe(201);
    const smsId = added.json.id as string;
    const sms = await otpLogin(A, smsId, a.me);

    const refreshBody = { clientPublicKey: (await generateSessionKey()).publicKeyUncompressedHex };
    const refreshPath = `/api/auth/sessions/${enc(sms.session.id)}/refresh`;
    const refreshed = await signedRetry(A, 'POST', refreshPath, refreshBody, await A.post(refreshPath, refreshBody), sms.key);
    expect(refreshed.status, refreshed.text).toBe(201);
    expect(refreshed.json.id).not.toBe(sms.session.id);

    // B cannot touch any of the new ids.
    expect((await b.browser.post(`/api/auth/credentials/${enc(smsId)}/challenge`, {})).status).toBe(404);
    expect((await b.browser.delete(`/api/auth/sessions/${enc(refreshed.json.id)}`)).status).toBe(404);

    const endPath = `/api/auth/sessions/${enc(refreshed.json.id)}`;
    const ended = await signedRetry(A, 'DELETE', endPath, undefined, await A.delete(endPath), loginA.key);
    expect(ended.status, ended.text).toBe(204);
    const deletePath = `/api/auth/credentials/${enc(smsId)}`;
    const deleted = await signedRetry(A, 'DELETE', deletePath, undefined, await A.delete(deletePath), loginA.key);
    expect(deleted.status, deleted.text).toBe(204);
    const left = await A.get(`/api/auth/credentials?accountId=${enc(a.walletId)}`);
    expect((left.json.data as { id: string }[]).map((m) => m.id)).toEqual([ofA.credentialId]);
  });

  it("A funds its wallet, executes its quote (signed with the quote's payload) and sees the transaction", async () => {
    const A = a.browser;
    const fund = await A.post(`/api/sandbox/internal-accounts/${enc(a.walletId)}/fund`, { amount: 100 });
    expect(fund.status, fund.text).toBe(200);
    const quote = await A.post('/api/quotes', quoteBody(a, b));
    expect(quote.status, quote.text).toBe(201);
    const payload = quote.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string;
    const executed = await A.post(`/api/quotes/${enc(quote.json.id)}/execute`, undefined, {
      headers: { [SIGNATURE_HEADER]: await stamp(payload, loginA.key) },
    });
    expect(executed.status, executed.text).toBe(200);
    // B's quote execute of the same quote is still refused, as for an unknown quote (S11).
    expect((await b.browser.post(`/api/quotes/${enc(quote.json.id)}/execute`)).status).toBe(404);
  });
});
