/**
 * What the frame journeys share: a customer of the test app (the demo's /demo/signup, whose cookie
 * the proxy reads), a wallet in frame mode made in the page, the signer frame's locator, the code
 * entry, and a recorder of what the parent page sees (console, messages on any port, its own
 * network, its DOM) to search for secrets.
 */
import { mnemonicToEntropy, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { BrowserContext, FrameLocator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { accountPrivateInPage, makeFrameWallet, recordInPage, seenInPage, signUpInPage, startLoginInPage, startUpdateInPage } from './in-page.js';
import type { FrameStack } from './stack.js';
import { bytesToHex } from '../../src/crypto/index.js';

export const OTP = '000000';

/** A fresh customer's email. */
export function newEmail(): string {
  return `frame-${Math.random().toString(36).slice(2, 10)}@example.com`;
}

/** Opens the app (same site as the signer unless `base`), signs up a customer; resolves to its wallet account. */
export async function newCustomer(page: Page, stack: FrameStack, base?: string): Promise<string> {
  await page.goto(stack.appPage(base));
  await page.locator('body[data-ready="true"]').waitFor();
  return page.evaluate(signUpInPage, newEmail());
}

/** Embeds the signer page at `url` in the page (as an attacker's script would) and waits for it to load. */
export async function embedSigner(page: Page, url: string): Promise<void> {
  await page.evaluate((url) => {
    const frame = document.createElement('iframe');
    frame.src = url;
    document.body.append(frame);
    return new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  }, url);
}

/** A new customer with a wallet in frame mode, logged in by a code typed in the frame; resolves to its account. */
export async function loggedInCustomer(page: Page, stack: FrameStack): Promise<string> {
  const accountId = await newCustomer(page, stack);
  await frameWallet(page);
  await loginInFrame(page, accountId);
  return accountId;
}

/** Whether the account is private, as the service has it now (the demo backend reads it upstream). */
export async function accountPrivate(page: Page, accountId: string): Promise<boolean | undefined> {
  return page.evaluate(accountPrivateInPage, accountId);
}

/** Makes `window.t.wallet` in frame mode and restores it. */
export async function frameWallet(page: Page): Promise<void> {
  await page.evaluate(makeFrameWallet);
}

export function signer(page: Page): FrameLocator {
  return page.frameLocator('iframe[title="Wallet signer"]');
}

/** Starts the OTP login; the verify waits in `window.t.verifying`. */
export async function startLogin(page: Page, accountId: string): Promise<void> {
  await page.evaluate(startLoginInPage, accountId);
}

/** Types `code` in the frame's code entry and submits it (a trusted click). */
export async function typeCode(page: Page, code: string): Promise<void> {
  const frame = signer(page);
  await frame.getByTestId('signer-otp-input').fill(code);
  await frame.getByTestId('signer-otp-submit').click();
}

/** Logs in by email code typed in the frame; resolves to the session's id. */
export async function loginInFrame(page: Page, accountId: string): Promise<string> {
  await startLogin(page, accountId);
  await typeCode(page, OTP);
  const outcome = await page.evaluate(() => window.t.verifying as Promise<{ ok: boolean; session?: { id: string }; code?: string }>);
  expect(outcome.ok, `login failed: ${outcome.code}`).toBe(true);
  return outcome.session?.id as string;
}

/** Starts `updateAccount(accountId, {privateEnabled})`; its outcome waits in `window.t.update`. */
export async function startUpdate(page: Page, accountId: string, privateEnabled: boolean): Promise<void> {
  await page.evaluate(startUpdateInPage, [accountId, privateEnabled] as const);
}

export async function updateOutcome(page: Page): Promise<{ ok: boolean; account?: { privateEnabled?: boolean }; code?: string }> {
  return page.evaluate(() => window.t.update as Promise<{ ok: boolean; account?: { privateEnabled?: boolean }; code?: string }>);
}

/**
 * Records what the parent page can see: its console, every message delivered to a port or window
 * of the parent (the protocol's answers, state and events included), its own requests and
 * answers. Installed before the page loads (an attacker's script would be there as early).
 */
export async function recordParent(context: BrowserContext, page: Page, appOrigin: string): Promise<{ seen(): Promise<string> }> {
  const console: string[] = [];
  const network: Promise<string>[] = [];
  page.on('console', (m) => console.push(m.text()));
  if (process.env.FRAME_DEBUG) page.on('console', (m) => process.stdout.write(`[${new URL(m.location().url || 'about:blank').host}] ${m.text()}\n`));
  page.on('response', (r) => {
    if (r.frame() !== page.mainFrame()) return;
    network.push(
      (async () => `${r.url()} ${JSON.stringify(r.request().headers())} ${r.request().postData() ?? ''} ${await r.text().catch(() => '')}`)(),
    );
  });
  await context.addInitScript(recordInPage, appOrigin);
  return {
    async seen() {
      return [...console, await page.evaluate(seenInPage), ...(await Promise.all(network))].join('\n');
    },
  };
}

/**
 * Presses a guarded button of the frame ("Approve", the phrase screen's "Reveal" and "Copy") as a
 * person does: waits until it can be pressed (armed once the frame has been fully visible long
 * enough: src/signer/frame/approve-guard.ts), moves the mouse onto it, waits until the resting
 * pointer counts, clicks. Each wait is on the button's own state.
 */
export async function pressInFrame(frame: Pick<FrameLocator, 'getByTestId'>, testId: string): Promise<void> {
  const button = frame.getByTestId(testId);
  await expect(button).toBeEnabled();
  // The rest counts from a pointer event over the button; a change of the frame's place or
  // visibility after it (a resize as the prompt lays out, a visibility report late on a busy
  // machine) starts it over, and only a new pointer event restarts it: as a person would, the
  // pointer moves a pixel and rests again, then clicks where it rested.
  let position = { x: 8, y: 8 };
  await expect(async () => {
    position = { x: position.x === 8 ? 9 : 8, y: 8 };
    await button.hover({ position });
    await expect(button).toHaveAttribute('data-pointer', 'rested', { timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  await button.click({ position });
}

/** Approves in the frame as a person does ({@link pressInFrame} on "Approve"). */
export async function approveInFrame(frame: Pick<FrameLocator, 'getByTestId'>): Promise<void> {
  await pressInFrame(frame, 'signer-approve');
}

/**
 * Fails if `text` holds anything of the recovery phrase `words`: the phrase, any three of its words
 * in a row (whatever separates them: spaces, commas, quotes, markup), or its entropy in hex.
 */
export function expectNoPhrase(text: string, words: readonly string[], where: string): void {
  expect(words.length, 'the phrase was read in the frame').toBeGreaterThanOrEqual(12);
  expect(validateMnemonic(words.join(' '), wordlist), 'the frame showed a valid BIP-39 phrase').toBe(true);
  const lower = text.toLowerCase();
  expect(lower.includes(words.join(' ')), `${where}: the phrase`).toBe(false);
  for (let i = 0; i + 3 <= words.length; i++) {
    const run = new RegExp(words.slice(i, i + 3).join('[^a-z]{1,40}'));
    expect(run.test(lower), `${where}: words ${i + 1}-${i + 3} of the phrase in a row`).toBe(false);
  }
  expect(lower.includes(bytesToHex(mnemonicToEntropy(words.join(' '), wordlist))), `${where}: the phrase's entropy`).toBe(false);
}
