/**
 * Journey 12 (credentials), in both modes, in Chromium and Firefox ESR: a passkey added on a
 * virtual authenticator (e2e/portable/passkey-steps.ts); the email credential cannot be deleted with
 * its own session (refused before anything is signed or sent); after a passkey login (a second
 * session) it is deleted with the passkey's session — the service, which refuses a deletion stamped
 * by a session of the deleted credential (SAME_CREDENTIAL_SESSION), answers the signed leg 204 and
 * ends the email credential's session with it. In frame mode the ceremonies run in the signer frame
 * and the signatures are approved there. WebKitGTK has no WebAuthn: skipped there.
 * (The Next.js journey carries the number 12 too: e2e/portable/12-next-app.spec.ts.)
 */
import { approveUntil, currentSessionId, expect, loggedLegs, newLoggedInCustomer, signPrivateToggle, test, textOf, visible, walletAccountId } from './fixtures.js';
import { credentialNicknames } from './journey-steps.js';
import { clickInRow, isCurrentCredential, loginWithPasskey, NO_WEBAUTHN_IN_WEBKITGTK, openLogin, registerPasskey, serviceCredentials, serviceSessionList, virtualPasskey } from './passkey-steps.js';
import { recordWalletRequests, walletRequests } from './wallet-requests.js';

test('12 · credentials: add a passkey, delete a credential with another credential’s session', async ({ openDevice, engine }) => {
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // two logins, a registration and a deletion approved, a signed action
  const tab = await (await openDevice()).newTab();
  await virtualPasskey(tab);
  await newLoggedInCustomer(tab);
  const accountId = await walletAccountId(tab);
  const emailSession = await currentSessionId(tab);
  await registerPasskey(tab, 'Work laptop');
  await expect.poll(() => isCurrentCredential(tab, 'EMAIL_OTP')).toBe(true);

  // The email credential cannot be deleted with its own session: a clear refusal, nothing signed or sent.
  const deleteEmail = async () => {
    await clickInRow(tab, 'EMAIL_OTP', 'cred-delete');
    await clickInRow(tab, 'EMAIL_OTP', 'cred-delete-confirm');
  };
  await deleteEmail();
  await expect.poll(() => textOf(tab, 'cred-status')).toContain('A credential cannot delete itself');
  expect(await textOf(tab, 'cred-status')).toContain('[OTHER_CREDENTIAL_SESSION_REQUIRED]');
  expect(await credentialNicknames(tab, 'EMAIL_OTP')).toHaveLength(1);
  expect(await loggedLegs(tab, 'DELETE', '/auth/credentials/')).toEqual([]);
  expect((await serviceCredentials(accountId)).map((c) => c.type).sort()).toEqual(['EMAIL_OTP', 'PASSKEY']);

  // A second session, from the passkey; its key is the one its challenge carries (recorded where the
  // wallet sends it: the app page in-origin, the signer frame in frame mode).
  await recordWalletRequests(tab, { headers: ['service-wallet-signature'], fields: ['clientPublicKey'] });
  await openLogin(tab);
  await visible(tab, 'login-already');
  await loginWithPasskey(tab);
  const passkeySession = await currentSessionId(tab);
  const sessions = await serviceSessionList(accountId);
  expect(sessions.map((s) => s.id).sort()).toEqual([emailSession, passkeySession].sort());

  await tab.click('nav-credentials');
  await expect.poll(() => isCurrentCredential(tab, 'PASSKEY')).toBe(true);
  await deleteEmail();
  await approveUntil(tab, async () => (await textOf(tab, 'cred-status')).includes('deleted'));
  await expect.poll(() => credentialNicknames(tab, 'EMAIL_OTP')).toEqual([]);
  expect(await credentialNicknames(tab, 'PASSKEY')).toEqual(['Work laptop']);
  // Both legs: the unsigned ask (202), the signed retry accepted (204) — the service refuses a stamp of the email credential's own session.
  await expect
    .poll(() => loggedLegs(tab, 'DELETE', '/auth/credentials/'))
    .toEqual([
      { leg: '1', status: '202', signed: 'false' },
      { leg: '2', status: '204', signed: 'true' },
    ]);
  // Signed by the passkey's session: the stamp's public key is the one of the passkey login's challenge.
  const passkeyKeys = (await walletRequests(tab, 'POST', '/auth/credentials/[^/]+/challenge$')).map((r) => r.fields.clientPublicKey);
  const stamped = (await walletRequests(tab, 'DELETE', '/auth/credentials/')).flatMap((r) => (r.headers['service-wallet-signature'] === undefined ? [] : [r.headers['service-wallet-signature']]));
  expect(stamped).toHaveLength(1);
  const stampKey = (JSON.parse(Buffer.from(stamped[0]!, 'base64url').toString('utf8')) as { publicKey: string }).publicKey;
  expect(stampKey).toMatch(/^0[23][0-9a-f]{64}$/);
  expect(passkeyKeys).toContain(stampKey);
  // The service: the email credential is gone and its session ended with it; the passkey's session stays.
  expect((await serviceCredentials(accountId)).map((c) => c.type)).toEqual(['PASSKEY']);
  expect((await serviceSessionList(accountId)).map((s) => s.id)).toEqual([passkeySession]);

  // Still logged in with the passkey, still signing.
  await tab.click('nav-home');
  await expect.poll(() => textOf(tab, 'session-credential')).toBe('Passkey');
  await signPrivateToggle(tab);
});
