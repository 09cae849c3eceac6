/**
 * Provisioning against a real local sandbox: a customer with its embedded wallet, idempotent on
 * platformCustomerId; the service's refusals as WalletErrors; the browser bootstrap document; and
 * the provisioned ids passing the proxy's ownership checks.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { bootstrapResponse, createProxy, findEmbeddedWallet, provisionCustomer, serviceFromEnv, walletBootstrap } from '../../src/proxy/index.js';
import type { WalletBootstrap } from '../../src/index.js';
import { optional } from '../flows/helpers/sandbox.js';
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
  it('an existing customer with other details: created false, mismatched names the fields, the customer is unchanged', async () => {
    const user = newUser();
    const first = await provisionCustomer(service, user);
    expect(first.mismatched).toEqual([]);
    const again = await provisionCustomer(service, { ...user, email: user.email.toUpperCase() });
    expect([again.created, again.mismatched, again.customerId]).toEqual([false, [], first.customerId]);
    const changed = await provisionCustomer(service, { ...user, email: `other-${user.email}`, fullName: 'Ada King' });
    expect([changed.created, changed.mismatched, changed.customerId, changed.accountId]).toEqual([false, ['email', 'fullName'], first.customerId, first.accountId]);
    expect((await json(`/customers/${encodeURIComponent(first.customerId)}`)).email).toBe(user.email);
  });

  it('creates the customer and returns its embedded wallet account', async () => {
    const user = newUser();
    const { customerId, accountId, created } = await provisionCustomer(service, user);
    expect(created).toBe(true);
    const customer = await json(`/customers/${encodeURIComponent(customerId)}`);
    expect(customer).toMatchObject({ id: customerId, platformCustomerId: user.platformCustomerId, email: user.email, customerType: 'INDIVIDUAL' });
    const accounts = await json(`/internal-account?customerId=${encodeURIComponent(customerId)}`);
    const wallet = accounts.data.find((a: { id: string }) => a.id === accountId);
    expect(wallet).toMatchObject({ customerId });
    // `type` is not in the spec's table (§2.6): the spec-minimal profile leaves it out, and the
    // wallet is the account whose credential list the service serves (src/proxy/wallets.ts).
    expect(wallet.type).toBe(optional(sandbox, 'EMBEDDED_WALLET'));
    expect((await json(`/auth/credentials?accountId=${encodeURIComponent(accountId)}`)).data.length).toBeGreaterThan(0);
    expect(await findEmbeddedWallet(service, customerId)).toBe(accountId);
  });

  it('is idempotent on platformCustomerId: the same customer and wallet, created: false', async () => {
    const user = newUser();
    const first = await provisionCustomer(service, user);
    const again = await provisionCustomer(service, { ...user, email: `other-${user.email}` });
    expect(again).toEqual({ ...first, created: false, mismatched: ['email'] });
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

  it('email-first: no accountId (the login finds it), the rest checked as always', () => {
    expect(walletBootstrap({ trustedKeys: ['04' + 'a'.repeat(128)], baseUrl: '/api/' })).toEqual({ trustedKeys: ['04' + 'a'.repeat(128)], baseUrl: '/api' });
    expect(() => walletBootstrap({ trustedKeys: [], baseUrl: '/api' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("the provisioned wallet is the user's for the proxy's ownership checks; another's is not", async () => {
    const mine = await provisionCustomer(service, newUser());
    const theirs = await provisionCustomer(service, newUser());
    const proxy = createProxy({ ...service, logger: false, currentUser: () => ({ customerId: mine.customerId }) });
    expect((await proxy(new Request(`http://app.test/auth/credentials?accountId=${encodeURIComponent(mine.accountId)}`))).status).toBe(200);
    expect((await proxy(new Request(`http://app.test/auth/credentials?accountId=${encodeURIComponent(theirs.accountId)}`))).status).toBe(403);
  });
});

describe('configuration from the environment', () => {
  it('serviceFromEnv reads SERVICE_BASE_URL, SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET', () => {
    expect(serviceFromEnv({ SERVICE_BASE_URL: ' http://127.0.0.1:1/2025-10-13 ', SERVICE_CLIENT_ID: 'sandbox-client', SERVICE_CLIENT_SECRET: 'sandbox-secret' })).toEqual({
      baseUrl: 'http://127.0.0.1:1/2025-10-13',
      clientId: 'sandbox-client',
      clientSecret: 'sandbox-secret',
    });
  });

  it('an unset or empty variable fails naming every missing one (what next build or a start shows)', () => {
    let error: unknown;
    try {
      serviceFromEnv({ SERVICE_CLIENT_ID: 'x', SERVICE_CLIENT_SECRET: '' });
    } catch (e) {
      error = e;
    }
    expect(isWalletError(error, 'INVALID_ARGUMENT')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('SERVICE_BASE_URL');
    expect(message).toContain('SERVICE_CLIENT_SECRET');
    expect(message).not.toContain('SERVICE_CLIENT_ID (');
    expect(message).toContain('sandbox-secret');
  });

  it('createProxy with an undefined baseUrl names it and where it comes from (not "must be an http(s) URL")', () => {
    const env: Record<string, string | undefined> = {};
    expect(() => createProxy({ baseUrl: env.SERVICE_BASE_URL!, clientId: 'a', clientSecret: 'b', dangerouslyAllowEveryCaller: true })).toThrow(/baseUrl is undefined.*SERVICE_BASE_URL/);
    expect(() => createProxy({ baseUrl: 'http://x.test', clientId: 'a', clientSecret: env.SECRET!, dangerouslyAllowEveryCaller: true })).toThrow(/clientSecret is undefined.*SERVICE_CLIENT_SECRET/);
  });

  it('WalletBootstrap is a type of the browser entry too (no Node types needed)', () => {
    const boot: WalletBootstrap = walletBootstrap({ accountId: 'InternalAccount:1', trustedKeys: ['04' + 'ab'.repeat(64)], baseUrl: '/api' });
    expect(boot.baseUrl).toBe('/api');
  });
});

