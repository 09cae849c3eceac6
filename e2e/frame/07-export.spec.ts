/**
 * Export only in the frame (THREAT-MODEL.md P1, P2; issue 33), Chromium with third-party storage
 * partitioning on. The approval says in words what the export reveals; clicks made by the parent's
 * script (at the iframe, or messages to its window) and by script inside the frame approve nothing
 * and sign nothing; a real click approves. The phrase is then in the frame, hidden: a script click
 * on Reveal shows nothing; nor does a real click the moment the screen appears, or one through an
 * overlay (Reveal and Copy are guarded as Approve is: approve-guard.ts; the page's clock paused, so
 * that the outcome does not depend on the machine's load); a person's click shows it; Copy, pressed
 * as a person does, puts it on the clipboard; Done clears it and the app's promise resolves to
 * `{ shown: true }`. A declined export: SIGNER_DECLINED. Then everything
 * the parent saw — its console, every message delivered to it, its DOM, every request and answer of
 * its page (Playwright's view and its own script's), its storage and cookies — is searched for the
 * phrase (the phrase, any three of its words in a row, its entropy): absent.
 */
import { expect, test } from '@playwright/test';
import { expectNoPhrase, loggedInCustomer, pressInFrame, recordParent, signer } from './helpers.js';
import { ARM_MS, REST_MS } from '../../src/signer/frame/approve-guard.js';
import { phraseWordsInFrame, scriptClickInFrame, startExportInPage, storageInPage, syntheticClicksFromParent } from './in-page.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();
// A login and exports on a machine shared by many: the steps wait for events, the whole may take a while.
test.setTimeout(150_000);

const exportOutcome = (page: import('@playwright/test').Page) => page.evaluate(() => window.t.export as Promise<{ ok: boolean; value?: unknown; code?: string }>);
const exportsSigned = () => frameStack().signed().filter((s) => s.startsWith('POST ') && s.endsWith('/export'));

test('export approved by a real click in the frame; the phrase shown only there, revealed and copied by real clicks; nothing of it reaches the parent', async ({ page, context }) => {
  const recorder = await recordParent(context, page, frameStack().appUrl);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: frameStack().signerOrigin });
  await page.clock.install();
  const accountId = await loggedInCustomer(page, frameStack());
  const frame = signer(page);

  // The approval, in words: what it reveals, what anyone who sees it can do, that it cannot be undone.
  await page.evaluate(startExportInPage, accountId);
  const approval = frame.getByRole('dialog', { name: 'Reveal your recovery phrase' });
  await expect(approval).toBeVisible();
  await expect(approval).toContainText('Your recovery phrase: anyone who sees it can take the funds');
  await expect(approval).toContainText('cannot be undone');
  await expect(approval).toContainText(accountId);

  // Script clicks, from the parent and inside the frame: nothing approved, nothing signed.
  await page.evaluate(syntheticClicksFromParent);
  await frame.locator('body').evaluate(scriptClickInFrame);
  await expect(approval).toBeVisible();
  expect(exportsSigned()).toEqual([]);

  // Approved as a person does, then the page's clock paused: the phrase screen appears at a frozen moment.
  const approve = frame.getByTestId('signer-approve');
  await expect(approve).toBeEnabled();
  await page.clock.pauseAt(Date.now() + 2_000);
  await approve.hover();
  await page.clock.runFor(REST_MS + 10);
  await expect(approve).toHaveAttribute('data-pointer', 'rested');
  await page.mouse.down();
  await page.mouse.up();
  const screen = frame.getByRole('dialog', { name: 'Your recovery phrase' });
  await expect(screen).toBeVisible();
  expect(exportsSigned()).toHaveLength(1);
  // Hidden by default: the words are not even in the frame's DOM; a script click does not reveal them.
  await expect(frame.getByTestId('signer-phrase-words')).toBeHidden();
  expect(await frame.getByTestId('signer-phrase-words').locator('li').count()).toBe(0);
  await frame.getByTestId('signer-phrase-reveal').evaluate((button: HTMLElement) => {
    button.click();
    button.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  await expect(frame.getByTestId('signer-phrase-words')).toBeHidden();

  // A real click the moment the screen appears: Reveal is not armed yet, nothing revealed.
  const reveal = frame.getByTestId('signer-phrase-reveal');
  const box = await reveal.boundingBox();
  if (box === null) throw new Error('Reveal has no box');
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.click(at.x, at.y);
  await expect(reveal).toBeDisabled();
  expect(await frame.getByTestId('signer-phrase-words').locator('li').count()).toBe(0);
  // Through an overlay that lets clicks through, the pointer resting and the time long past: not
  // fully visible (IntersectionObserver v2), never armed, nothing revealed.
  await page.evaluate(([x, y]) => {
    const cover = document.createElement('div');
    cover.id = 'cover';
    cover.textContent = 'Play!';
    cover.style.cssText = `position:fixed;left:${x - 50}px;top:${y - 20}px;width:100px;height:40px;background:#fc0;z-index:2147483647;pointer-events:none`;
    document.body.append(cover);
  }, [at.x, at.y] as const);
  await expect(reveal).toHaveAttribute('data-seen', 'not');
  await page.clock.runFor(ARM_MS + REST_MS + 10);
  await page.mouse.click(at.x, at.y);
  await expect(reveal).toBeDisabled();
  expect(await frame.getByTestId('signer-phrase-words').locator('li').count()).toBe(0);
  // The overlay gone, the screen fully visible for ARM_MS and the pointer resting on Reveal: revealed.
  await page.evaluate(() => document.getElementById('cover')?.remove());
  await expect(reveal).toHaveAttribute('data-seen', 'fully');
  await page.clock.runFor(ARM_MS + 10);
  await expect(reveal).toBeEnabled();
  await page.mouse.move(at.x + 1, at.y);
  await page.clock.runFor(REST_MS + 10);
  await expect(reveal).toHaveAttribute('data-pointer', 'rested');
  await page.mouse.down();
  await page.mouse.up();
  await expect(frame.getByTestId('signer-phrase-words').locator('li')).not.toHaveCount(0);
  await page.clock.resume();
  const words = await frame.locator('body').evaluate(phraseWordsInFrame);
  expect([12, 24]).toContain(words.length);

  // Copy by a real click: the phrase is on the clipboard (read back by a tab of the signer's origin:
  // the frame is not allowed to read it, and the app's origin has no clipboard permission).
  await pressInFrame(frame, 'signer-phrase-copy');
  await expect(frame.getByTestId('signer-phrase-status')).toHaveText('Copied');
  const signerTab = await context.newPage();
  await signerTab.goto(frameStack().signerUrl);
  expect(await signerTab.evaluate(() => navigator.clipboard.readText())).toBe(words.join(' '));
  await signerTab.close();
  await page.bringToFront();

  await frame.getByRole('button', { name: 'Done' }).click();
  expect(await exportOutcome(page)).toEqual({ ok: true, value: { shown: true } });
  await expect(screen).toHaveCount(0);
  await expect(page.locator('iframe[title="Wallet signer"]')).toBeHidden();
  expect(await frame.locator('body').evaluate(phraseWordsInFrame)).toEqual([]);

  // Declined: SIGNER_DECLINED, no second export signed.
  await page.evaluate(startExportInPage, accountId);
  await frame.getByRole('button', { name: 'Decline' }).click();
  expect(await exportOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(exportsSigned()).toHaveLength(1);

  // The search finds the phrase wherever it is written (its canary), and then finds none in the parent.
  expect(() => expectNoPhrase(`x ${JSON.stringify({ words })} y`, words, 'canary')).toThrow();
  const seen = await recorder.seen();
  expect(seen).toContain(accountId); // the recorder did see the protocol's traffic
  expect(seen).toContain('"shown":true');
  expectNoPhrase(seen, words, "the parent's console, messages, DOM and network");
  const cookies = JSON.stringify(await context.cookies(frameStack().appUrl));
  expectNoPhrase(`${await page.evaluate(storageInPage)}\n${cookies}`, words, "the parent's storage and cookies");
});
