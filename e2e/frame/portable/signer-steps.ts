/**
 * The signer frame's screens, acted on as a person does through the portable driver (e2e/drivers/):
 * finding the frame, waiting for its elements, typing a code, pressing a guarded button (Approve,
 * Reveal, Copy) once armed, in the frame or in the approval window of the signer origin. No fixture
 * here: the frame journeys (steps.ts) and the demo's journeys in frame mode (e2e/portable/) share it.
 */
import { expect } from '@playwright/test';
import type { Popup, Scope, Tab } from '../../drivers/driver.js';

export const SIGNER_IFRAME = 'iframe[title="Wallet signer"]';

/** The signer frame the library embedded in the app's page. */
export function signerIn(tab: Tab): Scope {
  return tab.frame(SIGNER_IFRAME);
}

/** Whether the element with this test id is visible in the page or frame (false while there is no such frame). */
export function visibleIn(scope: Scope, testId: string): Promise<boolean> {
  return scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.checkVisibility() ?? false, testId).catch(() => false);
}

/** The element's text content in the page or frame ('' when it is not there). */
export function textIn(scope: Scope, testId: string): Promise<string> {
  return scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.replace(/\s+/g, ' ').trim() ?? '', testId).catch(() => '');
}

/** Waits until the element with this test id is visible in the page or frame. */
export async function shown(scope: Scope, testId: string): Promise<void> {
  await expect.poll(() => visibleIn(scope, testId), { message: `${testId} visible`, timeout: 15_000 }).toBe(true);
}

/** Types `code` in the frame's code entry and submits it (trusted input). */
export async function typeCode(tab: Tab, code: string): Promise<void> {
  await shown(signerIn(tab), 'signer-otp-input');
  await signerIn(tab).fill('signer-otp-input', code);
  await signerIn(tab).click('signer-otp-submit');
}

/** Whether the guarded button `testId` ("Approve", "Reveal", "Copy") can be pressed now (armed: approve-guard.ts) and the pointer resting on it counts. */
function guardState(testId: string): { armed: boolean; rested: boolean } {
  const button = document.querySelector(`[data-testid="${testId}"]`) as HTMLButtonElement | null;
  return { armed: button !== null && !button.disabled, rested: button?.dataset.pointer === 'rested' };
}

/**
 * Approves as a person does, where this engine asks: in the frame, or — where the frame shows "Open
 * the approval window" (no IntersectionObserver v2: Firefox, WebKit; or a kind the host marks
 * high-value) — in the window of the signer origin that a click in the frame opens. Waits until
 * "Approve" can be pressed (armed), moves the pointer onto it, waits until the resting pointer
 * counts, clicks (trusted input). Each wait is on the button's own state. Resolves to where it
 * approved.
 */
export async function approveIn(tab: Tab): Promise<'frame' | 'popup'> {
  const frame = signerIn(tab);
  await expect.poll(async () => (await visibleIn(frame, 'signer-approve')) || (await visibleIn(frame, 'signer-open-popup')), { message: 'a prompt in the frame', timeout: 15_000 }).toBe(true);
  if (!(await visibleIn(frame, 'signer-open-popup'))) {
    await approveOn(frame);
    return 'frame';
  }
  await approveOn(await openApprovalWindow(tab));
  return 'popup';
}

/** The user's click on "Open the approval window" in the frame; resolves to the window once it shows the prompt. */
export async function openApprovalWindow(tab: Tab): Promise<Popup> {
  const popup = await tab.popup(() => signerIn(tab).click('signer-open-popup'));
  await shown(popup, 'signer-approval');
  return popup;
}

/**
 * Scrolls the button into view, as a person does when a prompt is taller than the frame (a payment's
 * words with its retry key): it arms only while wholly visible.
 */
async function scrolledTo(scope: Scope, testId: string): Promise<void> {
  await scope.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.scrollIntoView({ block: 'nearest' }), testId);
}

/** Presses "Approve" in `scope` (the frame or the approval window) as a person does. */
export async function approveOn(scope: Scope): Promise<void> {
  await pressOn(scope, 'signer-approve');
}

/** Presses the guarded button `testId` in `scope` as a person does: waits until armed, hovers, waits until the rest counts, clicks. */
export async function pressOn(scope: Scope, testId: string): Promise<void> {
  await shown(scope, testId);
  await scrolledTo(scope, testId);
  await expect.poll(async () => (await scope.evaluate(guardState, testId).catch(() => undefined))?.armed, { message: `${testId} armed`, timeout: 15_000 }).toBe(true);
  await scope.hover(testId);
  await expect.poll(async () => (await scope.evaluate(guardState, testId).catch(() => undefined))?.rested, { message: `pointer rested on ${testId}`, timeout: 15_000 }).toBe(true);
  await scope.click(testId);
}

/** Whether "Approve" in `scope` can be pressed now (armed). */
export async function approveArmed(scope: Scope): Promise<boolean> {
  return (await scope.evaluate(guardState, 'signer-approve').catch(() => undefined))?.armed === true;
}

/** Waits until "Approve" in `scope` (the frame or the approval window) is shown and can be pressed. */
export async function untilArmed(scope: Scope): Promise<void> {
  await shown(scope, 'signer-approve');
  await scrolledTo(scope, 'signer-approve');
  await expect.poll(async () => (await scope.evaluate(guardState, 'signer-approve').catch(() => undefined))?.armed, { message: 'Approve armed', timeout: 15_000 }).toBe(true);
}
