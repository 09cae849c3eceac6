/**
 * One kind's journey as the prompts specs (06-prompts, 07-more-prompts) run it in every engine: the
 * app's page calls the action through the frame wallet; the prompt is read as a person reads it
 * (the dialog by its role and name, its heading, its labelled lines), checked with axe-core,
 * pictured and compared with the kept picture, approved as a person (in the frame in Chromium, in
 * the approval window elsewhere), and the call's outcome returned.
 */
import type { Scope, Tab } from '../../drivers/driver.js';
import { differsFromKept, keptPicture, seriousViolations } from './prompt-checks.js';
import { breakLayoutInPage, callInPage, callSettled, mendLayoutInPage, promptInPage, standInsHeldInPage, standInsInPage, type PromptSeen } from './prompt-in-page.js';
import type { FrameStack } from '../stack.js';
import { makeFrameWallet, signUpInPage, startLoginInPage } from '../in-page.js';
import { approveArmed, approveIn, approveOn, expect, openApp, openApprovalWindow, OTP, outcome, signerIn, test, typeCode, untilArmed, visibleIn } from './steps.js';

export type Expected = readonly (readonly [label: string, value: string | RegExp])[];
export type Outcome = { ok: boolean; value?: unknown; code?: string; message?: string };

/** A new customer of `email` signed up in the app and logged in by the code typed in the frame; resolves to its wallet's account id. */
export async function signedUpAndLoggedIn(tab: Tab, stack: FrameStack, email: string): Promise<string> {
  await openApp(tab, stack);
  const accountId = await tab.evaluate(signUpInPage, email);
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  return accountId;
}

export interface Journey {
  /** The picture's name (docs/prompts/<engine>/<name>.png). */
  readonly name: string;
  readonly call: readonly [method: string, args: unknown[]];
  readonly heading: string;
  /** Labelled lines the prompt must show, in this order (among others). */
  readonly lines: Expected;
  /** Values that change from run to run, given stand-ins in the picture (prompt-in-page.ts). */
  readonly standIns?: readonly (readonly [string, 'id' | 'time'])[];
  /** Once approved, before the call answers (export: the phrase screen's "Done"). */
  readonly afterApproval?: (tab: Tab) => Promise<void>;
}

export function expectWords(seen: PromptSeen | null, journey: Journey, where: string): void {
  expect(seen, `${journey.name}: a dialog in ${where}`).not.toBeNull();
  const prompt = seen as PromptSeen;
  expect(prompt.dialog, `${journey.name}: the dialog's name in ${where}`).toBe(journey.heading);
  expect(prompt.heading).toBe(journey.heading);
  let from = 0;
  for (const [label, value] of journey.lines) {
    const at = prompt.lines.findIndex(([l, v], i) => i >= from && l === label && (typeof value === 'string' ? v === value : value.test(v)));
    expect(at, `${journey.name} in ${where}: "${label}: ${String(value)}" after line ${from}, in ${JSON.stringify(prompt.lines)}`).toBeGreaterThanOrEqual(from);
    from = at + 1;
  }
}

export async function noSeriousViolations(scope: Scope, what: string): Promise<void> {
  expect(await seriousViolations(scope), `axe in ${what}`).toEqual([]);
}

/** Whether a prompt is on the frame's screen (its Approve, or its "Open the approval window"). */
export const promptShown = async (frame: Scope) => (await visibleIn(frame, 'signer-approve')) || (await visibleIn(frame, 'signer-open-popup'));

/**
 * The journey of one kind: called by the app, read, checked, pictured, approved; resolves to the
 * call's outcome. `breakLayout`: the picture of a layout broken on purpose must fail the comparison.
 */
export async function journey(tab: Tab, engine: string, j: Journey, breakLayout = false): Promise<Outcome> {
  const frame = signerIn(tab);
  await tab.evaluate(callInPage, [j.call[0], j.call[1]] as const);
  await expect.poll(async () => (await promptShown(frame)) || (await tab.evaluate(callSettled)), { message: `${j.name}: a prompt in the frame`, timeout: 20_000 }).toBe(true);
  if (!(await promptShown(frame))) expect(await tab.evaluate(() => window.t.call), `${j.name}: answered without a prompt`).toBe('a prompt');
  expectWords(await frame.evaluate(promptInPage), j, 'the frame');
  await noSeriousViolations(frame, `the frame (${j.name})`);
  let where: Scope = frame;
  if (await visibleIn(frame, 'signer-open-popup')) {
    where = await openApprovalWindow(tab);
    expectWords(await where.evaluate(promptInPage), j, 'the approval window');
    await noSeriousViolations(where, `the approval window (${j.name})`);
  }
  expect(where === frame, `${j.name}: approved in the frame in Chromium only`).toBe(engine === 'chromium');
  await untilArmed(where);
  // From the top, whatever arming scrolled (a prompt taller than the frame): the same picture each
  // run. Taken again should the prompt be rendered anew between its stand-ins and the picture (a
  // WebKit run of 2026-11-28 kept a wallet id as it was). Armed in the picture: stand-ins that change
  // the words' height make the frame ask for a new height, and the resize disarms "Approve" for a
  // moment (approve-button.ts), so the picture waits until it is armed again.
  let picture: Buffer | undefined;
  await expect(async () => {
    await where.evaluate(standInsInPage, j.standIns ?? []);
    await where.evaluate(() => window.scrollTo(0, 0));
    await expect.poll(() => approveArmed(where), { message: `${j.name}: Approve armed again after the stand-ins`, timeout: 5_000 }).toBe(true);
    picture = await where.screenshot('signer-approval');
    expect(await where.evaluate(standInsHeldInPage, j.standIns ?? []), `${j.name}: the stand-ins held through the picture`).toBe(true);
    expect(await approveArmed(where), `${j.name}: Approve armed through the picture`).toBe(true);
  }).toPass({ timeout: 20_000 });
  keptPicture(picture!, `${j.name}.png`);
  if (breakLayout) {
    expect(await where.evaluate(breakLayoutInPage)).toBe('12px');
    differsFromKept(await where.screenshot('signer-approval'), `${j.name}.png`);
    await where.evaluate(mendLayoutInPage);
  }
  await approveOn(where);
  await j.afterApproval?.(tab);
  // Actions of more than one signature ask once per signature (a delegated key: two).
  for (;;) {
    await expect.poll(async () => (await tab.evaluate(callSettled)) || (await promptShown(frame)), { message: `${j.name}: answered or asking again`, timeout: 20_000 }).toBe(true);
    if (await tab.evaluate(callSettled)) break;
    await approveIn(tab);
  }
  const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(result, `${j.name}: ${JSON.stringify(result)}`).toMatchObject({ ok: true });
  return result;
}

export const idOf = (value: unknown) => (value as { id: string }).id;

/** The app's own call to the wallet (no prompt): its answer. */
export async function walletCall<T>(tab: Tab, method: string, ...args: unknown[]): Promise<T> {
  await tab.evaluate(callInPage, [method, args] as const);
  const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(result, `${method}: ${JSON.stringify(result)}`).toMatchObject({ ok: true });
  return result.value as T;
}
