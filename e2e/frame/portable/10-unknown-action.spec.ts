/**
 * "Unknown action" (issue 33), in every engine: a signature the frame cannot put in words is refused,
 * or shown as "Unknown action" with its raw request only where the signer's host configuration
 * allows it (signer-config.json `allowUnknown`, never the parent). Every call the library accepts
 * from the app has its words; what the words cannot read comes from the service: here a quote whose
 * destination is of a kind the words do not know (the stack rewrites the service's answer to the
 * signer's read of the quote). Refused (the default): SIGNING_REFUSED, no prompt, nothing signed.
 * Allowed: the prompt says "Unknown action", shows the request and the warning, and executes once
 * approved as a person.
 */
import { randomUUID } from 'node:crypto';
import type { Tab } from '../../drivers/driver.js';
import { useFrameStack, type FrameStack } from '../stack.js';
import { appRequestInPage, callInPage, callSettled, promptInPage } from './prompt-in-page.js';
import { expectWords, noSeriousViolations, promptShown, walletCall, type Outcome } from './prompt-journey.js';
import { approveIn, expect, loggedInCustomer, signerIn, test } from './steps.js';

/** A destination the words cannot name (not an UMA address, an account or an address). */
const oddDestination = (quote: Record<string, unknown>) => ({ ...quote, destination: { destinationType: 'SOMEWHERE_NEW' } });
const refusing = useFrameStack({ signerQuoteAnswer: oddDestination });
const allowing = useFrameStack({ signerQuoteAnswer: oddDestination, signerConfig: { allowUnknown: true } });
test.setTimeout(180_000);

const executes = (stack: FrameStack) => stack.signed().filter((s) => s.endsWith('/execute')).length;

/** A funded wallet, logged in, and a quote to the demo's first payee; starts its execute. */
async function executeOddQuote(tab: Tab, stack: FrameStack): Promise<{ accountId: string; quoteId: string }> {
  const accountId = await loggedInCustomer(tab, stack);
  const me = (await tab.evaluate(appRequestInPage, ['GET', '/demo/me'] as const)) as { payees: { accountId: string }[] };
  await stack.fund(accountId, 20_000_000);
  const quote = await walletCall<{ id: string }>(tab, 'createQuote', { sourceAccountId: accountId, destinationAccountId: me.payees[0]?.accountId, amount: 1_000_000, description: 'Unknown action spec' });
  await tab.evaluate(callInPage, ['executeQuote', [quote.id, { idempotencyKey: randomUUID() }]] as const);
  return { accountId, quoteId: quote.id };
}

test('not allowed (the default): refused, no prompt, nothing signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const before = executes(refusing());
  const { quoteId } = await executeOddQuote(tab, refusing());
  await expect.poll(async () => (await tab.evaluate(callSettled)) || (await promptShown(signerIn(tab))), { message: 'answered or a prompt', timeout: 20_000 }).toBe(true);
  expect(await promptShown(signerIn(tab)), 'no prompt').toBe(false);
  const answer = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(answer).toMatchObject({ ok: false, code: 'SIGNING_REFUSED' });
  expect(answer.message).toContain(`cannot put quote ${quoteId} in words`);
  expect(executes(refusing())).toBe(before);
});

test('allowed by the host: "Unknown action" with its raw request, approved as a person, executed once', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const before = executes(allowing());
  const { quoteId } = await executeOddQuote(tab, allowing());
  const frame = signerIn(tab);
  await expect.poll(() => promptShown(frame), { message: 'the prompt', timeout: 20_000 }).toBe(true);
  const path = `/quotes/${encodeURIComponent(quoteId)}/execute`;
  const seen = await frame.evaluate(promptInPage);
  expectWords(seen, { name: 'unknown', call: ['executeQuote', []], heading: 'Unknown action', lines: [['Request', `POST ${path}`], ['Note', /cannot put in words/], ['Body', /"method": "POST"/]] }, 'the frame');
  const raw = seen?.lines.find(([label]) => label === 'Body')?.[1] ?? '';
  expect(JSON.parse(raw)).toEqual({ method: 'POST', path });
  await noSeriousViolations(frame, 'the frame (unknown)');
  await approveIn(tab);
  await expect.poll(() => tab.evaluate(callSettled), { message: 'the payment answered' }).toBe(true);
  const answer = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true, value: { id: quoteId } });
  expect(executes(allowing())).toBe(before + 1);
});
