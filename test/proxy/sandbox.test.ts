import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, findEmbeddedWallet, type ProxyHandler } from '../../src/proxy/index.js';
import { idPattern, optional } from '../flows/helpers/sandbox.js';
import { SANDBOX_VALID_SIGNATURE, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sealOtp } from '../sandbox/helpers/bundles.js';
import { newKey, stamp } from '../sandbox/helpers/keys.js';

const CLIENT_ID = 'proxy-test-client';
const CLIENT_SECRET = 'proxy-test-secret-4f8a1c';
const BASIC = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;

let sandbox: RunningSandbox;
let proxy: ProxyHandler;
let customerId: string;
let otherCustomerId: string;
const lines: string[] = [];

/** Creates a customer directly on the sandbox, as a platform backend would (this route is not proxied). */
async function createCustomer(platformCustomerId: string, email: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/customers`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId, email }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function sandboxCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: BASIC, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return response.json();
}

/** An email-OTP session on the wallet, made directly on the sandbox (the sandbox literal still needs one). */
async function loginWallet(walletId: string): Promise<void> {
  const credentials = await sandboxCall('GET', `/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  const id = encodeURIComponent(credentials.data[0].id);
  const challenge = await sandboxCall('POST', `/auth/credentials/${id}/challenge`, {});
  const key = newKey();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(challenge.otpEncryptionTargetBundle, '000000', key.compressed) };
  const leg1 = await sandboxCall('POST', `/auth/credentials/${id}/verify`, body);
  const session = await sandboxCall('POST', `/auth/credentials/${id}/verify`, body, { 'Service-Wallet-Signature': stamp(leg1.payloadToSign, key), 'Request-Id': leg1.requestId });
  expect(session.id).toMatch(idPattern(sandbox, 'Session'));
}

beforeAll(async () => {
  sandbox = await startSandbox({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, log: false });
  customerId = await createCustomer('proxy-test-1', 'one@example.com');
  otherCustomerId = await createCustomer('proxy-test-2', 'two@example.com');
  proxy = createProxy({
    baseUrl: sandbox.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    prefix: '/api',
    logger: (line) => lines.push(line),
    // The demo's rule: a user sees only their own customer.
    authorize: (_request, ctx) => ctx.customerId === customerId,
  });
});
afterAll(() => sandbox.close());

describe('proxy in front of the real local sandbox', () => {
  it('GET /internal-account?customerId= is forwarded with the credentials and answered by the sandbox', async () => {
    const response = await proxy(new Request(`http://app.test/api/internal-account?customerId=${encodeURIComponent(customerId)}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('date')).not.toBeNull();
    const page = (await response.json()) as { data: { id: string; customerId: string; type: string }[] };
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((account) => account.customerId === customerId && account.id.startsWith('InternalAccount:'))).toBe(true);
  });

  it("another customer's accounts → 403 from the hook; never reaches the sandbox", async () => {
    const response = await proxy(new Request(`http://app.test/api/internal-account?customerId=${encodeURIComponent(otherCustomerId)}`));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('FORBIDDEN');
  });

  it('a signed retry goes through: 202 challenge, then the same bytes with the stamp and Request-Id → 200', async () => {
    // The wallet by the rule of src/proxy/wallets.ts (no `type` field needed).
    const walletId = (await findEmbeddedWallet({ baseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, customerId)) ?? '';
    expect(walletId).not.toBe('');
    await loginWallet(walletId);
    // The wallet belongs to the user's customer; this hook checks accounts too.
    const confined = createProxy({
      baseUrl: sandbox.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      logger: false,
      authorize: (_request, ctx) => ctx.accountId === walletId,
    });
    const body = '{ "privateEnabled" : true }';
    const first = await confined(new Request(`http://app.test/internal-accounts/${walletId}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body }));
    expect(first.status).toBe(202);
    const challenge = (await first.json()) as { payloadToSign: string; requestId: string; expiresAt: string };
    expect(challenge.requestId).toMatch(idPattern(sandbox, 'Request'));
    const retry = await confined(
      new Request(`http://app.test/internal-accounts/${walletId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'Service-Wallet-Signature': SANDBOX_VALID_SIGNATURE, 'Request-Id': challenge.requestId },
        body,
      }),
    );
    expect(retry.status).toBe(200);
    // privateEnabled is the wire reference's, optional: the spec-minimal profile leaves it out.
    expect(((await retry.json()) as { privateEnabled?: boolean }).privateEnabled).toBe(optional(sandbox, true));
  });

  it('POST /customers is not on the default allowlist → 404 from the proxy', async () => {
    const response = await proxy(new Request('http://app.test/api/customers', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId: 'x' }) }));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string; reason: string }).code).toBe('NOT_FOUND');
  });

  it("the sandbox's own error answers pass through unchanged (wrong credentials → 401)", async () => {
    const wrong = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: 'not-the-secret', logger: false });
    const response = await wrong(new Request(`http://app.test/customers/${customerId}`));
    expect(response.status).toBe(401);
    const body = (await response.json()) as { code: string };
    expect(body.code).toBe('UNAUTHORIZED');
    expect(JSON.stringify(body)).not.toContain('not-the-secret');
  });

  it('logs one line per request, without the secret', () => {
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      expect(line).toMatch(/^proxy (GET|POST) \S+ \d{3} \d+ms( [A-Z_]+)?$/);
      expect(line).not.toContain(CLIENT_SECRET);
      expect(line).not.toContain(BASIC.slice(6));
    }
  });
});
