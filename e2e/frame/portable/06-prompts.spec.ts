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
 * Not here: adding a passkey (a WebAuthn ceremony: Chromium's virtual authenticator only,
 * 05-passkey.spec.ts), adding a second EMAIL_OTP (the customer has its one), and "unknown action"
 * (the frame never asks the words module to allow it: a call it cannot put in words gets describe.ts'
 * plain lines instead, and a request nobody declared is refused).
 */
import { randomUUID } from 'node:crypto';
import type { Scope, Tab } from '../../drivers/driver.js';
import { accountPrivateInPage, makeFrameWallet, signUpInPage, startLoginInPage } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { differsFromKept, keptPicture, seriousViolations } from './prompt-checks.js';
import { appRequestInPage, breakLayoutInPage, callInPage, callSettled, mendLayoutInPage, promptInPage, standInsInPage, type PromptSeen } from './prompt-in-page.js';
import { approveIn, approveOn, expect, openApp, openApprovalWindow, OTP, outcome, signerIn, test, typeCode, untilArmed, visibleIn } from './steps.js';

const frameStack = useFrameStack();
// Eleven prompts, a login on each of two devices, on a machine shared by many: each step waits for
// its event; the whole takes 1–3 minutes.
test.setTimeout(300_000);

/** One stack per engine: fixed emails keep the pictures the same from run to run. */
const EMAIL = 'ada@example.com';
const NEW_EMAIL = 'ada.lovelace@example.com';

type Expected = readonly (readonly [label: string, value: string | RegExp])[];
type Outcome = { ok: boolean; value?: unknown; code?: string; message?: string };

interface Journey {
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

function expectWords(seen: PromptSeen | null, journey: Journey, where: string): void {
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

async function noSeriousViolations(scope: Scope, what: string): Promise<void> {
  expect(await seriousViolations(scope), `axe in ${what}`).toEqual([]);
}

/** Whether a prompt is on the frame's screen (its Approve, or its "Open the approval window"). */
const promptShown = async (frame: Scope) => (await visibleIn(frame, 'signer-approve')) || (await visibleIn(frame, 'signer-open-popup'));

/**
 * The journey of one kind: called by the app, read, checked, pictured, approved; resolves to the
 * call's outcome. `breakLayout`: the picture of a layout broken on purpose must fail the comparison.
 */
async function journey(tab: Tab, engine: string, j: Journey, breakLayout = false): Promise<Outcome> {
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
  await where.evaluate(standInsInPage, j.standIns ?? []);
  // From the top, whatever arming scrolled (a prompt taller than the frame): the same picture each run.
  await where.evaluate(() => window.scrollTo(0, 0));
  keptPicture(await where.screenshot('signer-approval'), `${j.name}.png`);
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

const idOf = (value: unknown) => (value as { id: string }).id;

/** The app's own call to the wallet (no prompt): its answer. */
async function walletCall<T>(tab: Tab, method: string, ...args: unknown[]): Promise<T> {
  await tab.evaluate(callInPage, [method, args] as const);
  const result = await tab.evaluate(() => window.t.call as Promise<Outcome>);
  expect(result, `${method}: ${JSON.stringify(result)}`).toMatchObject({ ok: true });
  return result.value as T;
}

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
  await openApp(tab, frameStack());
  const accountId = await tab.evaluate(signUpInPage, EMAIL);
  await tab.evaluate(makeFrameWallet);
  await tab.evaluate(startLoginInPage, accountId);
  await typeCode(tab, OTP);
  expect(await outcome(tab, 'verifying')).toMatchObject({ ok: true });
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
