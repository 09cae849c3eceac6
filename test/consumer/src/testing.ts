// An app's own tests on the test kit: Playwright fixtures over its `test`, and a Vitest-style suite
// sandbox (the runner's hooks passed in). @playwright/test is the app's (an optional peer of ours).
import { test as base } from '@playwright/test';
import { SANDBOX_OTP, startTestSandbox, useTestSandbox, withWalletSandbox, type FaultSpec, type SuiteHooks, type TestSandbox } from 'embedded-wallet-signer/testing';

export const test = withWalletSandbox(base);

test('logs in', async ({ page, walletSandbox, otpCode, faults, sandboxClock, virtualPasskey }) => {
  const customer = await walletSandbox.client.createCustomer();
  const fault: FaultSpec = { kind: 'processing', path: '/internal-accounts/*', signed: true };
  await faults.add(fault);
  await sandboxClock.advance(60);
  await virtualPasskey.install();
  await page.goto(`/?account=${encodeURIComponent(customer.accountId)}&code=${otpCode === SANDBOX_OTP ? otpCode : ''}`);
});

export function suite(hooks: SuiteHooks): TestSandbox {
  return useTestSandbox(hooks, { profile: 'service' });
}

export async function once(): Promise<string> {
  const sandbox = await startTestSandbox();
  await sandbox.close();
  return sandbox.enclavePublicKey;
}
