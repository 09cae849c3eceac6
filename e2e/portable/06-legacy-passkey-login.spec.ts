/**
 * Journey 6: the legacy way into the wallet by passkey (embedded-wallet-signer/legacy, the demo's
 * "deprecated sealed-key flow"): its challenge carries an uncompressed client key, the service seals
 * the session key to it, the page opens it and signs. In-origin only: frame mode skips it by
 * THREAT-MODEL P3 (the legacy entry unseals a session key in the app page; the demo offers it only
 * in-origin). Chromium (CDP) and Firefox ESR (Marionette) drive a virtual authenticator
 * (e2e/portable/passkey-steps.ts); WebKitGTK has no WebAuthn: skipped there. The wallet's requests are
 * read in the page (e2e/portable/wallet-requests.ts): the library's own, as it sent them.
 */
import { expect, loggedLegs, newLoggedInCustomer, signPrivateToggle, test } from './fixtures.js';
import { logout } from './journey-steps.js';
import { loginWithPasskey, NO_WEBAUTHN_IN_WEBKITGTK, registerPasskey, virtualPasskey } from './passkey-steps.js';
import { recordWalletRequests, walletRequests } from './wallet-requests.js';

test('6 · legacy flow (uncompressed key, sealed session key) logs in and signs', async ({ openDevice, engine, mode }) => {
  test.skip(mode === 'frame', 'src/signer/THREAT-MODEL.md P3: the legacy entry unseals a session key in the app page; in frame mode every session key is generated in the frame');
  test.skip(engine === 'webkit', NO_WEBAUTHN_IN_WEBKITGTK);
  test.slow(); // a registration, two logins and a signed action
  const tab = await (await openDevice()).newTab();
  await virtualPasskey(tab);
  await newLoggedInCustomer(tab);
  await registerPasskey(tab, 'Legacy passkey');
  await logout(tab);

  await recordWalletRequests(tab, { headers: [], fields: ['clientPublicKey'] });
  await loginWithPasskey(tab, { legacy: true });
  // The legacy challenge: an uncompressed P-256 key (04 ‖ x ‖ y) for the service to seal the session key to.
  const challenges = await walletRequests(tab, 'POST', '/auth/credentials/[^/]+/challenge$');
  const legacyKeys = challenges.filter((r) => r.status === 200).map((r) => r.fields.clientPublicKey ?? '').filter((k) => k.startsWith('04'));
  expect(legacyKeys).toHaveLength(1);
  expect(legacyKeys[0]).toMatch(/^04[0-9a-f]{128}$/);
  // The verify answered 200 with the session key sealed (base58), which the page opened.
  const verifies = await walletRequests(tab, 'POST', '/auth/credentials/[^/]+/verify$');
  expect(verifies.map((r) => r.status)).toEqual([200]);
  const session = JSON.parse(verifies[0]!.answer) as { encryptedSessionSigningKey?: string };
  expect(session.encryptedSessionSigningKey).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,}$/);

  // It signs with the opened key: the action's signed leg accepted.
  await signPrivateToggle(tab);
  await expect.poll(async () => (await loggedLegs(tab, 'PATCH', '/internal-accounts/')).filter((l) => l.leg === '2' && l.signed === 'true').map((l) => l.status)).toEqual(['200']);
});
