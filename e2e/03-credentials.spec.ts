/**
 * Journey 12: credentials — add a passkey, delete a credential with another credential's session.
 * Both modes: in frame mode the passkey ceremonies run in the signer frame and the delete is approved there.
 */
import type { Request } from '@playwright/test';
import {
  addVirtualAuthenticator,
  approve,
  autoApprove,
  byTest,
  credentialRows,
  expect,
  expectLegs,
  loginWithPasskey,
  newLoggedInCustomer,
  openLogin,
  registerPasskey,
  signPrivateToggle,
  test,
} from './fixtures.js';

/** The `publicKey` inside a `Service-Wallet-Signature` stamp (base64url of a JSON object). */
function stampKey(request: Request): string {
  const stamp = request.headers()['service-wallet-signature'] ?? '';
  return (JSON.parse(Buffer.from(stamp, 'base64url').toString('utf8')) as { publicKey: string }).publicKey;
}

test('12 · credentials: add a passkey, delete a credential with another credential’s session', async ({ page, context }) => {
  await autoApprove(context);
  await addVirtualAuthenticator(context, page);
  await newLoggedInCustomer(page);
  await registerPasskey(page, 'Work laptop');
  await expect(credentialRows(page, 'EMAIL_OTP').getByTestId('cred-current')).toBeVisible();

  // The email credential cannot be deleted with its own session: a clear refusal, nothing sent.
  const deleteEmail = async () => {
    await credentialRows(page, 'EMAIL_OTP').getByTestId('cred-delete').click();
    await credentialRows(page, 'EMAIL_OTP').getByTestId('cred-delete-confirm').click();
  };
  // Refused before anything is signed: in frame mode no approval is asked for either.
  await deleteEmail();
  await expect(byTest(page, 'cred-status')).toContainText('A credential cannot delete itself');
  await expect(byTest(page, 'cred-status')).toContainText('[OTHER_CREDENTIAL_SESSION_REQUIRED]');
  await expect(credentialRows(page, 'EMAIL_OTP')).toHaveCount(1);

  // A second session, from the passkey; its key is the one in the passkey challenge.
  const challenges: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/auth\/credentials\/[^/]+\/challenge$/.test(new URL(r.url()).pathname)) {
      const key = (r.postDataJSON() as { clientPublicKey?: string } | null)?.clientPublicKey;
      if (key) challenges.push(key);
    }
  });
  await openLogin(page);
  await expect(byTest(page, 'login-already')).toBeVisible();
  await loginWithPasskey(page);

  await byTest(page, 'nav-credentials').click();
  await expect(credentialRows(page, 'PASSKEY').getByTestId('cred-current')).toBeVisible();
  const retry = page.waitForRequest((r) => r.method() === 'DELETE' && r.headers()['service-wallet-signature'] !== undefined);
  await deleteEmail();
  await approve(page);
  await expect(byTest(page, 'cred-status')).toContainText('deleted');
  await expect(credentialRows(page, 'EMAIL_OTP')).toHaveCount(0);
  await expect(credentialRows(page, 'PASSKEY')).toHaveCount(1);
  // Signed by the passkey's session, not the email one.
  expect(challenges).toContain(stampKey(await retry));
  await expectLegs(page, 'DELETE', /\/auth\/credentials\//, { leg: 1, status: 202, signed: false }, 1);
  await expectLegs(page, 'DELETE', /\/auth\/credentials\//, { leg: 2, status: 204, signed: true }, 1);

  // Still logged in with the passkey, still signing.
  await byTest(page, 'nav-home').click();
  await expect(byTest(page, 'session-credential')).toHaveText('Passkey');
  await signPrivateToggle(page);
});
