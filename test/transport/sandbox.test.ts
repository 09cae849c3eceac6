// The signed-retry engine end to end against the local sandbox (which verifies every stamp, body and
// request id for real): OTP login, a two-leg PATCH /internal-accounts/{id}, the three-leg delegated
// key creation, the single-leg quote execute, an expiry the sandbox reports, and a skewed client clock.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { buildEncryptedOtpBundle } from '../../src/crypto/enclave.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';
import { createClient, type Client, type ClientOptions, type RequestLogEntry } from '../../src/transport/index.js';

const BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
const enc = encodeURIComponent;

interface Account { id: string; type: string; privateEnabled?: boolean }
interface AuthMethod { id: string; type: string; otpEncryptionTargetBundle?: string }
interface AuthSession { id: string; accountId: string; expiresAt: string }

let sandbox: RunningSandbox;
let keys: KeyStore;
let log: RequestLogEntry[];
let client: Client;
let customerId: string;
let wallet: Account;
let sessionKeyHex: string;

/** Stands in for the proxy: adds the platform credentials the browser never holds. */
function makeClient(extra: Partial<ClientOptions> = {}): Client {
  return createClient({ baseUrl: sandbox.url, headers: { Authorization: BASIC }, onRequest: (e) => log.push(e), ...extra });
}

/** Requests logged while running `fn`. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; requests: RequestLogEntry[] }> {
  const start = log.length;
  const result = await fn();
  return { result, requests: log.slice(start) };
}

async function otpLogin(credentialId: string): Promise<AuthSession> {
  const challenge = await client.request<AuthMethod>({ method: 'POST', path: `/auth/credentials/${enc(credentialId)}/challenge`, body: {} });
  const key = await keys.generate({ purpose: 'otp', accountId: wallet.id });
  const encryptedOtpBundle = await buildEncryptedOtpBundle({
    targetBundle: challenge.otpEncryptionTargetBundle!,
    otpCode: '000000',
    sessionPublicKeyHex: key.publicKeyHex,
    trustedKeys: [sandbox.enclavePublicKey],
  });
  const session = await client.signed<AuthSession>({
    method: 'POST',
    path: `/auth/credentials/${enc(credentialId)}/verify`,
    body: { type: challenge.type, encryptedOtpBundle },
    getSigner: () => keys.signer(key.publicKeyHex),
    purpose: 'login',
  });
  await keys.update(key.publicKeyHex, { purpose: 'session', sessionId: session.id });
  sessionKeyHex = key.publicKeyHex;
  return session;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  keys = createKeyStore({ backend: createMemoryBackend() });
  log = [];
  client = makeClient();
  const id = randomUUID();
  const customer = await client.request<{ id: string }>({
    method: 'POST',
    path: '/customers',
    body: { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${id}`, email: `u-${id}@example.com`, fullName: 'T U', currencies: ['USD'] },
  });
  customerId = customer.id;
  const accounts = await client.request<{ data: Account[] }>({ method: 'GET', path: '/internal-account', query: { customerId } });
  wallet = accounts.data.find((a) => a.type === 'EMBEDDED_WALLET')!;
  const credentials = await client.request<{ data: AuthMethod[] }>({ method: 'GET', path: '/auth/credentials', query: { accountId: wallet.id } });
  const email = credentials.data.find((m) => m.type === 'EMAIL_OTP')!;
  const { result: session, requests } = await counted(() => otpLogin(email.id));
  expect(session.id).toMatch(/^Session:/);
  expect(requests.map((r) => r.path.endsWith('/verify') ? r.status : 'challenge')).toEqual(['challenge', 202, 200]);
});
afterAll(async () => {
  await sandbox?.close();
});

describe('signed retry against the sandbox', () => {
  it('PATCH /internal-accounts/{id}: two legs, exactly 2 requests', async () => {
    const { result, requests } = await counted(() =>
      client.signed<Account>({
        method: 'PATCH',
        path: `/internal-accounts/${enc(wallet.id)}`,
        body: { privateEnabled: true },
        getSigner: () => keys.signer(sessionKeyHex),
        purpose: 'update-internal-account',
      }),
    );
    expect(result).toMatchObject({ id: wallet.id, privateEnabled: true });
    expect(requests.map((r) => [r.leg, r.status, r.signed])).toEqual([[1, 202, false], [2, 200, true]]);
  });

  it('POST /auth/delegated-keys: three legs, exactly 3 requests', async () => {
    const card = await client.request<{ id: string }>({
      method: 'POST',
      path: '/cards',
      body: { cardholderId: customerId, fundingSource: wallet.id },
      idempotencyKey: randomUUID(),
    });
    const { result, requests } = await counted(() =>
      client.signed<{ id: string; status: string; cardId: string }>({
        method: 'POST',
        path: '/auth/delegated-keys',
        body: { cardId: card.id, internalAccountId: wallet.id, nickname: 'card signer' },
        getSigner: () => keys.signer(sessionKeyHex),
        challenges: 2,
        purpose: 'create-delegated-key',
      }),
    );
    expect(result).toMatchObject({ id: expect.stringMatching(/^DelegatedKey:/), status: 'ACTIVE', cardId: card.id });
    expect(requests.map((r) => [r.leg, r.status])).toEqual([[1, 202], [2, 202], [3, 201]]);
  });

  it('POST /quotes/{id}/execute: the single-leg stamped form, exactly 1 request', async () => {
    const other = await client.request<{ id: string }>({
      method: 'POST',
      path: '/customers',
      body: { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}`, email: `o-${randomUUID()}@example.com`, fullName: 'O', currencies: ['USD'] },
    });
    const otherWallet = (await client.request<{ data: Account[] }>({ method: 'GET', path: '/internal-account', query: { customerId: other.id } })).data.find((a) => a.type === 'EMBEDDED_WALLET')!;
    await client.request({ method: 'POST', path: `/sandbox/internal-accounts/${enc(wallet.id)}/fund`, body: { amount: 1000 } });
    const quote = await client.request<{ id: string; paymentInstructions: Array<{ accountOrWalletInfo: { payloadToSign: string } }> }>({
      method: 'POST',
      path: '/quotes',
      body: { source: { sourceType: 'ACCOUNT', accountId: wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: otherWallet.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 },
    });
    const { result, requests } = await counted(() =>
      client.signed<{ id: string; status: string }>({
        method: 'POST',
        path: `/quotes/${enc(quote.id)}/execute`,
        stampOnly: quote.paymentInstructions[0]!.accountOrWalletInfo.payloadToSign,
        idempotencyKey: randomUUID(),
        getSigner: () => keys.signer(sessionKeyHex),
        purpose: 'execute-quote',
      }),
    );
    expect(result).toMatchObject({ id: quote.id, status: 'PROCESSING' });
    expect(requests).toHaveLength(1);
  });

  it('starts over once when the challenge expires while the user reads it (sandbox clock moved 6 minutes)', async () => {
    let hooks = 0;
    const { result, requests } = await counted(() =>
      client.signed<Account>({
        method: 'PATCH',
        path: `/internal-accounts/${enc(wallet.id)}`,
        body: { privateEnabled: false },
        getSigner: () => keys.signer(sessionKeyHex),
        purpose: 'update-internal-account',
        onBeforeSign: () => {
          if (hooks++ === 0) sandbox.advanceClock(6 * 60);
          return true;
        },
      }),
    );
    expect(result).toMatchObject({ privateEnabled: false });
    expect(hooks).toBe(2);
    expect(requests.map((r) => [r.leg, r.status])).toEqual([[1, 202], [2, 401], [1, 202], [2, 200]]);
  });

  it('works with a client clock 10 minutes off (expiry judged on the Date header)', async () => {
    // The session above is older now (the clock moved): log in again so the session is live.
    const credentials = await client.request<{ data: AuthMethod[] }>({ method: 'GET', path: '/auth/credentials', query: { accountId: wallet.id } });
    await otpLogin(credentials.data.find((m) => m.type === 'EMAIL_OTP')!.id);
    for (const skew of [10 * 60_000, -10 * 60_000]) {
      const skewed = makeClient({ now: () => Date.now() + skew });
      const { requests } = await counted(() =>
        skewed.signed({
          method: 'PATCH',
          path: `/internal-accounts/${enc(wallet.id)}`,
          body: { privateEnabled: true },
          getSigner: () => keys.signer(sessionKeyHex),
          purpose: 'update-internal-account',
        }),
      );
      expect(requests.map((r) => r.status)).toEqual([202, 200]);
    }
  });
});
