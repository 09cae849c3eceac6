/**
 * The host's high-value quote limit (signer-config.json `highValue.quoteAbove`; approval-route.ts),
 * in every engine: a payment sending no more than the limit is approved where the engine approves
 * any prompt (in the frame in Chromium, which reports occlusion; in the approval window in Firefox
 * ESR and WebKitGTK, which do not), and a payment above it is approved in the approval window of the
 * signer origin in every engine, Chromium included. Each is read by role and text, approved as a
 * person, and executed at the service: one signed execute each.
 */
import { randomUUID } from 'node:crypto';
import type { Tab } from '../../drivers/driver.js';
import { useFrameStack } from '../stack.js';
import { appRequestInPage, callInPage, callSettled, promptInPage } from './prompt-in-page.js';
import { expectWords, promptShown, walletCall, type Outcome } from './prompt-journey.js';
import { approveIn, expect, loggedInCustomer, signerIn, test } from './steps.js';

/** The embedded wallets' currency in the sandbox (USDC, 6 decimals): 5 USDC. */
const LIMIT = 5_000_000;
const frameStack = useFrameStack({ signerConfig: { highValue: { kinds: [], quoteAbove: { amount: LIMIT, currency: 'USDC' } } } });
test.setTimeout(180_000);

const executes = () => frameStack().signed().filter((s) => s.endsWith('/execute')).length;

/** Pays `amount` from the wallet to the demo's first payee: read, approved as a person; resolves to where it was approved. */
async function pay(tab: Tab, accountId: string, destination: string, amount: number): Promise<'frame' | 'popup'> {
  const quote = await walletCall<{ id: string; totalSendingAmount: number }>(tab, 'createQuote', { sourceAccountId: accountId, destinationAccountId: destination, amount, description: 'Quote limit spec' });
  expect(quote.totalSendingAmount).toBe(amount);
  const before = executes();
  await tab.evaluate(callInPage, ['executeQuote', [quote.id, { idempotencyKey: randomUUID() }]] as const);
  await expect.poll(() => promptShown(signerIn(tab)), { message: 'the payment\'s prompt', timeout: 20_000 }).toBe(true);
  expectWords(await signerIn(tab).evaluate(promptInPage), { name: 'execute-quote', call: ['executeQuote', []], heading: 'Send a payment', lines: [['You send', /\d/], ['From', accountId], ['To', destination], ['Quote', quote.id]] }, 'the frame');
  const where = await approveIn(tab);
  await expect.poll(() => tab.evaluate(callSettled), { message: 'the payment answered' }).toBe(true);
  const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(result, JSON.stringify(result)).toMatchObject({ ok: true, value: { id: quote.id } });
  expect(executes()).toBe(before + 1);
  return where;
}

test('a payment up to the host\'s limit is approved where the engine approves; above it, in the approval window in every engine', async ({ openDevice, engine }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const me = (await tab.evaluate(appRequestInPage, ['GET', '/demo/me'] as const)) as { payees: { accountId: string }[] };
  const destination = me.payees[0]?.accountId as string;
  await frameStack().fund(accountId, 20_000_000);

  await test.step('at the limit: in the frame in Chromium, in the window where the engine cannot report occlusion', async () => {
    expect(await pay(tab, accountId, destination, LIMIT)).toBe(engine === 'chromium' ? 'frame' : 'popup');
  });
  await test.step('above the limit: in the window, every engine', async () => {
    expect(await pay(tab, accountId, destination, LIMIT + 1)).toBe('popup');
  });
});
