/**
 * Steps of the demo's screens that the journeys of e2e/portable/ share beyond fixtures.ts: the
 * Credentials list, adding the SMS-code credential, logging out.
 */
import type { Tab } from '../drivers/driver.js';
import { typeCode } from '../frame/portable/signer-steps.js';
import { approvePrompt, expect, isVisible, OTP, textOf, visible } from './fixtures.js';
import { inFrameMode } from './modes.js';

export type CredentialType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';

/** The nicknames the Credentials screen lists for credentials of `type`. */
export function credentialNicknames(tab: Tab, type: CredentialType): Promise<string[]> {
  return tab.evaluate(
    (t) => [...document.querySelectorAll(`[data-testid="cred-row"][data-type="${t}"]`)].map((row) => row.querySelector('[data-testid="cred-nickname"]')?.textContent?.trim() ?? ''),
    type,
  );
}

/** From any wallet screen: logs out on the home screen; lands on the login screen. */
export async function logout(tab: Tab): Promise<void> {
  await tab.click('nav-home');
  await tab.click('logout');
  // The session's DELETE first (in frame mode, sent by the frame): 15 s were not enough in WebKit frame mode at load 37.
  await expect.poll(() => isVisible(tab, 'screen-login'), { message: 'screen-login visible', timeout: 45_000 }).toBe(true);
}

/**
 * Adds the SMS-code credential on the Credentials screen (a signed retry by the current session).
 * In frame mode the addition is approved in the signer frame (or its approval window) and the code
 * that activates it is typed there (THREAT-MODEL P3); in-origin the code is typed in the app.
 */
export async function addSmsCredential(tab: Tab): Promise<void> {
  await tab.click('nav-credentials');
  await tab.click('add-sms');
  if (inFrameMode(tab)) {
    await approvePrompt(tab);
    await visible(tab, 'add-sms-in-frame');
    await typeCode(tab, OTP);
    await expect.poll(() => textOf(tab, 'cred-status')).toContain('SMS login added and verified');
  } else {
    await tab.fill('add-sms-code', OTP);
    await tab.click('add-sms-verify');
  }
}
