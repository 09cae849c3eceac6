/**
 * A prompt expires (approval.ts; approval-route.ts `approvalDeadline`), in every engine. The host
 * shortens the prompts' lifetime to 5 s (signer-config.json `approvalLifetimeMs`; the 60 s default
 * is the same rule, run on Playwright's page clock in Chromium: e2e/frame/08-approval-popup.spec.ts).
 * No page clock can be driven through Firefox's BiDi or WebKit's WebDriver, so the frame's own clock
 * runs: the test waits for the call's answer (an event), never for a fixed time. The prompt was
 * shown (the frame records when its button appeared), nobody answered it: SIGNER_APPROVAL_EXPIRED,
 * the prompt gone, nothing signed, the account unchanged.
 */
import { approvalMarksInFrame, watchApprovalInFrame } from '../bench/in-page.js';
import { accountPrivateInPage, startUpdateInPage } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { promptShown } from './prompt-journey.js';
import { expect, loggedInCustomer, outcome, signerIn, test } from './steps.js';

const LIFETIME_MS = 5_000;
const frameStack = useFrameStack({ signerConfig: { approvalLifetimeMs: LIFETIME_MS } });

const patches = () => frameStack().signed().filter((s) => s.startsWith('PATCH')).length;

test('a prompt nobody answers expires after the host\'s lifetime: SIGNER_APPROVAL_EXPIRED, nothing signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const frame = signerIn(tab);
  const before = patches();

  await frame.evaluate(watchApprovalInFrame);
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  const answer = await outcome(tab, 'update');
  expect(answer).toEqual({ ok: false, code: 'SIGNER_APPROVAL_EXPIRED' });
  const marks = await frame.evaluate(approvalMarksInFrame);
  // The prompt was on the screen (Approve, or "Open the approval window"), then taken away.
  expect(marks.shown, 'the prompt was shown').toBeGreaterThan(0);
  expect(await promptShown(frame)).toBe(false);
  expect(patches()).toBe(before);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).toBe(false);
});
