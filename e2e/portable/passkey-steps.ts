/**
 * The passkey journeys' steps (4, 12, 22) in every engine that has an authenticator to drive:
 * Chromium (CDP) and Firefox ESR (Marionette), a virtual one each ({@link Tab.addVirtualPasskey}).
 * In frame mode the ceremony runs in the signer frame (THREAT-MODEL P3) on the user's click on its
 * "Continue" (src/signer/frame/passkeys.ts); the signature that follows a registration is approved
 * where the mode asks.
 */
import type { Tab, VirtualPasskey } from '../drivers/driver.js';
import { e2eSandbox } from '../fixtures.js';
import { signerIn, textIn, visibleIn } from '../frame/portable/signer-steps.js';
import { approveUntil, attributeOf, expect, textOf, visible } from './fixtures.js';
import { credentialNicknames, type CredentialType } from './journey-steps.js';
import { inFrameMode } from './modes.js';

/** Why WebKit runs no passkey journey (seen in MiniBrowser, WebKit 605.1.15, on the demo at http://localhost, 2026-11-29). */
export const NO_WEBAUTHN_IN_WEBKITGTK = 'WebKitGTK has no WebAuthn: navigator.credentials and PublicKeyCredential are undefined in its pages, so there is no ceremony to drive';

/** A virtual authenticator for the tab's ceremonies (removed by the device when the test ends, in Firefox: it is the browser's). */
export function virtualPasskey(tab: Tab): Promise<VirtualPasskey> {
  if (tab.addVirtualPasskey === undefined) throw new Error(`this engine's driver adds no virtual authenticator (${NO_WEBAUTHN_IN_WEBKITGTK})`);
  return tab.addVirtualPasskey();
}

/**
 * Frame mode, once the frame shows its passkey screen saying `words`: the user's "Continue" in the
 * frame, where the ceremony runs. Chromium and Firefox both let the signer frame run it (the app's
 * iframe delegates `publickey-credentials-get/create`), so the frame's offer of a window of the signer
 * origin (signer-passkey-window: the browser refused it in the frame) fails the step.
 */
async function continueInFrame(tab: Tab, words: RegExp): Promise<void> {
  const frame = signerIn(tab);
  await expect.poll(() => textIn(frame, 'signer-passkey')).toMatch(words);
  await frame.click('signer-passkey-continue');
  let offered = false;
  await expect.poll(async () => (offered = await visibleIn(frame, 'signer-passkey-window')) || !(await visibleIn(frame, 'signer-passkey')), { message: 'the ceremony ran, or the frame offers its window' }).toBe(true);
  expect(offered, 'the frame offered a window for the ceremony: the browser refused it in the frame').toBe(false);
}

/** On the Credentials screen: asks for a passkey named `nickname` and lets its ceremony run (not approved yet). */
export async function startPasskeyAdd(tab: Tab, nickname: string): Promise<void> {
  await tab.fill('passkey-nickname', nickname);
  await tab.click('add-passkey');
  if (inFrameMode(tab)) await continueInFrame(tab, /Add a passkey/);
}

/** Registers a passkey named `nickname` (Credentials screen; approved where the mode asks); waits until the list shows it. */
export async function registerPasskey(tab: Tab, nickname: string): Promise<void> {
  await tab.click('nav-credentials');
  await visible(tab, 'cred-row');
  await startPasskeyAdd(tab, nickname);
  await approveUntil(tab, async () => (await credentialNicknames(tab, 'PASSKEY')).includes(nickname));
}

/**
 * From the login screen: a passkey login (the challenge is prepared when the tab opens); lands on the
 * wallet home, logged in by passkey. `legacy` (in-origin only: the demo offers it there) ticks the
 * demo's "deprecated sealed-key flow" first, which prepares the legacy entry's own challenge (the
 * click waits for it: the demo's prepared login is the ticked flow's).
 */
export async function loginWithPasskey(tab: Tab, options: { legacy?: boolean } = {}): Promise<void> {
  await tab.click('login-tab-passkey');
  if (options.legacy === true) await tab.click('login-legacy');
  await expect.poll(() => textOf(tab, 'passkey-state')).toMatch(/^Ready/);
  await tab.click('login-passkey');
  if (inFrameMode(tab)) await continueInFrame(tab, /Sign in with your passkey/);
  await visible(tab, 'screen-home');
  await expect.poll(() => textOf(tab, 'session-credential')).toBe('Passkey');
  await expect.poll(() => attributeOf(tab, 'session-id', 'title')).toMatch(/^Session:/);
}

/** The login screen while a session exists (a login there adds a second session, with another credential). */
export async function openLogin(tab: Tab): Promise<void> {
  await tab.evaluate(() => (location.hash = '#/login'));
  await visible(tab, 'screen-login');
}

/**
 * Clicks the button `testId` of the Credentials screen's row of `type` (each row has its own: the
 * driver finds elements by test id, so the row's button gets a test id of its own first).
 */
export async function clickInRow(tab: Tab, type: CredentialType, testId: string): Promise<void> {
  const own = `e2e-${testId}-${type}`;
  await expect
    .poll(() =>
      tab.evaluate(
        ([t, id, mine]) => {
          const button = document.querySelector(`[data-testid="cred-row"][data-type="${t}"] [data-testid="${id}"]`);
          button?.setAttribute('data-testid', mine!);
          return button !== null || document.querySelector(`[data-testid="${mine}"]`) !== null;
        },
        [type, testId, own],
      ),
    )
    .toBe(true);
  await tab.click(own);
}

/** Whether the row of `type` is marked as the current session's credential. */
export function isCurrentCredential(tab: Tab, type: CredentialType): Promise<boolean> {
  return tab.evaluate((t) => document.querySelector(`[data-testid="cred-row"][data-type="${t}"] [data-testid="cred-current"]`)?.checkVisibility() ?? false, type);
}

/** What the service holds for the account, read with the platform's credentials straight from the sandbox. */
async function serviceList<T>(path: 'credentials' | 'sessions', accountId: string): Promise<T[]> {
  const { url, clientId, clientSecret } = e2eSandbox();
  const auth = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
  const res = await fetch(`${url}/auth/${path}?accountId=${encodeURIComponent(accountId)}`, { headers: { Authorization: `Basic ${auth}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: T[] }).data;
}

/** The account's credentials at the service: type, id and (passkeys) the authenticator's credential id. */
export function serviceCredentials(accountId: string): Promise<Array<{ id: string; type: string; nickname?: string; credentialId?: string }>> {
  return serviceList('credentials', accountId);
}

/** The account's active sessions at the service: id, type and the credential it was made with. */
export function serviceSessionList(accountId: string): Promise<Array<{ id: string; type?: string; authMethodId?: string }>> {
  return serviceList('sessions', accountId);
}
