/**
 * The attacker's key tests in every engine (THREAT-MODEL.md P1, P4): Chromium (partitioning on),
 * Firefox ESR and WebKitGTK through the portable driver. A page of a foreign origin cannot use the
 * frame; synthetic clicks and messages from the parent, and script clicks inside the frame, approve
 * nothing. Each test ends on a positive event (a refusal, the user's decline), then checks with the
 * server that nothing was signed.
 */
import { accountPrivateInPage, connectAsAttacker, connectThroughLibrary, scriptClickInFrame, startUpdateInPage, syntheticClicksFromParent } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { expect, loggedInCustomer, openApp, outcome, shown, SIGNER_IFRAME, signerIn, test, visibleIn } from './steps.js';

const frameStack = useFrameStack();

test('P4: a page of a foreign origin cannot use the frame: the frame refuses its hello, and the browser refuses to show it (frame-ancestors)', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await openApp(tab, frameStack(), frameStack().foreignUrl);
  // The frame's own check, with frame-ancestors left out of its CSP.
  expect(await tab.evaluate(connectAsAttacker, [frameStack().signerNoAncestorsUrl, ''] as const)).toEqual({ type: 'refused', code: 'SIGNER_ORIGIN_NOT_ALLOWED' });
  expect(await tab.evaluate(connectThroughLibrary, [frameStack().signerNoAncestorsUrl, 15_000] as const)).toBe('SIGNER_ORIGIN_NOT_ALLOWED');
  // With the recommended headers the browser does not even show the page to a foreign parent.
  expect(await tab.evaluate(connectThroughLibrary, [frameStack().signerUrl, 3_000] as const)).toBe('SIGNER_FRAME_UNREACHABLE');
  expect(frameStack().signed()).toEqual([]);
});

test('P1: synthetic clicks and messages do not approve; only the user can, here by declining; nothing is signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  const frame = signerIn(tab);
  await shown(frame, 'signer-approval');
  await tab.evaluate(syntheticClicksFromParent);
  await frame.evaluate(scriptClickInFrame);
  // Still asking: the approval screen stays until the user answers.
  expect(await visibleIn(frame, 'signer-approval')).toBe(true);
  await frame.click('signer-decline');
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).not.toBe(true);
});

test('P1: the frame removed while it asks: the call fails SIGNER_FRAME_UNREACHABLE; a payload smuggled in by the parent is refused before any request; nothing is signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  // A payload to sign smuggled in as a field: the frame's own checks refuse it.
  expect(
    await tab.evaluate(
      (id) =>
        (window.t.wallet as { updateAccount(id: string, patch: object): Promise<unknown> }).updateAccount(id, { privateEnabled: true, payloadToSign: '{"evil":true}' }).then(
          () => 'signed',
          (e: { code?: string }) => e.code,
        ),
      accountId,
    ),
  ).toBe('INVALID_ARGUMENT');
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  await shown(signerIn(tab), 'signer-approval');
  await tab.evaluate((s) => document.querySelector(s)?.remove(), SIGNER_IFRAME);
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_FRAME_UNREACHABLE' });
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).not.toBe(true);
});
