/**
 * examples/express-email-login end to end, at the node level: the real sandbox, the example's
 * Express app on a loopback port, and the library's wallet (a memory key store, a cookie jar as the
 * browser's) logging in by email alone: `startOtpLogin({ email })` → `verify(code)` → the app's
 * session cookie names the customer the proxy provisioned; a signed-in route, a second login of the
 * same email (the same customer, not a new one), logout clears the cookie.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createWallet } from '../../src/wallet.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { cookieJarFetch } from '../helpers/cookie-jar.js';

// The example imports the package by name, as an app would; here that name is the source.
vi.mock('embedded-wallet-signer/proxy', () => import('../../src/proxy/index.js'));

const SECRET = 'test-secret-of-at-least-32-characters!';
const APP = '../../examples/express-email-login/app.ts';
let sandbox: RunningSandbox;
let server: Server;
let base: string;

/** A browser: a cookie jar over the network's fetch. */
const browser = () => cookieJarFetch();

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  const { emailLoginApp } = (await import(APP)) as { emailLoginApp: (o: unknown) => import('express').Express };
  const app = emailLoginApp({ service: { baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' }, secret: SECRET, trustedKeys: [sandbox.enclavePublicKey] });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await sandbox.close();
});

async function walletIn(b: ReturnType<typeof browser>) {
  const bootstrap = (await (await b.fetch(`${base}/api/wallet-bootstrap`)).json()) as { baseUrl: string; trustedKeys: string[] };
  return createWallet({ baseUrl: base + bootstrap.baseUrl, trustedKeys: bootstrap.trustedKeys, fetch: b.fetch, keyStore: createKeyStore({ backend: createMemoryBackend() }), crossTab: false });
}

describe('Express app: email-first login through the real sandbox', () => {
  it('logs in by email alone; the session cookie names the provisioned customer; logout clears it', async () => {
    const b = browser();
    const wallet = await walletIn(b);
    expect(await (await b.fetch(`${base}/api/me`)).json()).toEqual({ signedIn: false });
    const login = await wallet.startOtpLogin({ email: 'New.User@Example.com' });
    expect(login.type).toBe('EMAIL_OTP');
    expect(b.jar.has('ews_login')).toBe(true);
    expect(b.jar.has('ews_session')).toBe(false);
    const session = await login.verify('000000');
    expect(b.jar.has('ews_session')).toBe(true);
    expect(b.jar.has('ews_login')).toBe(false);
    const me = (await (await b.fetch(`${base}/api/me`)).json()) as { signedIn: boolean; customerId: string; accountId: string };
    expect(me).toMatchObject({ signedIn: true, accountId: session.accountId });
    // The provisioned customer holds the email that was typed (normalised).
    const customer = await fetch(`${sandbox.url}/customers/${encodeURIComponent(me.customerId)}`, { headers: { authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}` } });
    expect(((await customer.json()) as { email: string }).email).toBe('new.user@example.com');
    // A signed-in route: the wallet's own sessions, through currentUser = the cookie.
    const sessions = await b.fetch(`${base}/api/auth/sessions?accountId=${encodeURIComponent(session.accountId)}`);
    expect(sessions.status).toBe(200);
    await wallet.logout();
    expect(b.jar.has('ews_session')).toBe(false);
    // The wallet's session was ended on the service too (its signed DELETE went through both legs).
    const left = await fetch(`${sandbox.url}/auth/sessions?accountId=${encodeURIComponent(session.accountId)}`, { headers: { authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}` } });
    expect(((await left.json()) as { data: { id: string }[] }).data.map((s) => s.id)).not.toContain(session.id);
    expect(await (await b.fetch(`${base}/api/me`)).json()).toEqual({ signedIn: false });
    expect((await b.fetch(`${base}/api/auth/sessions?accountId=${encodeURIComponent(session.accountId)}`)).status).toBe(401);
  });

  it('the same email again (another browser) signs in to the same customer', async () => {
    const first = browser();
    const s1 = await (await (await walletIn(first)).startOtpLogin({ email: 'twice@example.com' })).verify('000000');
    const second = browser();
    const s2 = await (await (await walletIn(second)).startOtpLogin({ email: 'TWICE@example.com' })).verify('000000');
    expect(s2.accountId).toBe(s1.accountId);
    const [a, b] = await Promise.all([first, second].map(async (x) => ((await (await x.fetch(`${base}/api/me`)).json()) as { customerId: string }).customerId));
    expect(a).toBe(b);
  });
});
