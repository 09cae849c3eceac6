/**
 * The kinds 06-prompts.spec.ts leaves out, in every engine (Chromium with partitioning on, Firefox
 * ESR, WebKitGTK), read by role and text as a person meets them:
 *
 * - Adding email codes again: the service keeps one EMAIL_OTP per account, so a second one while the
 *   first exists is refused by the service before any prompt (nothing signed). The customer then
 *   adds SMS codes, signs in with them, removes its email codes and adds them back: the email
 *   codes' prompt ("Codes sent by email"), its picture, approved, in effect.
 * - Adding a passkey: the frame's screen before the WebAuthn ceremony (what it adds, to which wallet,
 *   under which name) is read, checked with axe and pictured in every engine, then cancelled:
 *   SIGNER_DECLINED, nothing signed. The ceremony and the approval after it need an authenticator:
 *   they run in e2e/frame/portable/13-passkey.spec.ts (Chromium and Firefox ESR) and in the demo's passkey journeys
 *   e2e/portable/04, 12, 22 (Chromium, and Firefox ESR on Marionette's virtual authenticator).
 *   WebKitGTK has no WebAuthn at all.
 */
import type { Tab } from '../../drivers/driver.js';
import { useFrameStack } from '../stack.js';
import { keptPicture } from './prompt-checks.js';
import { callInPage, callSettled, promptInPage, standInsInPage } from './prompt-in-page.js';
import { expectWords, journey, noSeriousViolations, promptShown, signedUpAndLoggedIn, walletCall, type Outcome } from './prompt-journey.js';
import { expect, OTP, outcome, shown, signerIn, test, typeCode } from './steps.js';

const frameStack = useFrameStack();
test.setTimeout(300_000);

/** Fixed per stack: the pictures stay the same from run to run. */
const EMAIL = 'grace@example.com';
const WALLET = ['Wallet', 'id'] as const;

/** Starts a login with the account's SMS codes; the verify's outcome waits in `window.t.verifying`. */
async function startSmsLoginInPage(accountId: string): Promise<void> {
  const wallet = window.t.wallet as { startOtpLogin(a: { accountId: string; type: string }): Promise<{ verify(): Promise<unknown> }> };
  const login = await wallet.startOtpLogin({ accountId, type: 'SMS_OTP' });
  window.t.verifying = login.verify().then(
    (session) => ({ ok: true as const, session }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code }),
  );
}

const signedAdds = () => frameStack().signed().filter((s) => s === 'POST /api/auth/credentials').length;

test('email codes added again, and a passkey\'s words before its ceremony', async ({ openDevice, engine }) => {
  const started = Date.now();
  const tab = await (await openDevice()).newTab();
  const accountId = await signedUpAndLoggedIn(tab, frameStack(), EMAIL);
  const credentials = async () => (await walletCall<{ id: string; type: string }[]>(tab, 'listCredentials', accountId)).map((c) => ({ id: c.id, type: c.type }));
  const emailCodes = (await credentials()).find((c) => c.type === 'EMAIL_OTP');
  expect(emailCodes).toBeDefined();

  await test.step('a second EMAIL_OTP while the first exists: refused by the service, no prompt, nothing signed', async () => {
    const before = signedAdds();
    await tab.evaluate(callInPage, ['addEmailOtp', [{ accountId }]] as const);
    const refused = await tab.evaluate(() => window.t.call as Promise<Outcome>);
    expect(refused).toMatchObject({ ok: false, code: 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS' });
    expect(await promptShown(signerIn(tab))).toBe(false);
    expect(signedAdds()).toBe(before);
  });

  await test.step('SMS codes added, and a login with them', async () => {
    await journey(tab, engine, { name: 'add-credential-sms', call: ['addSmsOtp', [{ accountId }]], heading: 'Add a sign-in method', lines: [['Type', 'Codes sent by text message'], ['Wallet', accountId]], standIns: [WALLET] });
    await tab.evaluate(startSmsLoginInPage, accountId);
    await typeCode(tab, OTP);
    expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
  });

  await test.step('the email codes removed (signed with the SMS session)', async () => {
    const id = emailCodes?.id as string;
    // Its own picture: 06-prompts' removal is of an SMS credential (its type and phone in the words).
    await journey(tab, engine, { name: 'remove-credential-email', call: ['deleteCredential', [id, accountId]], heading: 'Remove a sign-in method', lines: [['Type', 'Codes sent by email'], ['Sign-in method', id], ['Note', 'Its sessions end with it.']], standIns: [['Email', 'id'], ['Sign-in method', 'id'], WALLET] });
    expect((await credentials()).map((c) => c.type)).not.toContain('EMAIL_OTP');
  });

  await test.step('email codes added back: "Codes sent by email", approved, in effect', async () => {
    const added = await journey(tab, engine, { name: 'add-credential-email', call: ['addEmailOtp', [{ accountId }]], heading: 'Add a sign-in method', lines: [['Type', 'Codes sent by email'], ['Wallet', accountId]], standIns: [WALLET] });
    const credentialId = (added.value as { credentialId: string }).credentialId;
    expect(await credentials()).toContainEqual({ id: credentialId, type: 'EMAIL_OTP' });
  });

  await test.step('a passkey: its words before the ceremony, axe, its picture; cancelled: declined, nothing signed', async () => {
    const before = signedAdds();
    const frame = signerIn(tab);
    await tab.evaluate(callInPage, ['registerPasskey', [{ accountId, nickname: 'Laptop' }]] as const);
    await shown(frame, 'signer-passkey');
    expectWords(await frame.evaluate(promptInPage), { name: 'add-passkey', call: ['registerPasskey', []], heading: 'Add a passkey as a sign-in method', lines: [['Wallet', accountId], ['Name', 'Laptop']] }, 'the frame');
    expect((await frame.evaluate(promptInPage))?.buttons).toEqual(['Cancel', 'Continue']);
    await noSeriousViolations(frame, 'the frame (add-passkey)');
    await frame.evaluate(standInsInPage, [['Wallet', 'id']]);
    keptPicture(await frame.screenshot('signer-passkey'), 'add-passkey.png');
    await frame.click('signer-passkey-cancel');
    await expect.poll(() => tab.evaluate(callSettled), { message: 'the registration answered' }).toBe(true);
    expect(await tab.evaluate(() => window.t.call as Promise<Outcome>)).toMatchObject({ ok: false, code: 'SIGNER_DECLINED' });
    expect(signedAdds()).toBe(before);
    expect((await credentials()).map((c) => c.type)).not.toContain('PASSKEY');
  });
  process.stdout.write(`[07-more-prompts] ${engine}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
