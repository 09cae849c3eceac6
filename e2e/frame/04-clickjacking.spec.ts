/**
 * Clickjacking against the approval (issue 33, THREAT-MODEL.md P1; the guard:
 * src/signer/frame/approve-guard.ts), in Chromium, where the frame can observe its own visibility
 * (IntersectionObserver v2). The attacker's script owns the parent page: it covers the button with
 * an overlay that lets clicks through, makes the frame nearly transparent, shrinks it, moves it under
 * the resting pointer just before a click, or moves the focus into it while the user presses Enter;
 * the frame itself never gives "Approve" the focus, and a focus a script gave it does not count.
 * Each attack ends with the user declining: the outcome is SIGNER_DECLINED, no signed PATCH reached
 * the server and the account is unchanged. Where a race decides (a click 50 ms after the prompt, a
 * move or a focus just before the press), the page's clock is paused (Playwright's clock, in the
 * frame too), so the outcome does not depend on how busy the machine is; the control test shows
 * the same paused clock lets a person approve.
 */
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { accountPrivate, loggedInCustomer, signer, startUpdate, updateOutcome } from './helpers.js';
import { useFrameStack } from './stack.js';
import { ARM_MS, HOLD_MS, REST_MS } from '../../src/signer/frame/approve-guard.js';

const frameStack = useFrameStack();
const IFRAME = 'iframe[title="Wallet signer"]';

/** Logged in, the clock installed (still running), an update waiting for approval in the frame. */
async function promptOpen(page: Page): Promise<string> {
  await page.clock.install();
  const accountId = await loggedInCustomer(page, frameStack());
  await startUpdate(page, accountId, true);
  await expect(signer(page).getByTestId('signer-approval')).toContainText('Private mode');
  return accountId;
}

/** As {@link promptOpen}, and waits until "Approve" can be pressed (the guard armed it). */
async function armedPrompt(page: Page) {
  const accountId = await promptOpen(page);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toBeEnabled();
  return { accountId, approve };
}

/** The middle of the frame's "Approve" button, in the page's coordinates. */
async function approveCenter(page: Page): Promise<{ x: number; y: number }> {
  const box = await signer(page).getByTestId('signer-approve').boundingBox();
  if (box === null) throw new Error('the approve button has no box');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The attacker moves the frame by (dx, dy) without changing its size (left/top in the parent's page). */
async function moveFrameBy(page: Page, dx: number, dy: number): Promise<void> {
  await page.evaluate(([s, x, y]) => {
    const frame = document.querySelector(s) as HTMLElement;
    const box = frame.getBoundingClientRect();
    frame.style.inset = 'auto';
    frame.style.margin = '0';
    frame.style.left = `${box.left + x}px`;
    frame.style.top = `${box.top + y}px`;
  }, [IFRAME, dx, dy] as const);
}

/** The frame back where the page's stylesheet puts it. */
async function frameBack(page: Page): Promise<void> {
  await page.evaluate((s) => {
    const frame = document.querySelector(s) as HTMLElement;
    frame.style.inset = '0';
    frame.style.margin = 'auto';
  }, IFRAME);
}

/** Until "Approve" is at (x, y) of the page (the move laid out). */
async function approveAt(page: Page, x: number, y: number): Promise<void> {
  await expect.poll(async () => approveCenter(page).then((c) => [Math.round(c.x), Math.round(c.y)])).toEqual([x, y]);
}

/**
 * The mouse put over the frame, 60, 30 px from the middle of "Approve"; the clock paused; the frame
 * moved by that much (whole in the page's view, its size unchanged), so that "Approve" is under the
 * mouse. Returns where.
 */
async function approveMovedUnderPointer(page: Page): Promise<{ x: number; y: number }> {
  const at = await approveCenter(page);
  const to = { x: Math.round(at.x) + 60, y: Math.round(at.y) + 30 };
  await page.mouse.move(to.x, to.y);
  await pauseClock(page);
  await moveFrameBy(page, 60, 30);
  await approveAt(page, to.x, to.y);
  return to;
}

/** Pauses the page's clock (the frame's too), two seconds ahead of now (it cannot go back). */
async function pauseClock(page: Page): Promise<void> {
  await page.clock.pauseAt(Date.now() + 2_000);
}

/** The user declines; nothing was signed and the account is unchanged. */
async function declinedAndNothingSigned(page: Page, accountId: string): Promise<void> {
  await page.clock.resume();
  await signer(page).getByTestId('signer-decline').click();
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(patches()).toBe(before);
  expect(await accountPrivate(page, accountId)).not.toBe(true);
}

/** Clicks where the button is, after the pointer rested there as the frame counts it. */
async function restedClick(page: Page, at: { x: number; y: number }): Promise<void> {
  await page.mouse.move(at.x, at.y);
  await expect(signer(page).getByTestId('signer-approve')).toHaveAttribute('data-pointer', 'rested');
  await page.mouse.down();
  await page.mouse.up();
}

/** Signed PATCH requests the server saw so far (one stack serves the whole file). */
const patches = () => frameStack().signed().filter((s) => s.startsWith('PATCH')).length;
let before = 0;
test.beforeEach(() => {
  before = patches();
});

test('control: with the clock paused, a person approves once the button armed and the pointer rested', async ({ page }) => {
  await page.clock.install();
  const accountId = await loggedInCustomer(page, frameStack());
  await pauseClock(page);
  await startUpdate(page, accountId, true);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toHaveAttribute('data-seen', 'fully');
  await expect(approve).toBeDisabled();
  await page.clock.runFor(ARM_MS + 10);
  await expect(approve).toBeEnabled();
  const at = await approveCenter(page);
  await page.mouse.move(at.x, at.y);
  await page.clock.runFor(REST_MS + 10);
  await restedClick(page, at);
  await page.clock.resume();
  expect(await updateOutcome(page)).toMatchObject({ ok: true, account: { privateEnabled: true } });
  expect(patches()).toBe(before + 1);
  expect(await accountPrivate(page, accountId)).toBe(true);
});

test('an overlay with pointer-events: none over the button: the frame is not fully visible, a click does nothing', async ({ page }) => {
  const accountId = await promptOpen(page);
  const at = await approveCenter(page);
  await page.evaluate(([x, y]) => {
    const cover = document.createElement('div');
    cover.textContent = 'Play!';
    cover.style.cssText = `position:fixed;left:${x - 60}px;top:${y - 25}px;width:120px;height:50px;background:#fc0;z-index:2147483647;pointer-events:none`;
    document.body.append(cover);
  }, [at.x, at.y] as const);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toHaveAttribute('data-seen', 'not');
  await restedClick(page, at);
  await expect(approve).toBeDisabled();
  await declinedAndNothingSigned(page, accountId);
});

test('the frame at opacity 0.01: a click where the button is does nothing', async ({ page }) => {
  const accountId = await promptOpen(page);
  await page.evaluate((s) => ((document.querySelector(s) as HTMLElement).style.opacity = '0.01'), IFRAME);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toHaveAttribute('data-seen', 'not');
  await restedClick(page, await approveCenter(page));
  await expect(approve).toBeDisabled();
  await page.evaluate((s) => ((document.querySelector(s) as HTMLElement).style.opacity = '1'), IFRAME);
  await declinedAndNothingSigned(page, accountId);
});

test('the frame shrunk to 1×1 under the pointer, then restored: not armed until it has been visible again', async ({ page }) => {
  const { accountId, approve } = await armedPrompt(page);
  await pauseClock(page);
  const at = await approveCenter(page);
  const style = await page.evaluate(([s, x, y]) => {
    const frame = document.querySelector(s) as HTMLElement;
    const was = frame.style.cssText;
    frame.style.cssText += `;inset:auto;margin:0;left:${x}px;top:${y}px;width:1px;height:1px`;
    return was;
  }, [IFRAME, at.x, at.y] as const);
  await expect(approve).toHaveAttribute('data-seen', 'not');
  await page.mouse.click(at.x, at.y);
  await page.evaluate(([s, was]) => ((document.querySelector(s) as HTMLElement).style.cssText = was), [IFRAME, style] as const);
  await expect(approve).toHaveAttribute('data-seen', 'fully');
  // Visible again at the same (paused) moment: not armed, a click now does nothing.
  await expect(approve).toBeDisabled();
  const again = await approveCenter(page);
  await page.mouse.click(again.x, again.y);
  await declinedAndNothingSigned(page, accountId);
});

test('a click 50 ms after the prompt appeared does nothing', async ({ page }) => {
  await page.clock.install();
  const accountId = await loggedInCustomer(page, frameStack());
  await pauseClock(page);
  await startUpdate(page, accountId, true);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toHaveAttribute('data-seen', 'fully');
  const at = await approveCenter(page);
  await page.mouse.move(at.x, at.y);
  await page.clock.runFor(50);
  await page.mouse.down();
  await page.mouse.up();
  await expect(approve).toBeDisabled();
  await declinedAndNothingSigned(page, accountId);
});

test('the frame moved under the resting pointer just before the click does not approve', async ({ page }) => {
  const { accountId, approve } = await armedPrompt(page);
  // The pointer rests on the page, away from the frame; the attacker moves the frame so that
  // "Approve" lands under it, and the user's click (baited by the page) comes at once. Two defences
  // answer: Chromium reports the moved frame as not visible (disarmed), and a press without a rest
  // of the pointer on the button does not count.
  await page.mouse.move(40, 40);
  await pauseClock(page);
  const at = await approveCenter(page);
  await moveFrameBy(page, 40 - at.x, 40 - at.y);
  await approveAt(page, 40, 40);
  await page.mouse.down();
  await page.mouse.up();
  await frameBack(page);
  await declinedAndNothingSigned(page, accountId);
});

test('the frame moved (whole in view) under the resting pointer, clicked twice, the second after a rest: the move disarmed it, nothing signed', async ({ page }) => {
  const { accountId, approve } = await armedPrompt(page);
  // The pointer rests over the frame, beside "Approve"; the attacker moves the frame (whole in the
  // page's view, by 60, 30 px, its size unchanged) so that "Approve" is under it, and the page baits
  // two clicks, the second once the pointer has rested (REST_MS). The browser sends the frame no
  // event for the move itself; the first press shows the frame its new place on the screen, so the
  // guard disarms there, and the second click, though rested, comes before ARM_MS: nothing counts.
  await approveMovedUnderPointer(page);
  await page.mouse.down();
  await page.mouse.up();
  await page.clock.runFor(REST_MS + 10);
  await expect(approve).toHaveAttribute('data-pointer', 'rested');
  await expect(approve).toBeDisabled();
  await page.mouse.down();
  await page.mouse.up();
  await frameBack(page);
  await declinedAndNothingSigned(page, accountId);
});

test.describe('on a touch screen (hasTouch)', () => {
  test.use({ hasTouch: true });

  /** A finger put on (x, y), held for `ms` on the page's clock, then lifted (CDP: Playwright's touchscreen only taps). */
  async function hold(page: Page, at: { x: number; y: number }, ms: number, during?: (cdp: CDPSession) => Promise<void>): Promise<void> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: at.x, y: at.y }] });
    await during?.(cdp);
    await page.clock.runFor(ms);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
  }

  test('a tap on the armed button signs nothing (a touch approves only by a hold); a hold lifted early neither; a hold approves (control)', async ({ page }) => {
    const { accountId, approve } = await armedPrompt(page);
    await pauseClock(page);
    const at = await approveCenter(page);
    const hint = signer(page).getByTestId('signer-approve-hint');
    // Chromium's touch emulation keeps a mouse where it last was and sends its boundary events after a
    // tap; a phone has none: the mouse waits where the finger lands, so that it plays no part.
    await page.mouse.move(at.x, at.y);
    await page.touchscreen.tap(at.x, at.y);
    await expect(hint).toContainText('touch and hold Approve');
    await hold(page, at, HOLD_MS - 100, () => expect(approve).toHaveAttribute('data-hold', 'holding'));
    await expect(hint).toContainText('touch and hold Approve');
    await expect(approve).not.toHaveAttribute('data-hold');
    expect(patches()).toBe(before);
    await hold(page, at, HOLD_MS + 10, async () => {
      await expect(approve).toHaveAttribute('data-hold', 'holding');
      await expect(hint).toContainText('Keep holding Approve');
    });
    await page.clock.resume();
    expect(await updateOutcome(page)).toMatchObject({ ok: true, account: { privateEnabled: true } });
    expect(patches()).toBe(before + 1);
    expect(await accountPrivate(page, accountId)).toBe(true);
  });

  test('the frame moved under a predictable tap just before it: nothing signed', async ({ page }) => {
    const { accountId } = await armedPrompt(page);
    // The tap will land at a place the page predicts (its own button there); the attacker moves the
    // frame (whole in view, its size unchanged) so that "Approve" is there just before. The mouse
    // waits at that place (see above).
    const to = await approveMovedUnderPointer(page);
    await page.touchscreen.tap(to.x, to.y);
    await frameBack(page);
    await declinedAndNothingSigned(page, accountId);
  });

  test('the frame moved while a finger holds Approve: the hold is broken, nothing signed', async ({ page }) => {
    const { accountId, approve } = await armedPrompt(page);
    await pauseClock(page);
    const at = await approveCenter(page);
    await hold(page, at, HOLD_MS + 10, async (cdp) => {
      await expect(approve).toHaveAttribute('data-hold', 'holding');
      // The frame moves 2 px (the button still under the finger); the finger follows it by 2 px, as a finger does.
      await moveFrameBy(page, 2, 0);
      await approveAt(page, Math.round(at.x) + 2, Math.round(at.y));
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: at.x + 2, y: at.y }] });
      await expect(approve).not.toHaveAttribute('data-hold');
    });
    await frameBack(page);
    await declinedAndNothingSigned(page, accountId);
  });
});

test('the focus moved into the frame while the user presses Enter does not approve', async ({ page }) => {
  const { accountId, approve } = await armedPrompt(page);
  // The user types in the app's page; the attacker moves the focus into the frame as Enter comes.
  await page.evaluate(() => {
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
  });
  await pauseClock(page);
  await page.evaluate((s) => (document.querySelector(s) as HTMLIFrameElement).focus(), IFRAME);
  await expect(approve).not.toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await declinedAndNothingSigned(page, accountId);
});

test('keyboard: Enter approves only once Tab brought the focus to Approve and it held it (a focus a script gave does not count); Escape declines', async ({ page }) => {
  const { accountId, approve } = await armedPrompt(page);
  await pauseClock(page);
  // The frame never focuses "Approve" itself; a focus given by a script, held long enough, and an
  // Enter meant for something else approve nothing: the screen says how to approve by keyboard.
  await expect(approve).not.toBeFocused();
  await approve.focus();
  await expect(approve).toBeFocused();
  await page.clock.runFor(REST_MS + 10);
  await page.keyboard.press('Enter');
  await expect(signer(page).getByTestId('signer-approve-hint')).toContainText('move to Approve with Tab');
  expect(patches()).toBe(before);
  // The user moves the focus with the keyboard (Decline comes before Approve), then presses Enter
  // once "Approve" held it.
  await page.keyboard.press('Shift+Tab');
  await expect(signer(page).getByTestId('signer-decline')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(approve).toBeFocused();
  await page.clock.runFor(REST_MS + 10);
  await page.keyboard.press('Enter');
  await page.clock.resume();
  expect(await updateOutcome(page)).toMatchObject({ ok: true, account: { privateEnabled: true } });
  expect(patches()).toBe(before + 1);

  await startUpdate(page, accountId, false);
  await expect(signer(page).getByTestId('signer-approval')).toContainText('Private mode');
  await signer(page).getByTestId('signer-decline').focus();
  await page.keyboard.press('Escape');
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(await accountPrivate(page, accountId)).toBe(true);
});
