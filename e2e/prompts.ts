/**
 * The prompt a signature waits at, in both modes (issue 32): in-origin, the demo's own dialog (its
 * `onBeforeSign`: `sign-purpose`, `sign-approve`), shown once "Auto-approve signing" is off; in frame
 * mode, the signer frame's approval screen (THREAT-MODEL P1: every signature of a user's action is
 * approved there by a trusted click, and nothing of the app's can switch it off), which names what it
 * signs in words (src/signer/words/strings.ts).
 */
import type { Locator, Page } from '@playwright/test';
import { approve, byTest, expect, modeOf, signerFrame } from './fixtures.js';

/** The prompts the journeys wait at: the purpose the demo's dialog shows, the title the frame's shows. */
const FRAME_TITLES = {
  'update-internal-account': 'Change your wallet settings',
  'delete-session': /^Sign out (a device|devices)$/,
} as const;

export type PromptPurpose = keyof typeof FRAME_TITLES;

/** Turns the app's automatic approval off (in-origin; frame mode has none: every signature is asked). */
export async function askEverySignature(page: Page): Promise<void> {
  if (modeOf(page) !== 'frame') await byTest(page, 'auto-approve').uncheck();
}

/** Resolves once the prompt for `purpose` shows (the demo's dialog, or the signer frame's approval). */
export async function expectPrompt(page: Page, purpose: PromptPurpose): Promise<void> {
  if (modeOf(page) !== 'frame') {
    await expect(byTest(page, 'sign-purpose')).toHaveText(purpose);
    return;
  }
  await expect(signerFrame(page).getByTestId('signer-approval').getByRole('heading', { level: 1 })).toHaveText(FRAME_TITLES[purpose]);
}

/** The user approves the prompt that shows (the dialog's button; the frame's, pressed as a person does). */
export async function approvePrompt(page: Page): Promise<void> {
  if (modeOf(page) !== 'frame') await byTest(page, 'sign-approve').click();
  else await approve(page);
}

/** Whether a prompt shows now (no wait). */
export async function promptShows(page: Page): Promise<boolean> {
  return modeOf(page) !== 'frame' ? byTest(page, 'sign-approve').isVisible() : signerFrame(page).getByTestId('signer-approve').isVisible();
}

/**
 * After an action's click, until `state` no longer reads `was`: in frame mode, approves each prompt
 * the action shows on the way (a call that starts over signs a new payload, asked again); in-origin
 * the demo approves them itself ("Auto-approve signing").
 */
export async function approveUntil(page: Page, state: Locator, was: string): Promise<void> {
  if (modeOf(page) === 'frame') {
    const approveButton = signerFrame(page).getByTestId('signer-approve');
    const next = async (): Promise<'done' | 'prompt' | null> => ((await state.textContent()) !== was ? 'done' : (await approveButton.isVisible()) ? 'prompt' : null);
    for (let answer = await waitFor(next); answer === 'prompt'; answer = await waitFor(next)) {
      // This prompt's button goes (hidden or replaced) before the next prompt is looked for.
      const pressed = await approveButton.elementHandle();
      await approve(page);
      await pressed?.waitForElementState('hidden');
    }
  }
  await expect(state).not.toHaveText(was);
}

async function waitFor(next: () => Promise<'done' | 'prompt' | null>): Promise<'done' | 'prompt'> {
  let seen: 'done' | 'prompt' | null = null;
  await expect.poll(async () => (seen = await next())).not.toBeNull();
  return seen!;
}
