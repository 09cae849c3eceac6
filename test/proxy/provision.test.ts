/**
 * Provisioning against a real local sandbox: a customer with its embedded wallet, idempotent on
 * platformCustomerId; the service's refusals as WalletErrors; the browser bootstrap document; and
 * the provisioned ids passing the proxy's ownership checks.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { bootstrapResponse, createProxy, findEmbeddedWallet, provisionCustomer, walletBootstrap } from '../../src/proxy/index.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

let sandbox: RunningSandbox;
let service: { baseUrl: string; clientId: string; clientSecret: string };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  service = { baseUrl: sandbox.url, clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET };
});
afterAll(() => sandbox?.close());

const newUser = () => {
  const id = randomUUID();
  return { platformCustomerId: `app-user-${id}`, email: `u-${id}@example.com`, fullName: 'Ada Lovelace' };
};

async function json(path: string): Promise<any> {
  const response = await fetch(sandbox.url + path, { headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_CLIENT_ID}:${DEFAULT_CLIENT_SECRET}`).toString('base64')}` } });
  return response.json();
}

describe('provisionCustomer', () => {
  it('creates the customer and returns its embedded wallet account', async () => {
    const user = newUser();
    const { customerId, accountId, created } = await provisionCustomer(service, user);
    expect(created).toBe(true);
    const customer = await json(`/customers/${encodeURIComponent(customerId)}`);
    expect(customer).toMatchObject({ id: customerId, platformCustomerId: user.platformCustomerId, email: user.email, customerType: 'INDIVIDUAL' });
    const accounts = await json(`/internal-account?customerId=${encodeURIComponent(customerId)}`);
    expect(accounts.data.find((a: { id: string }) => a.id === accountId)).toMatchObject({ type: 'EMBEDDED_WALLET', customerId });
    expect(await findEmbeddedWallet(service, customerId)).toBe(accountId);
  });

  it('is idempotent on platformCustomerId: the same customer and wallet, created: false', async () => {
    const user = newUser();
    const first = await provisionCustomer(service, user);
    const again = await provisionCustomer(service, { ...user, email: `other-${user.email}` });
    expect(again).toEqual({ ...first, created: false });
  });

  it("the service's refusal is a WalletError with its code, status and details", async () => {
    let caught: unknown;
    try {
      await provisionCustomer(service, { ...newUser(), phoneNumber: 'not a phone' });
    } catch (e) {
      caught = e;
    }
    expect(isWalletError(caught, 'INVALID_INPUT')).toBe(true);
    expect((caught as { status: number }).status).toBe(400);
  });

  it('wrong credentials → WalletError UNAUTHORIZED, without the secret anywhere', async () => {
    let caught: unknown;
    try {
      await provisionCustomer({ ...service, clientSecret: 'wrong-secret-1234' }, newUser());
    } catch (e) {
      caught = e;
    }
    expect([isWalletError(caught), (caught as { status?: number }).status]).toEqual([true, 401]);
    expect(JSON.stringify({ ...(caught as object), message: (caught as Error).message })).not.toContain('wrong-secret-1234');
  });

  it('bad arguments → INVALID_ARGUMENT before any call', async () => {
    await expect(provisionCustomer(service, { platformCustomerId: '', email: 'a@example.com' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(provisionCustomer({ ...service, baseUrl: 'ftp://x' }, newUser())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('the browser bootstrap', () => {
  it('one JSON document: accountId, trusted enclave keys, base path; not cached', async () => {
    const { accountId } = await provisionCustomer(service, newUser());
    const response = bootstrapResponse({ accountId, trustedKeys: [sandbox.enclavePublicKey], baseUrl: '/api/' });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ accountId, trustedKeys: [sandbox.enclavePublicKey], baseUrl: '/api' });
  });

  it.each([
    ['no account', { accountId: '', trustedKeys: ['04' + 'a'.repeat(128)], baseUrl: '/api' }],
    ['a compressed key', { accountId: 'A', trustedKeys: ['02' + 'a'.repeat(64)], baseUrl: '/api' }],
    ['no keys', { accountId: 'A', trustedKeys: [], baseUrl: '/api' }],
    ['a protocol-relative base', { accountId: 'A', trustedKeys: ['04' + 'a'.repeat(128)], baseUrl: '//evil.example/api' }],
  ])('%s → INVALID_ARGUMENT', (_label, input) => {
    expect(() => walletBootstrap(input)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("the provisioned wallet is the user's for the proxy's ownership checks; another's is not", async () => {
    const mine = await provisionCustomer(service, newUser());
    const theirs = await provisionCustomer(service, newUser());
    const proxy = createProxy({ ...service, logger: false, currentUser: () => ({ customerId: mine.customerId }) });
    expect((await proxy(new Request(`http://app.test/auth/credentials?accountId=${encodeURIComponent(mine.accountId)}`))).status).toBe(200);
    expect((await proxy(new Request(`http://app.test/auth/credentials?accountId=${encodeURIComponent(theirs.accountId)}`))).status).toBe(403);
  });
});
