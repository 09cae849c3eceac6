/**
 * Journey 22: registering the same authenticator twice. The second registration sends the wallet's
 * passkey in `excludeCredentials`, so Chromium's (virtual) authenticator refuses to make another
 * one — which would replace the first on the device and strand the service's credential — and the
 * demo shows PASSKEY_CREDENTIAL_ALREADY_EXISTS; nothing is sent to the service.
 */
import { addVirtualAuthenticator, approve, autoApprove, byTest, credentialRows, expect, newLoggedInCustomer, registerPasskey, startPasskeyAdd, test } from './fixtures.js';

test('22 · passkeys: the same authenticator twice is refused with PASSKEY_CREDENTIAL_ALREADY_EXISTS', async ({ page, context }) => {
  await autoApprove(context);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await newLoggedInCustomer(page);
  await registerPasskey(page, 'Laptop');
  const created = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length;
  expect(await created()).toBe(1);

  const adds: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/auth/credentials') adds.push(r.postData() ?? '');
  });
  await startPasskeyAdd(page, 'Laptop again');
  await expect(byTest(page, 'cred-status')).toContainText('[PASSKEY_CREDENTIAL_ALREADY_EXISTS]');
  await expect(byTest(page, 'cred-status')).toContainText('already registered');
  expect(adds).toEqual([]);
  expect(await created()).toBe(1);
  await expect(credentialRows(page, 'PASSKEY')).toHaveCount(1);

  // Another authenticator (another device) still registers.
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  await addVirtualAuthenticator(context, page);
  await startPasskeyAdd(page, 'Phone');
  await approve(page);
  await expect(credentialRows(page, 'PASSKEY')).toHaveCount(2);
});
