// The test kit (`embedded-wallet-signer/testing`, src/testing/) in Node: a suite sandbox through
// the runner's hooks, the SandboxClient's calls, a second handle on the same sandbox by target, and
// a wallet logging in against it. The Playwright fixtures run in this repo's e2e suite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWallet } from '../../src/wallet.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { SANDBOX_OTP, SandboxClient, startTestSandbox, undefinedFields, useTestSandbox } from '../../src/testing/index.js';
import { isWalletError } from '../../src/errors.js';

const sandbox = useTestSandbox({ beforeAll, afterAll }, { profile: 'service' });

describe('useTestSandbox + SandboxClient', () => {
  it('a customer with its wallet; a wallet logs in with the sandbox code and signs', async () => {
    const customer = await sandbox.client.createCustomer({ phone: true });
    expect(customer.accountId).toBeTruthy();
    expect(customer.phoneNumber).toMatch(/^\+1555[0-9]{7}$/);
    const wallet = createWallet({
      baseUrl: sandbox.url,
      trustedKeys: [sandbox.enclavePublicKey],
      headers: { Authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}` },
      keyStore: createKeyStore({ backend: createMemoryBackend() }),
      crossTab: false,
    });
    const session = await (await wallet.startOtpLogin({ accountId: customer.accountId })).verify(SANDBOX_OTP);
    expect(session.accountId).toBe(customer.accountId);
    expect((await wallet.updateAccount(customer.accountId, { privateEnabled: true })).id).toBe(customer.accountId);
    wallet.dispose();
  });

  it('funding, OIDC tokens, the clock, faults; a refusal is a WalletError with the sandbox code', async () => {
    const customer = await sandbox.client.createCustomer();
    await sandbox.client.fund(customer.accountId, 1234);
    const accounts = await sandbox.client.call<{ data: { id: string; balance: { amount: number } }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.customerId)}`);
    expect(accounts.data.find((a) => a.id === customer.accountId)?.balance.amount).toBe(1234);
    const token = await sandbox.client.oidcToken(customer.email, 'n'.repeat(64), 'my-app');
    expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString())).toMatchObject({ aud: 'my-app', nonce: 'n'.repeat(64) });
    const before = Date.parse(await sandbox.client.now());
    expect(Date.parse(await sandbox.client.advanceClock(60))).toBeGreaterThanOrEqual(before + 60_000);
    await sandbox.client.addFault({ kind: 'error', path: '/customers/*', status: 502 });
    expect(await sandbox.client.listFaults()).toEqual([expect.objectContaining({ kind: 'error', left: 1 })]);
    const failed = await sandbox.client.call('GET', `/customers/${encodeURIComponent(customer.customerId)}`).catch((e: unknown) => e);
    expect(isWalletError(failed, 'INTERNAL_ERROR') && failed.status === 502).toBe(true);
    await sandbox.client.clearFaults();
    const missing = await sandbox.client.call('GET', '/customers/Customer:nope').catch((e: unknown) => e);
    expect(isWalletError(missing, 'CUSTOMER_NOT_FOUND')).toBe(true);
  });

  it('a second handle by target reaches the same sandbox and closes nothing; answers meet the contract', async () => {
    const other = await startTestSandbox({ target: { url: sandbox.url } });
    expect(other.enclavePublicKey).toBe(sandbox.enclavePublicKey);
    const customer = await other.client.createCustomer();
    await other.close();
    const answer = await sandbox.client.call('GET', `/customers/${encodeURIComponent(customer.customerId)}`);
    expect(undefinedFields('Customer', answer)).toEqual([]);
    expect(() => new SandboxClient({ url: 'not a url' })).toThrow(/target\.url/);
  });
});

describe('the kit follows the spec (issue 34)', () => {
  /** The error body of a refused call, read raw (the profile shows in its fields). */
  async function refusalBody(url: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${url}/customers/Customer:nope`, { headers: { Authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}` } });
    return (await res.json()) as Record<string, unknown>;
  }

  it('a sandbox the kit starts answers in the service profile unless told otherwise', async () => {
    const saved = process.env.SANDBOX_PROFILE;
    delete process.env.SANDBOX_PROFILE;
    try {
      const kit = await startTestSandbox();
      try {
        // service: spec §7 {code, reason} only; the sandbox profile adds status and message.
        expect(Object.keys(await refusalBody(kit.url)).sort()).toEqual(['code', 'reason']);
      } finally {
        await kit.close();
      }
      process.env.SANDBOX_PROFILE = 'sandbox';
      const explained = await startTestSandbox();
      try {
        expect(await refusalBody(explained.url)).toHaveProperty('message');
      } finally {
        await explained.close();
      }
    } finally {
      if (saved === undefined) delete process.env.SANDBOX_PROFILE;
      else process.env.SANDBOX_PROFILE = saved;
    }
  });

  it('createCustomer finds the wallet on spec-minimal, which sends no account type', async () => {
    const minimal = await startTestSandbox({ profile: 'spec-minimal' });
    try {
      const customer = await minimal.client.createCustomer({ currencies: ['USD', 'KES'] });
      const credentials = await minimal.client.call<{ data: unknown[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(customer.accountId)}`);
      expect(credentials.data).toHaveLength(1);
    } finally {
      await minimal.close();
    }
  });

  it("the stand-in IdP's default token is for the OAuth client id the sandbox binds, not the API client id", async () => {
    const customer = await sandbox.client.createCustomer();
    const token = await sandbox.client.oidcToken(customer.email, 'n');
    expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).aud).toBe('sandbox-oauth-client');
  });
});
