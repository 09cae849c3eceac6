/**
 * The proxy in frame mode (THREAT-MODEL.md P5, security review C4), Chromium with partitioning on:
 * a script in the app's page, with the user's app cookie, imports the in-origin library (and uses
 * plain fetch) to log in and sign through the app's proxy with keys of its own. The stack's proxy
 * declares the signer origin (`signerOrigins`): every try is `403 SIGNER_ORIGIN_REQUIRED`, the
 * service lists no new session and the account is unchanged, while the app's reads still work and
 * the frame still refreshes. The control: the very same attacks through a proxy of the same stack
 * in in-origin mode (`/in-origin-api`, no `signerOrigins`) do get the script a session.
 */
import { expect, test, type Page } from '@playwright/test';
import type { Wallet } from '../../src/wallet.js';
import type { OAuthLogin } from '../../src/flows/oauth.js';
import { accountPrivate, approveInFrame, loggedInCustomer, newEmail, signer } from './helpers.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack({ inOriginProxy: true });

async function idToken(email: string, nonce: string): Promise<string> {
  const res = await fetch(`${frameStack().sandboxUrl}/sandbox/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, nonce }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { oidcToken: string }).oidcToken;
}

/** In the page: an in-origin wallet of the app's own script on `base`, its keys its own; `window.t.attacker`. */
async function inOriginWallet(page: Page, base: string): Promise<void> {
  await page.evaluate(async (base) => {
    await import(`${location.origin}/in-origin.js`);
    const me = (await (await fetch('/demo/me')).json()) as { trustedKeys: string[] };
    const wallet = window.inOriginLib.createWallet({ baseUrl: base, trustedKeys: me.trustedKeys, onBeforeSign: async () => true });
    await wallet.restore();
    window.t.attacker = wallet;
  }, base);
}

/** The outcome of the script's email-code login (the sandbox's code) and of its OAuth login, whose nonce binds its own key. */
async function scriptLogins(page: Page, accountId: string, email: string): Promise<{ otp: string; oauth: string }> {
  const otp = await page.evaluate(async (accountId) => {
    const wallet = window.t.attacker as Wallet;
    return wallet.startOtpLogin({ accountId }).then((login) => login.verify('000000')).then((s) => `session ${s.id}`, (e: { code?: string; message?: string; details?: unknown }) => `${e.code} ${e.message} ${JSON.stringify(e.details)}`);
  }, accountId);
  await page.evaluate(() => (window.t.attacker as Wallet).logout());
  const nonce = await page.evaluate(async (accountId) => {
    const login = await (window.t.attacker as Wallet).prepareOAuth({ accountId });
    window.t.oauth = login;
    return login.nonce;
  }, accountId);
  const token = await idToken(email, nonce);
  const oauth = await page.evaluate((token) => (window.t.oauth as OAuthLogin).complete(token).then((s) => `session ${s.id}`, (e: { code?: string }) => String(e.code)), token);
  return { otp, oauth };
}

test('a script of the app\'s origin cannot log in, refresh or sign through the proxy with its own key; the frame still can', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const stack = frameStack();
  const accountId = await loggedInCustomer(page, stack);
  // An OAUTH credential, added by the user in the frame: the script's OAuth round trip is for real.
  const email = newEmail();
  const registration = await idToken(email, 'registration');
  await page.evaluate(([accountId, oidcToken]) => {
    window.t.added = (window.t.wallet as { addOAuthCredential(a: object): Promise<unknown> }).addOAuthCredential({ accountId, oidcToken }).then(() => 'ok', (e: { code?: string }) => e.code);
  }, [accountId, registration] as const);
  await expect(signer(page).getByTestId('signer-approval')).toContainText('Add a sign-in method');
  await approveInFrame(signer(page));
  expect(await page.evaluate(() => window.t.added)).toBe('ok');

  const sessionsBefore = await stack.serviceSessions(accountId);
  expect(sessionsBefore).toHaveLength(1);
  const privateBefore = await accountPrivate(page, accountId);

  // The in-origin library, against the app's proxy (frame mode).
  await inOriginWallet(page, '/api');
  const refused = await scriptLogins(page, accountId, email);
  expect(refused.otp.split(' ')[0], refused.otp).toBe('SIGNER_ORIGIN_REQUIRED');
  expect(refused.oauth).toBe('SIGNER_ORIGIN_REQUIRED');

  // Plain fetch: a code login's start, a passkey-style start with its own key, a refresh of the
  // frame's session to its own key, an update's first leg, a signed leg (the sandbox accepts the
  // literal signature), a same-origin GET (no Origin header) carrying a signature — and a read.
  const frameSession = sessionsBefore[0] as string;
  const tries = await page.evaluate(
    async ([accountId, frameSession]) => {
      const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
      const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      const compressed = [(raw[64] as number) % 2 === 0 ? 2 : 3, ...raw.slice(1, 33)].map((b) => b.toString(16).padStart(2, '0')).join('');
      const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(`/api${path}`, { method, headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        const text = await res.text();
        return `${res.status} ${res.status === 200 ? 'ok' : (JSON.parse(text) as { code: string }).code}`;
      };
      const credentials = (await (await fetch(`/api/auth/credentials?accountId=${encodeURIComponent(accountId)}`)).json()) as { data: { id: string; type: string }[] };
      const otp = credentials.data.find((c) => c.type === 'EMAIL_OTP')?.id as string;
      const signed = { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': `Request:${crypto.randomUUID()}` };
      return {
        credentialsRead: credentials.data.map((c) => c.type).sort().join(','),
        otpStart: await send('POST', `/auth/credentials/${otp}/challenge`, {}),
        keyedStart: await send('POST', `/auth/credentials/${otp}/challenge`, { clientPublicKey: compressed }),
        refresh: await send('POST', `/auth/sessions/${frameSession}/refresh`, { clientPublicKey: compressed }),
        firstLeg: await send('PATCH', `/internal-accounts/${accountId}`, { privateEnabled: true }),
        signedLeg: await send('PATCH', `/internal-accounts/${accountId}`, { privateEnabled: true }, signed),
        signedGet: await send('GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`, undefined, signed),
        read: await send('GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`),
      };
    },
    [accountId, frameSession] as const,
  );
  expect(tries).toEqual({
    credentialsRead: 'EMAIL_OTP,OAUTH',
    otpStart: '403 SIGNER_ORIGIN_REQUIRED',
    keyedStart: '403 SIGNER_ORIGIN_REQUIRED',
    refresh: '403 SIGNER_ORIGIN_REQUIRED',
    firstLeg: '403 SIGNER_ORIGIN_REQUIRED',
    signedLeg: '403 SIGNER_ORIGIN_REQUIRED',
    signedGet: '403 SIGNER_ORIGIN_REQUIRED',
    read: '200 ok',
  });
  // Nothing was created on the service, nothing changed.
  expect(await stack.serviceSessions(accountId)).toEqual(sessionsBefore);
  expect(await accountPrivate(page, accountId)).toBe(privateBefore);

  // The frame, on its own origin, still refreshes its session through the same proxy.
  const refreshed = await page.evaluate(() => (window.t.wallet as { refresh(): Promise<{ id: string }> }).refresh().then((s) => s.id, (e: { code?: string }) => `failed ${e.code}`));
  expect(refreshed).toMatch(/^Session:/);
  // The service lists the new session, and no other than the frame's (the old one may still be ending).
  const after = await stack.serviceSessions(accountId);
  expect(after).toContain(refreshed);
  expect(after.filter((id) => id !== refreshed && id !== frameSession)).toEqual([]);

  // The control: the same script logins through a proxy in in-origin mode get sessions of its own keys.
  // (A context of its own, with the user's cookies: the control's wallet starts from empty storage.)
  const other = await browser.newContext();
  await other.addCookies(await page.context().cookies());
  const controlPage = await other.newPage();
  await controlPage.goto(stack.appPage());
  await controlPage.locator('body[data-ready="true"]').waitFor();
  await inOriginWallet(controlPage, '/in-origin-api');
  const control = await scriptLogins(controlPage, accountId, email);
  await other.close();
  expect(control.otp, control.otp).toMatch(/^session Session:/);
  expect(control.oauth).toMatch(/^session Session:/);
});
