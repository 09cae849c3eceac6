/**
 * Journey 13, in every engine and both modes: fund the wallet, quote a transfer, execute it (approved
 * where the mode asks: in frame mode in the signer frame or its approval window); the balance
 * changes. The execute is one stamped call over the quote's payload: no 202 leg, no Request-Id.
 */
import { approveUntil, expect, loggedLegs, newLoggedInCustomer, test, textOf, visible } from './fixtures.js';
import { recordWalletRequests, walletRequests } from './wallet-requests.js';

test('13 · transfer: fund, quote, execute; the balance changes', async ({ openDevice }) => {
  test.slow(); // a login, a funding, a quote and its approved execute: Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  await expect.poll(() => textOf(tab, 'balance')).toBe('0.00 USDC');

  await tab.click('nav-actions');
  await tab.fill('fund-amount', '25');
  await tab.click('fund-submit');
  await expect.poll(() => textOf(tab, 'fund-status')).toBe('Added 25 to the wallet.');
  await expect.poll(() => textOf(tab, 'fund-balance')).toBe('Balance: 25.00 USDC');

  await expect.poll(() => tab.evaluate(() => document.querySelectorAll('[data-testid="transfer-payee"] option').length)).toBeGreaterThan(0);
  await tab.fill('transfer-amount', '5');
  await recordWalletRequests(tab, { headers: ['service-wallet-signature', 'request-id', 'idempotency-key'], fields: [] });
  await tab.click('transfer-submit');
  await approveUntil(tab, async () => (await textOf(tab, 'transfer-result')).includes('Sent 5 USDC'));
  expect(await textOf(tab, 'transfer-result')).toContain('Balance now 20.00 USDC');

  // One stamped call over the quote's payload: no 202 leg, no Request-Id.
  const executes = await walletRequests(tab, 'POST', '/quotes/[^/]+/execute$');
  expect(executes).toHaveLength(1);
  expect(executes[0]!.headers['service-wallet-signature']).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(executes[0]!.headers['request-id']).toBeUndefined();
  expect(executes[0]!.headers['idempotency-key']).toBeTruthy();
  await expect.poll(() => loggedLegs(tab, 'POST', '/quotes$')).toEqual([{ leg: '1', status: '201', signed: 'false' }]);
  await expect.poll(() => loggedLegs(tab, 'POST', '/quotes/.+/execute$')).toEqual([{ leg: '1', status: '200', signed: 'true' }]);

  await tab.click('nav-home');
  await visible(tab, 'screen-home');
  await expect.poll(() => textOf(tab, 'balance')).toBe('20.00 USDC');
});
