/**
 * The approval popup in Chromium (issue 33; THREAT-MODEL.md P1): the host marks `update-account`
 * high-value in its configuration (`highValue.kinds`), so even where the frame can observe its own
 * visibility the prompt is answered in a window of the signer origin, opened by a click in the
 * frame. Approved there: one signed PATCH at the server. The window closed: SIGNER_DECLINED. A
 * blocked window (the app's iframe sandboxed without allow-popups): SIGNER_POPUP_BLOCKED, nothing
 * signed; then, popups allowed, the retry's window is opened by the user's click in the frame and
 * signs. Expired (the page clock moved past 60 s): SIGNER_APPROVAL_EXPIRED, the window closed,
 * nothing signed. "Signed" is read at the server (`signed()`) and in the account.
 */
import { expect, test, type Page } from '@playwright/test';
import { accountPrivate, approveInFrame, frameWallet, loginInFrame, newCustomer, signer, startUpdate, updateOutcome } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack({ signerConfig: { highValue: { kinds: ['update-account'] } } });

const patches = () => frameStack().signed().filter((s) => s.startsWith('PATCH')).length;

/** Starts the update and waits for the frame's screen: the words, "Open the approval window", no "Approve" in the frame. */
async function promptInFrame(page: Page, accountId: string, privateEnabled: boolean): Promise<void> {
  await startUpdate(page, accountId, privateEnabled);
  const screen = signer(page).getByTestId('signer-approval');
  await expect(screen).toContainText('Change your wallet settings');
  await expect(screen).toContainText(privateEnabled ? '→ On' : '→ Off');
  await expect(signer(page).getByTestId('signer-open-popup')).toBeVisible();
  await expect(signer(page).getByTestId('signer-approve')).toHaveCount(0);
}

/** The user's click in the frame opens the approval window; resolves to it once it shows the prompt. */
async function openWindow(page: Page): Promise<Page> {
  const opened = page.context().waitForEvent('page');
  await signer(page).getByTestId('signer-open-popup').click();
  const popup = await opened;
  expect(new URL(popup.url()).origin).toBe(frameStack().signerOrigin);
  await expect(popup.getByTestId('signer-approval')).toContainText('Change your wallet settings');
  return popup;
}

test('a high-value kind is approved in the window: signed once; closing the window declines', async ({ page }) => {
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await loginInFrame(page, accountId);
  const before = patches();

  await promptInFrame(page, accountId, true);
  const popup = await openWindow(page);
  await expect(popup.getByTestId('signer-approval')).toContainText('→ On');
  await expect(popup.getByTestId('signer-approval')).toContainText(accountId);
  const closed = popup.waitForEvent('close');
  await approveInFrame(popup);
  expect(await updateOutcome(page)).toMatchObject({ ok: true, account: { privateEnabled: true } });
  await closed; // the frame closes the window once answered
  expect(patches()).toBe(before + 1);

  // The user closes the window: declined, nothing more signed.
  await promptInFrame(page, accountId, false);
  const second = await openWindow(page);
  await second.close();
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(patches()).toBe(before + 1);
  expect(await accountPrivate(page, accountId)).toBe(true);
});

test('a blocked window is SIGNER_POPUP_BLOCKED with nothing signed; the retry, popups allowed, opens by a click in the frame', async ({ page }) => {
  // The app's iframe sandboxed without allow-popups while the page's address says so: the browser refuses the window.
  await page.addInitScript(() => {
    if (!location.search.includes('popups=no')) return;
    const create = Document.prototype.createElement;
    Document.prototype.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
      const element = create.call(this, tag, options);
      if (tag.toLowerCase() === 'iframe') element.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
      return element;
    } as typeof Document.prototype.createElement;
  });
  const accountId = await newCustomer(page, frameStack());
  await page.goto(`${frameStack().appPage()}&popups=no`);
  await page.locator('body[data-ready="true"]').waitFor();
  await frameWallet(page);
  await loginInFrame(page, accountId);
  let windows = 0;
  page.context().on('page', () => windows++);
  const before = patches();

  await promptInFrame(page, accountId, true);
  // A script click in the frame opens nothing.
  const frame = page.frames().find((f) => f.url().startsWith(frameStack().signerOrigin));
  await frame?.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid="signer-open-popup"]')?.click());
  await signer(page).getByTestId('signer-open-popup').click();
  const blocked = await page.evaluate(() => window.t.update as Promise<{ ok: boolean; code?: string }>);
  expect(blocked).toEqual({ ok: false, code: 'SIGNER_POPUP_BLOCKED' });
  expect(windows).toBe(0);
  expect(patches()).toBe(before);

  // Popups allowed (the frame embedded again, as after the user changed the setting): the same call again.
  await page.goto(frameStack().appPage());
  await page.locator('body[data-ready="true"]').waitFor();
  await frameWallet(page);
  await expect.poll(() => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status)).toBe('active');
  await promptInFrame(page, accountId, true);
  const popup = await openWindow(page);
  await approveInFrame(popup);
  expect(await updateOutcome(page)).toMatchObject({ ok: true, account: { privateEnabled: true } });
  expect(patches()).toBe(before + 1);
});

test('an expired prompt approves nothing: SIGNER_APPROVAL_EXPIRED, the window closed', async ({ page }) => {
  await page.clock.install();
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await loginInFrame(page, accountId);
  const before = patches();

  await promptInFrame(page, accountId, true);
  const popup = await openWindow(page);
  await expect(popup.getByTestId('signer-approve')).toBeEnabled();
  const closed = popup.waitForEvent('close');
  // 61 s pass on the pages' clocks (the frame's deadline is 60 s after the prompt opened).
  await page.clock.fastForward(61_000);
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_APPROVAL_EXPIRED' });
  await closed;
  expect(patches()).toBe(before);
  expect(await accountPrivate(page, accountId)).toBe(false);
});
