/**
 * The approval popup in every engine (issue 33; THREAT-MODEL.md P1), through the portable driver:
 * the host marks `update-account` high-value, so Chromium too asks in a window of the signer
 * origin; Firefox ESR and WebKitGTK (no IntersectionObserver v2) ask there for every kind. The
 * frame shows the words and "Open the approval window"; a script click there opens nothing; the
 * user's click opens the window, which shows the same words; approved there: one signed PATCH at
 * the server. The window closed by the user: SIGNER_DECLINED, nothing more signed. An app that
 * sandboxes the frame without `allow-popups`: the user's click opens no window, and the prompt
 * ends SIGNER_POPUP_BLOCKED at once, nothing signed (Chromium's `window.open` answers null there,
 * Firefox ESR's throws: src/signer/frame/open-window.ts).
 */
import { accountPrivateInPage, makeFrameWallet, sandboxIframes, scriptClickInFrame, startLoginInPage, startUpdateInPage } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { approveOn, expect, loggedInCustomer, newCustomer, openApprovalWindow, OTP, outcome, shown, signerIn, test, textIn, typeCode } from './steps.js';

const frameStack = useFrameStack({ signerConfig: { highValue: { kinds: ['update-account'] } } });

const patches = () => frameStack().signed().filter((s) => s.startsWith('PATCH')).length;

test('approved in the window of the signer origin: signed once; the window closed: declined', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const frame = signerIn(tab);
  const before = patches();

  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  await shown(frame, 'signer-open-popup');
  expect(await textIn(frame, 'signer-approval')).toContain('Change your wallet settings');
  expect(await frame.evaluate(() => document.querySelector('[data-testid="signer-approve"]') === null)).toBe(true);
  // A script click in the frame opens no window: the prompt stays as it was.
  await frame.evaluate(scriptClickInFrame);
  expect(await textIn(frame, 'signer-popup-status')).toContain('which no page can cover');

  const popup = await openApprovalWindow(tab);
  expect(await popup.evaluate(() => location.origin)).toBe(frameStack().signerOrigin);
  const words = await textIn(popup, 'signer-approval');
  expect(words).toContain('Change your wallet settings');
  expect(words).toContain('→ On');
  expect(words).toContain(accountId);
  await approveOn(popup);
  expect(await outcome<{ ok: boolean; account?: { privateEnabled?: boolean } }>(tab, 'update')).toMatchObject({ ok: true, account: { privateEnabled: true } });
  await expect.poll(() => popup.closed(), { message: 'the frame closed the window' }).toBe(true);
  expect(patches()).toBe(before + 1);

  // The user closes the window: declined.
  await tab.evaluate(startUpdateInPage, [accountId, false] as const);
  const second = await openApprovalWindow(tab);
  await second.close();
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(patches()).toBe(before + 1);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).toBe(true);
});

test('a frame sandboxed without allow-popups: the user\'s click opens no window, SIGNER_POPUP_BLOCKED, nothing signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await newCustomer(tab, frameStack());
  await tab.evaluate(sandboxIframes, 'allow-scripts allow-same-origin');
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  const before = patches();

  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  const frame = signerIn(tab);
  await shown(frame, 'signer-open-popup');
  await frame.click('signer-open-popup');
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_POPUP_BLOCKED' });
  expect(patches()).toBe(before);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).toBe(false);
});
