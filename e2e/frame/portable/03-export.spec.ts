/**
 * Export only in the frame, in every engine (THREAT-MODEL.md P1, P2; issue 33): Chromium
 * (partitioning on), Firefox ESR and WebKitGTK through the portable driver. The approval says in
 * words what the export reveals; synthetic clicks from the parent and script clicks in the frame
 * approve nothing (no export signed at the server); a real click approves (in the frame in Chromium,
 * in the approval window of the signer origin in Firefox and WebKit); the phrase waits hidden
 * in the frame (a script click on Reveal shows nothing), a real click reveals it, Done clears it and
 * the app gets `{ shown: true }`. Everything the parent's script saw (messages, console, its own
 * requests and answers, its DOM) and its storage are then searched for the phrase: absent.
 */
import { expectNoPhrase } from '../helpers.js';
import { makeFrameWallet, phraseWordsInFrame, recordInPage, startLoginInPage, scriptClickInFrame, seenInPage, startExportInPage, storageInPage, syntheticClicksFromParent } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { approveIn, expect, newCustomer, OTP, outcome, pressOn, shown, SIGNER_IFRAME, signerIn, test, textIn, typeCode, visibleIn } from './steps.js';

const frameStack = useFrameStack();
// A login and exports on a machine shared by many: the steps wait for events, the whole may take a while.
test.setTimeout(150_000);

const exportsSigned = () => frameStack().signed().filter((s) => s.startsWith('POST ') && s.endsWith('/export'));

test('export approved by a real click in the frame; the phrase shown only there after a real click; nothing of it reaches the parent', async ({ openDevice, engine }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await newCustomer(tab, frameStack());
  // Recorded from before the wallet opens its channel (an attacker's script would be there as early).
  await tab.evaluate(recordInPage, frameStack().appUrl);
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  const frame = signerIn(tab);

  await tab.evaluate(startExportInPage, accountId);
  await shown(frame, 'signer-approval');
  const approval = await textIn(frame, 'signer-approval');
  expect(approval).toContain('Reveal your recovery phrase');
  expect(approval).toContain('anyone who sees it can take the funds');
  expect(approval).toContain('cannot be undone');
  expect(approval).toContain(accountId);

  // Script clicks from the parent and inside the frame: still asking, nothing signed.
  await tab.evaluate(syntheticClicksFromParent);
  await frame.evaluate(scriptClickInFrame);
  expect(await visibleIn(frame, 'signer-approval')).toBe(true);
  expect(exportsSigned()).toEqual([]);

  // In the frame where it reports occlusion (Chromium); in the approval window elsewhere (Firefox, WebKit: approval-route.ts).
  expect(await approveIn(tab)).toBe(engine === 'chromium' ? 'frame' : 'popup');
  await shown(frame, 'signer-phrase');
  expect(exportsSigned()).toHaveLength(1);
  expect(await frame.evaluate(phraseWordsInFrame)).toEqual([]);
  await frame.evaluate(() => (document.querySelector('[data-testid="signer-phrase-reveal"]') as HTMLButtonElement).click());
  expect(await frame.evaluate(phraseWordsInFrame)).toEqual([]);

  await pressOn(frame, 'signer-phrase-reveal');
  await expect.poll(() => frame.evaluate(phraseWordsInFrame).then((w) => w.length)).toBeGreaterThanOrEqual(12);
  const words = await frame.evaluate(phraseWordsInFrame);

  await frame.click('signer-phrase-close');
  expect(await tab.evaluate(() => window.t.export)).toEqual({ ok: true, value: { shown: true } });
  await expect.poll(() => tab.evaluate((s) => (document.querySelector(s) as HTMLElement | null)?.checkVisibility({ visibilityProperty: true }) ?? false, SIGNER_IFRAME)).toBe(false);
  expect(await frame.evaluate(phraseWordsInFrame)).toEqual([]);

  expect(() => expectNoPhrase(`x ${JSON.stringify({ words })} y`, words, 'canary')).toThrow();
  const seen = await tab.evaluate(seenInPage);
  expect(seen).toContain(accountId); // the recorder did see the protocol's traffic
  expect(seen).toContain('"shown":true');
  expectNoPhrase(seen, words, "the parent's messages, console, requests, answers and DOM");
  expectNoPhrase(await tab.evaluate(storageInPage), words, "the parent's storage");
});
