/**
 * Journey 4, in both modes, in Chromium and Firefox ESR: a passkey registered on a virtual
 * authenticator (Chromium's over CDP, Firefox's over Marionette: e2e/drivers/marionette.ts), then a
 * login with it; the session is the service's, made with that passkey, and signs. In frame mode
 * the ceremonies run in the signer frame (THREAT-MODEL P3) and the registration is approved there.
 * WebKitGTK has no WebAuthn: skipped there.
 */
import { currentSessionId, expect, loggedLegs, newLoggedInCustomer, signPrivateToggle, test, walletAccountId } from './fixtures.js';
import { logout } from './journey-steps.js';
import { loginWithPasskey, NO_WEBAUTHN_IN_WEBKITGTK, registerPasskey, serviceCredentials, serviceSessionList, virtualPasskey } from './passkey-steps.js';
import { recordWalletRequests, walletRequests } from './wallet-requests.js';

test('4 · passkey: register and log in with a virtual authenticator', async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // two logins, a registration approved, a signed action: Firefox frame mode approves in windows
  const tab = await (await openDevice()).newTab();
  const passkey = await virtualPasskey(tab);
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  await registerPasskey(tab, 'Laptop passkey');

  // The authenticator holds the credential the service registered.
  const [held] = await passkey.credentials();
  const registered = (await serviceCredentials(accountId)).filter((c) => c.type === 'PASSKEY');
  expect(registered).toMatchObject([{ nickname: 'Laptop passkey', credentialId: held?.credentialId }]);
  const countBefore = held?.signCount ?? 0;

  await logout(tab);
  // The wallet's requests as it sends them (the app page's in-origin, the signer frame's in frame mode).
  await recordWalletRequests(tab, { headers: ['request-id'], fields: ['type'] });
  await loginWithPasskey(tab);
  // One verify of the passkey's assertion, answered by a session: the service's, made with that passkey.
  await expect.poll(async () => (await loggedLegs(tab, 'POST', '/auth/credentials/[^/]+/verify$')).at(-1)?.status).toBe('200');
  // It carried the challenge's request id back (Request-Id), as the spec's passkey verify asks.
  const verifies = await walletRequests(tab, 'POST', '/auth/credentials/[^/]+/verify$');
  expect(verifies.map((r) => ({ type: r.fields.type, status: r.status }))).toEqual([{ type: 'PASSKEY', status: 200 }]);
  expect(verifies[0]!.headers['request-id']).toMatch(/^Request:/);
  const session = await currentSessionId(tab);
  const listed = (await serviceSessionList(accountId)).find((s) => s.id === session);
  expect(listed).toMatchObject({ type: 'PASSKEY' });
  // `authMethodId` is the sandbox profile's explanation, not the spec's: the service profile
  // (`npm run test:e2e:service`) lists none, as the service need not.
  if ((process.env.SANDBOX_PROFILE || 'sandbox') === 'sandbox') expect(listed).toMatchObject({ authMethodId: registered[0]?.id });
  else expect(listed).not.toHaveProperty('authMethodId');
  // The assertion came from this authenticator: its signature counter moved.
  expect((await passkey.credentials())[0]?.signCount).toBeGreaterThan(countBefore);
  await signPrivateToggle(tab);
});
