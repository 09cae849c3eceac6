/**
 * The frame-mode journey in every engine (THREAT-MODEL.md P1, P2, P3): Chromium (partitioning on),
 * Firefox ESR and WebKitGTK through the portable driver. The app at http://localhost:A, the signer
 * frame at http://localhost:B: an email-code login whose code is typed in the frame (a wrong one
 * first), an action approved by a trusted click on the frame's approval screen (which says what is
 * signed; in Firefox and WebKit the click is in the approval window the frame opens), one declined,
 * a logout. Then the parent's messages, console and DOM, and its network as the app's server saw
 * it, are searched for the codes; the server saw exactly the signatures the user approved.
 */
import { accountPrivateInPage, makeFrameWallet, recordInPage, sandboxIframes, seenInPage, startLoginInPage, startUpdateInPage, walletState } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { approveIn, expect, newCustomer, OTP, outcome, shown, SIGNER_IFRAME, signerIn, test, textIn, typeCode, walletStatus } from './steps.js';

const frameStack = useFrameStack();

test('login with the code typed in the frame, an action approved there, one declined, logout; no code reaches the parent', async ({ openDevice, engine }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await newCustomer(tab, frameStack());
  await tab.evaluate(recordInPage, frameStack().appUrl);
  await tab.evaluate(makeFrameWallet);
  expect(await walletStatus(tab)).toBe('signed-out');
  const frame = signerIn(tab);

  // A wrong code, told in the frame, then the right one.
  const WRONG = '937251';
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, WRONG);
  await expect.poll(() => textIn(frame, 'signer-otp-error')).toContain('not right');
  await typeCode(tab, OTP);
  expect(await outcome<{ ok: boolean; session?: { accountId: string } }>(tab, 'verifying')).toMatchObject({ ok: true, session: { accountId } });
  await expect.poll(() => walletStatus(tab)).toBe('active');

  // The approval screen says what is signed; a trusted click approves it.
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  await shown(frame, 'signer-approval');
  const approval = await textIn(frame, 'signer-approval');
  expect(approval).toContain('Change your wallet settings');
  expect(approval).toContain(accountId);
  expect(approval).toContain('Private mode');
  expect(approval).toContain('→ On');
  // In the frame where it reports occlusion (Chromium); in the approval window elsewhere (Firefox, WebKit: approval-route.ts).
  expect(await approveIn(tab)).toBe(engine === 'chromium' ? 'frame' : 'popup');
  expect(await outcome<{ ok: boolean; account?: { privateEnabled?: boolean } }>(tab, 'update')).toMatchObject({ ok: true, account: { privateEnabled: true } });
  await expect.poll(() => tab.evaluate((s) => (document.querySelector(s) as HTMLElement | null)?.checkVisibility({ visibilityProperty: true }) ?? false, SIGNER_IFRAME)).toBe(false);
  expect(frameStack().signed().filter((s) => s.startsWith('PATCH'))).toHaveLength(1);

  // Declined in the frame: SIGNER_DECLINED, nothing more signed.
  await tab.evaluate(startUpdateInPage, [accountId, false] as const);
  await shown(frame, 'signer-decline');
  await frame.click('signer-decline');
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(frameStack().signed().filter((s) => s.startsWith('PATCH'))).toHaveLength(1);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).toBe(true);

  await tab.evaluate(() => (window.t.wallet as { logout(): Promise<void> }).logout());
  await expect.poll(() => tab.evaluate(walletState)).toEqual({ status: 'signed-out', sessions: 0 });

  const seen = await tab.evaluate(seenInPage);
  expect(seen).toContain(accountId); // the recorder did see the protocol's traffic
  expect(seen).not.toContain(WRONG);
  expect(seen).not.toContain(OTP);
  // The parent's network: every request the app's server got from the parent page (not the frame's
  // CORS requests) and every answer to it.
  const network = frameStack().parentTraffic().join('\n');
  expect(network).toContain(accountId); // the parent's own requests were recorded (its signup)
  expect(network).not.toContain(WRONG);
  expect(network).not.toContain(OTP);
});

test('an app that embeds the frame sandboxed without allow-forms: the code entry still logs in, by "Continue" and by Enter', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await newCustomer(tab, frameStack());
  await tab.evaluate(sandboxIframes, 'allow-scripts allow-same-origin');
  await tab.evaluate(makeFrameWallet);
  expect(await tab.evaluate((s) => document.querySelector(s)?.getAttribute('sandbox'), SIGNER_IFRAME)).toBe('allow-scripts allow-same-origin');
  const frame = signerIn(tab);
  await tab.evaluate(startLoginInPage, accountId);
  // "Continue": a wrong code is told in the frame.
  await typeCode(tab, '937251');
  await expect.poll(() => textIn(frame, 'signer-otp-error')).toContain('not right');
  // Enter in the field: the right code logs in.
  await frame.fill('signer-otp-input', OTP);
  await frame.press('signer-otp-input', 'Enter');
  expect(await outcome<{ ok: boolean; session?: { accountId: string } }>(tab, 'verifying')).toMatchObject({ ok: true, session: { accountId } });
  await expect.poll(() => walletStatus(tab)).toBe('active');
});
