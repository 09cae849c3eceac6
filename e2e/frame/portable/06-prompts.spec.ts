/**
 * Every kind of signed action the frame describes (src/signer/words/kinds.ts), in every engine
 * (issue 33): Chromium (partitioning on), Firefox ESR and WebKitGTK through the portable driver,
 * against the local sandbox stack. For each: the app's page calls the action through the frame
 * wallet; the test reads the prompt as a person does — the dialog by its role and name, its
 * heading, its labelled lines (what, how much, to whom) — checks it with axe-core (0 serious or
 * critical violations, in the frame and in the approval window), compares its picture with the kept
 * one (docs/prompts/<engine>/; prompt-checks.ts says how to take them again), approves as a person
 * (in the frame in Chromium, in the approval window of the signer origin in Firefox and WebKit:
 * approval-route.ts) and checks that the action took effect at the service.
 *
 * Revoking a card's key is described too, but the sandbox revokes it on the platform's credentials
 * alone (no signature asked, so no prompt): the journey checks it is revoked and nothing signed.
 * Not here: adding a passkey (its words before the WebAuthn ceremony in every engine, and adding
 * email codes again: 07-more-prompts.spec.ts; the ceremony and its approval, on virtual
 * authenticators in Chromium and Firefox ESR: 13-passkey.spec.ts), "unknown action" (refused, or shown where the host's
 * configuration allows it: 10-unknown-action.spec.ts), the high-value quote limit (08-quote-limit)
 * and the prompt's expiry (09-expiry).
 */
import { randomUUID } from 'node:crypto';
import type { Tab } from '../../drivers/driver.js';
import { accountPrivateInPage, makeFrameWallet, startLoginInPage } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { appRequestInPage } from './prompt-in-page.js';
import { idOf, journey, promptShown, signedUpAndLoggedIn, walletCall } from './prompt-journey.js';
import { expect, openApp, OTP, outcome, signerIn, test, typeCode, visibleIn } from './steps.js';

const frameStack = useFrameStack();
// Eleven prompts, a login on each of two devices, on a machine shared by many: each step waits for
// its event; the whole takes 1–3 minutes.
test.setTimeout(300_000);

/** One stack per engine: fixed emails keep the pictures the same from run to run. */
const EMAIL = 'ada@example.com';
const NEW_EMAIL = 'ada.lovelace@example.com';

/** A device of the same customer, logged in by a code typed in its frame; resolves to its session's id. */
async function secondDevice(tab: Tab, accountId: string): Promise<string> {
  await openApp(tab, frameStack());
  await tab.evaluate(appRequestInPage, ['POST', '/demo/signin', { email: EMAIL }] as const);
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  const verified = await outcome<{ ok: boolean; session?: { id: string } }>(tab, 'verifying');
  expect(verified).toMatchObject({ ok: true });
  return verified.session?.id as string;
}

const WALLET = ['Wallet', 'id'] as const;

test('every kind of prompt: its words, axe, its picture, approved, in effect', async ({ openDevice, engine }) => {
  const started = Date.now();
  const tab = await (await openDevice()).newTab();
  const accountId = await signedUpAndLoggedIn(tab, frameStack(), EMAIL);
  const me = (await tab.evaluate(appRequestInPage, ['GET', '/demo/me'] as const)) as { customer: { id: string }; payees: { accountId: string }[] };
  const customerId = me.customer.id;
  const credentials = async () => (await walletCall<{ id: string; type: string }[]>(tab, 'listCredentials', accountId)).map((c) => `${c.type} ${c.id}`);

  await test.step('update the account', async () => {
    await journey(tab, engine, { name: 'update-account', call: ['updateAccount', [accountId, { privateEnabled: true }]], heading: 'Change your wallet settings', lines: [['Private mode', /→ On$/], ['Wallet', accountId]], standIns: [WALLET] }, true);
    expect(await tab.evaluate(accountPrivateInPage, accountId)).toBe(true);
  });

  let sms = '';
  await test.step('add SMS codes', async () => {
    const added = await journey(tab, engine, { name: 'add-credential-sms', call: ['addSmsOtp', [{ accountId }]], heading: 'Add a sign-in method', lines: [['Type', 'Codes sent by text message'], ['Wallet', accountId]], standIns: [WALLET] });
    sms = (added.value as { credentialId: string }).credentialId;
    expect(await credentials()).toContain(`SMS_OTP ${sms}`);
  });

  await test.step('add a Google or Apple sign-in', async () => {
    // The sandbox's stand-in IdP, as an IdP would answer once the user signed in there.
    const res = await fetch(`${frameStack().sandboxUrl}/sandbox/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'ada.oauth@example.com', nonce: 'registration' }) });
    expect(res.status).toBe(200);
    const { oidcToken } = (await res.json()) as { oidcToken: string };
    // The provider's host is the token's issuer (the sandbox's IdP: https://accounts.google.com), the
    // same on every run: in the picture as it is (a stand-in once wrote it as zeros).
    const added = await journey(tab, engine, { name: 'add-credential-oauth', call: ['addOAuthCredential', [{ accountId, oidcToken }]], heading: 'Add a sign-in method', lines: [['Type', 'Sign-in with an identity provider'], ['Identity provider', 'accounts.google.com'], ['Email', 'ada.oauth@example.com'], ['Wallet', accountId]], standIns: [WALLET] });
    expect(await credentials()).toContain(`OAUTH ${idOf(added.value)}`);
  });

  await test.step('remove a sign-in method', async () => {
    await journey(tab, engine, { name: 'remove-credential', call: ['deleteCredential', [sms, accountId]], heading: 'Remove a sign-in method', lines: [['Type', 'Codes sent by text message'], ['Phone', '•••• ••23'], ['Sign-in method', sms], ['Note', 'Its sessions end with it.']], standIns: [['Sign-in method', 'id'], WALLET] });
    expect(await credentials()).not.toContain(`SMS_OTP ${sms}`);
  });

  await test.step('reveal the recovery phrase', async () => {
    const done = await journey(tab, engine, {
      name: 'export',
      call: ['exportWallet', [accountId]],
      heading: 'Reveal your recovery phrase',
      lines: [['Reveals', /anyone who sees it can take the funds/], ['Wallet', accountId], ['Encrypted to', /…/], ['Note', /cannot be undone/]],
      standIns: [WALLET, ['Encrypted to', 'id']],
      afterApproval: async (t) => {
        await expect.poll(() => visibleIn(signerIn(t), 'signer-phrase')).toBe(true);
        await signerIn(t).click('signer-phrase-close');
      },
    });
    expect(done.value).toEqual({ shown: true });
  });

  let keyId = '';
  await test.step('let a card spend from the wallet', async () => {
    const card = (await tab.evaluate(appRequestInPage, ['POST', '/api/cards', { cardholderId: customerId, fundingSource: accountId }, randomUUID()] as const)) as { id: string };
    const made = await journey(tab, engine, {
      name: 'create-delegated-key',
      call: ['createDelegatedKey', [{ cardId: card.id, internalAccountId: accountId, nickname: 'Coffee card' }]],
      heading: 'Let a card spend from your wallet',
      lines: [['Card', card.id], ['Name', 'Coffee card'], ['Limits', /./], ['Valid', 'Until you revoke it'], ['Wallet', accountId]],
      standIns: [['Card', 'id'], WALLET],
    });
    keyId = idOf(made.value);
    expect((await walletCall<{ id: string }[]>(tab, 'listDelegatedKeys', { accountId })).map((k) => k.id)).toContain(keyId);
  });

  await test.step('stop the card spending: the sandbox asks no signature, so no prompt', async () => {
    // The service revokes on the platform's credentials alone (src/sandbox/routes/delegated-keys.ts:
    // spec §5.3 lists creation among signed actions, not revocation); the action signs only if asked.
    const revoked = await walletCall(tab, 'revokeDelegatedKey', keyId, accountId);
    expect(revoked).toMatchObject({ id: keyId, status: 'REVOKED' });
    expect(await promptShown(signerIn(tab))).toBe(false);
    expect(frameStack().signed().filter((s) => s.startsWith('DELETE /api/auth/delegated-keys/'))).toEqual([]);
  });

  await test.step('send a payment', async () => {
    const destination = me.payees[0]?.accountId as string;
    await frameStack().fund(accountId, 20_000_000);
    const quote = await walletCall<{ id: string }>(tab, 'createQuote', { sourceAccountId: accountId, destinationAccountId: destination, amount: 12_500_000, description: 'Prompts spec' });
    const executed = await journey(tab, engine, {
      name: 'execute-quote',
      call: ['executeQuote', [quote.id, { idempotencyKey: randomUUID() }]],
      heading: 'Send a payment',
      lines: [['You send', /\d/], ['From', accountId], ['They receive', /\d/], ['To', destination], ['Offer ends', /\d/], ['Quote', quote.id], ['Retry key', /./]],
      standIns: [['From', 'id'], ['To', 'id'], ['Offer ends', 'time'], ['Quote', 'id'], ['Retry key', 'id']],
    });
    expect(executed.value).toMatchObject({ id: quote.id });
    expect((executed.value as { status: string }).status).not.toBe('PENDING');
  });

  await test.step('sign out the other devices', async () => {
    const theirs = await secondDevice(await (await openDevice()).newTab(), accountId);
    const ended = await journey(tab, engine, {
      name: 'end-sessions',
      call: ['signOutOtherDevices', [accountId]],
      heading: 'Sign out devices',
      lines: [['Sessions', 'All other devices (1)'], ['Device', '1 of 1'], ['Signed in with', /^Codes sent by email/], ['Session', theirs]],
      standIns: [['Signed in on', 'time'], ['Session', 'id']],
    });
    expect(ended.value).toBe(1);
    expect((await walletCall<{ id: string }[]>(tab, 'listSessions', accountId)).map((s) => s.id)).not.toContain(theirs);
  });

  await test.step('change the contact email', async () => {
    const changed = await journey(tab, engine, { name: 'change-contact', call: ['changeContact', [customerId, { email: NEW_EMAIL }, { accountId }]], heading: 'Change your contact details', lines: [['Email', `${EMAIL} → ${NEW_EMAIL}`], ['Customer', customerId]], standIns: [['Customer', 'id'], WALLET] });
    expect(changed.value).toMatchObject({ email: NEW_EMAIL });
  });
  test.info().annotations.push({ type: 'timing', description: `${engine}: ${((Date.now() - started) / 1000).toFixed(1)} s for the prompts` });
  process.stdout.write(`[06-prompts] ${engine}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
