/**
 * OAuth in frame mode (THREAT-MODEL.md P3), Chromium: the session key is made in the signer frame,
 * so the IdP's nonce binds the frame's key. The sandbox's stand-in IdP issues the ID tokens
 * (`/sandbox/oauth/token`), as an IdP would after the user signed in there.
 */
import { createHash } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { approveInFrame, frameWallet, loginInFrame, newCustomer, newEmail, signer } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

async function idToken(email: string, nonce: string): Promise<string> {
  const res = await fetch(`${frameStack().sandboxUrl}/sandbox/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, nonce }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { oidcToken: string }).oidcToken;
}

type Outcome = { ok: boolean; code?: string; value?: Record<string, unknown> };

const status = (page: Page) => page.evaluate(() => (window.t.wallet as { getSnapshot(): { status: string } }).getSnapshot().status);

test('an OAuth login whose nonce binds the frame\'s key; a token for a key of the app gets no session', async ({ page }) => {
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await loginInFrame(page, accountId);
  const email = newEmail();

  const addOAuth = (oidcToken: string) =>
    page.evaluate(([accountId, oidcToken]) => {
      window.t.outcome = (window.t.wallet as { addOAuthCredential(a: object): Promise<unknown> }).addOAuthCredential({ accountId, oidcToken }).then(
        (value) => ({ ok: true, value }),
        (error: { code?: string }) => ({ ok: false, code: error.code }),
      );
    }, [accountId, oidcToken] as const);
  const prompt = signer(page).getByTestId('signer-approval');

  // A token the page hands in naming someone else (security review C3): the frame shows whom it names.
  await addOAuth(await idToken('attacker@evil.example', 'registration'));
  await expect(prompt).toContainText('Add a sign-in method');
  await expect(prompt).toContainText('accounts.google.com');
  await expect(prompt).toContainText('attacker@evil.example');
  await signer(page).getByTestId('signer-decline').click();
  expect(await page.evaluate(() => window.t.outcome as Promise<Outcome>)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });

  // Adding the user's own OAUTH credential is approved in the frame, its identity shown.
  const registration = await idToken(email, 'registration');
  await addOAuth(registration);
  await expect(prompt).toContainText('accounts.google.com');
  await expect(prompt).toContainText(email);
  await approveInFrame(signer(page));
  const added = await page.evaluate(() => window.t.outcome as Promise<Outcome>);
  expect(added, JSON.stringify(added)).toMatchObject({ ok: true, value: { type: 'OAUTH', accountId } });

  await page.evaluate(() => (window.t.wallet as { logout(): Promise<void> }).logout());
  await expect.poll(() => status(page)).toBe('signed-out');

  // The app gets the nonce and the public key of a key made in the frame.
  const prepared = await page.evaluate(async (accountId) => {
    const login = await (window.t.wallet as { prepareOAuth(a: object): Promise<{ nonce: string; clientPublicKey: string }> }).prepareOAuth({ accountId });
    window.t.oauth = login;
    return { nonce: login.nonce, clientPublicKey: login.clientPublicKey, keys: Object.keys(login).sort() };
  }, accountId);
  expect(prepared.keys).toEqual(['clientPublicKey', 'complete', 'nonce']);
  expect(prepared.nonce).toBe(createHash('sha256').update(prepared.clientPublicKey, 'utf8').digest('hex'));

  // A token for a key the app made itself: the frame holds no key for its nonce, no session.
  const appKey = await page.evaluate(async () => {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
    return [...raw].map((b) => b.toString(16).padStart(2, '0')).join('');
  });
  const foreign = await idToken(email, createHash('sha256').update(appKey, 'utf8').digest('hex'));
  const refused = await page.evaluate((oidcToken) => (window.t.wallet as { completeOAuth(a: object): Promise<unknown> }).completeOAuth({ oidcToken }).then(() => 'session', (error: { code?: string }) => error.code), foreign);
  expect(refused).toBe('OAUTH_NOT_PREPARED');
  expect(await status(page)).toBe('signed-out');

  // The IdP's token for the frame's nonce: the session, made with the frame's key.
  const token = await idToken(email, prepared.nonce);
  const session = await page.evaluate((oidcToken) => (window.t.oauth as { complete(t: string): Promise<Record<string, unknown>> }).complete(oidcToken), token);
  expect(session).toMatchObject({ accountId });
  await expect.poll(() => status(page)).toBe('active');
  const listed = await page.evaluate((accountId) => (window.t.wallet as { listSessions(id: string): Promise<{ id: string; type?: string }[]> }).listSessions(accountId), accountId);
  expect(listed.find((s) => s.id === session.id)).toMatchObject({ type: 'OAUTH' });
});
