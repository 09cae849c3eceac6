/**
 * Journey 22, in both modes, in Chromium and Firefox ESR: registering the same authenticator twice.
 * The second registration sends the wallet's passkey in `excludeCredentials`, so the (virtual)
 * authenticator refuses to make another one — which would replace the first on the device and strand
 * the service's credential — and the demo shows PASSKEY_CREDENTIAL_ALREADY_EXISTS; nothing is sent
 * to the service. Another authenticator (another device) still registers. In frame mode the
 * ceremonies run in the signer frame. WebKitGTK has no WebAuthn: skipped there.
 */
import { approveUntil, expect, loggedLegs, newLoggedInCustomer, test, textOf, walletAccountId } from './fixtures.js';
import { credentialNicknames } from './journey-steps.js';
import { NO_WEBAUTHN_IN_WEBKITGTK, registerPasskey, serviceCredentials, startPasskeyAdd, virtualPasskey } from './passkey-steps.js';

test('22 · passkeys: the same authenticator twice is refused with PASSKEY_CREDENTIAL_ALREADY_EXISTS', async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // a login, two registrations approved, in Firefox frame mode in windows
  const tab = await (await openDevice()).newTab();
  const laptop = await virtualPasskey(tab);
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  await registerPasskey(tab, 'Laptop');
  expect(await laptop.credentials()).toHaveLength(1);
  const servicePasskeys = async () => (await serviceCredentials(accountId)).filter((c) => c.type === 'PASSKEY').map((c) => c.nickname);
  expect(await servicePasskeys()).toEqual(['Laptop']);
  const adds = async () => (await loggedLegs(tab, 'POST', '/auth/credentials$')).length;
  const addsBefore = await adds();

  await startPasskeyAdd(tab, 'Laptop again');
  await expect.poll(() => textOf(tab, 'cred-status')).toContain('[PASSKEY_CREDENTIAL_ALREADY_EXISTS]');
  expect(await textOf(tab, 'cred-status')).toContain('already registered');
  // Nothing sent to the service, nothing made on the device.
  expect(await adds()).toBe(addsBefore);
  expect(await servicePasskeys()).toEqual(['Laptop']);
  expect(await laptop.credentials()).toHaveLength(1);
  expect(await credentialNicknames(tab, 'PASSKEY')).toEqual(['Laptop']);

  // Another authenticator (another device) still registers.
  await laptop.remove();
  const phone = await virtualPasskey(tab);
  await startPasskeyAdd(tab, 'Phone');
  await approveUntil(tab, async () => (await credentialNicknames(tab, 'PASSKEY')).includes('Phone'));
  expect((await credentialNicknames(tab, 'PASSKEY')).sort()).toEqual(['Laptop', 'Phone']);
  expect((await servicePasskeys()).sort()).toEqual(['Laptop', 'Phone']);
  expect(await phone.credentials()).toHaveLength(1);
});
