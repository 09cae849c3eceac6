/**
 * Steps of the demo's screens that the journeys of e2e/portable/ share beyond fixtures.ts: the
 * Credentials list, logging out.
 */
import type { Tab } from '../drivers/driver.js';
import { expect, isVisible } from './fixtures.js';

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
