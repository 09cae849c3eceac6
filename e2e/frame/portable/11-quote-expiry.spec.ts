/**
 * A payment's prompt ends with its quote (approval-route.ts `approvalDeadline`; approval.ts;
 * methods.ts), in every engine. The sandbox's clock is moved forward once the quote exists, so that
 * only a few seconds of it are left on the service's clock, which now runs minutes ahead of the
 * browser's: the frame reads the quote's `expiresAt` on its estimate of the service's clock (the
 * `Date` headers the proxy passes on), not on the browser's, and its prompt expires with the quote,
 * well before the host's 60 s lifetime. Nobody answers; the test waits for the call's answer (an
 * event), never for a fixed time, and gives it less than the 60 s a prompt lasts otherwise. Then a
 * quote already ended when the frame reads it: QUOTE_EXPIRED, no prompt. Nothing is signed.
 */
import { randomUUID } from 'node:crypto';
import { approvalMarksInFrame, watchApprovalInFrame } from '../bench/in-page.js';
import { useFrameStack } from '../stack.js';
import { appRequestInPage, callInPage, callSettled } from './prompt-in-page.js';
import { promptShown, walletCall, type Outcome } from './prompt-journey.js';
import { expect, loggedInCustomer, signerIn, test } from './steps.js';

const frameStack = useFrameStack();
test.setTimeout(180_000);

/** The sandbox's quotes live 5 minutes (src/sandbox/domain/transfers.ts QUOTE_TTL_MS). */
const QUOTE_LIFE_S = 5 * 60;
/** What is left of the quote on the service's clock once it is moved. */
const LEFT_S = 15;

const executes = () => frameStack().signed().filter((s) => s.endsWith('/execute')).length;

test('a payment whose quote ends in seconds: the prompt ends with it (on the service\'s clock, minutes ahead), SIGNER_APPROVAL_EXPIRED; an ended quote: QUOTE_EXPIRED, no prompt; nothing signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const me = (await tab.evaluate(appRequestInPage, ['GET', '/demo/me'] as const)) as { payees: { accountId: string }[] };
  const destination = me.payees[0]?.accountId as string;
  await frameStack().fund(accountId, 20_000_000);
  const quote = await walletCall<{ id: string }>(tab, 'createQuote', { sourceAccountId: accountId, destinationAccountId: destination, amount: 1_000_000, description: 'Quote expiry spec' });
  const later = await walletCall<{ id: string }>(tab, 'createQuote', { sourceAccountId: accountId, destinationAccountId: destination, amount: 1_000_000, description: 'Quote expiry spec, ended' });
  await frameStack().advanceClock(QUOTE_LIFE_S - LEFT_S);
  const frame = signerIn(tab);
  const before = executes();

  await test.step('the prompt expires with the quote, unanswered', async () => {
    await frame.evaluate(watchApprovalInFrame);
    await tab.evaluate(callInPage, ['executeQuote', [quote.id, { idempotencyKey: randomUUID() }]] as const);
    // Less than the 60 s a prompt lasts when nothing ends it sooner: the old rule fails here.
    await expect.poll(() => tab.evaluate(callSettled), { message: 'the payment answered before the prompt\'s 60 s', timeout: 50_000 }).toBe(true);
    const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: false, code: 'SIGNER_APPROVAL_EXPIRED' });
    // The prompt was on the screen (Approve, or "Open the approval window"), then taken away.
    expect((await frame.evaluate(approvalMarksInFrame)).shown, 'the prompt was shown').toBeGreaterThan(0);
    expect(await promptShown(frame)).toBe(false);
    expect(executes()).toBe(before);
  });

  await test.step('a quote already ended when the frame reads it: QUOTE_EXPIRED, no prompt', async () => {
    await frameStack().advanceClock(LEFT_S + 1);
    await frame.evaluate(watchApprovalInFrame);
    await tab.evaluate(callInPage, ['executeQuote', [later.id, { idempotencyKey: randomUUID() }]] as const);
    const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: false, code: 'QUOTE_EXPIRED' });
    expect((await frame.evaluate(approvalMarksInFrame)).shown, 'no prompt').toBeUndefined();
    expect(executes()).toBe(before);
  });
});
