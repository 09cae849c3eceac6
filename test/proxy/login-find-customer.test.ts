/**
 * emailLoginProxy's `findCustomer` hook (src/proxy/email-login.ts, L1): the app decides which
 * customer an email or a phone signs in as. Issue 35's "the app's hook decides" and "(and SMS by
 * phone)", through the library's wallet and the real sandbox: without the hook a phone is refused
 * before anything is looked up; with it, a customer whose wallet added an SMS credential logs in by
 * phone alone, an email signs in as the customer the hook names (none provisioned), and a contact
 * the hook refuses gets 403 LOGIN_REFUSED with no ticket and no service call.
 */
import { describe, expect, it } from 'vitest';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { emailLoginProxy, readAppSession, type LoginContact, type LoginCustomer, type ProxyHandler } from '../../src/proxy/index.js';
import { createWallet } from '../../src/wallet.js';
import { emailLogin, OTP, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';
import { cookieJarFetch } from '../helpers/cookie-jar.js';

const env = useTestSandbox();
const SECRET = 'find-customer-secret-of-32-characters!';

/** The proxy with `findCustomer` (if given), and the service calls it forwarded. */
function loginProxy(findCustomer?: (contact: LoginContact) => Promise<LoginCustomer | null>): { proxy: ProxyHandler; forwarded: string[] } {
  const forwarded: string[] = [];
  const proxy = emailLoginProxy({
    baseUrl: env.sandbox.url,
    clientId: 'sandbox-client',
    clientSecret: 'sandbox-secret',
    prefix: '/api',
    secret: SECRET,
    logger: false,
    ...(findCustomer ? { findCustomer } : {}),
    fetch: (input, init) => {
      forwarded.push(`${init.method ?? 'GET'} ${new URL(input).pathname}`);
      return globalThis.fetch(input, init);
    },
  });
  return { proxy, forwarded };
}

/** A browser on the app: the wallet over the proxy, with a cookie jar. */
function browserOn(proxy: ProxyHandler) {
  const b = cookieJarFetch((request) => proxy(request));
  const wallet = createWallet({ baseUrl: 'http://app.test/api', trustedKeys: [env.sandbox.enclavePublicKey], fetch: b.fetch, keyStore: createKeyStore({ backend: createMemoryBackend() }), crossTab: false });
  const session = () => readAppSession(new Request('http://app.test/', { headers: { cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ') } }), SECRET);
  return { ...b, wallet, session };
}

const start = (proxy: ProxyHandler, body: unknown) => proxy(new Request('http://app.test/api/login/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));

describe('emailLoginProxy: the app’s findCustomer', () => {
  it('without it a phone is refused (400 INVALID_INPUT), before any service call, with no cookie', async () => {
    const { proxy, forwarded } = loginProxy();
    const answer = await start(proxy, { phone: '+15555550123' });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { code: string }).code).toBe('INVALID_INPUT');
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(forwarded).toEqual([]);
  });

  it('SMS by phone: a customer whose wallet added an SMS credential logs in by the phone alone; the app session names that customer', async () => {
    const customer = await env.admin.customer({ phone: true });
    // The SMS credential is added by a signed-in wallet (the service's rule), once.
    const owner = testWallet(env.sandbox);
    await emailLogin(owner.wallet, customer.accountId);
    const sms = await owner.wallet.addSmsOtp({ accountId: customer.accountId });
    await sms.verify(OTP);
    owner.wallet.dispose();

    const asked: LoginContact[] = [];
    const { proxy } = loginProxy(async (contact) => (asked.push(contact), 'phone' in contact && contact.phone === customer.phoneNumber ? { customerId: customer.customerId } : null));
    const b = browserOn(proxy);
    const login = await b.wallet.startOtpLogin({ phone: ` ${customer.phoneNumber!} ` });
    expect(asked).toEqual([{ phone: customer.phoneNumber }]);
    expect(login).toMatchObject({ type: 'SMS_OTP', credentialId: sms.credentialId });
    const session = await login.verify(OTP);
    expect(session).toMatchObject({ accountId: customer.accountId, credentialType: 'SMS_OTP' });
    expect(await b.session()).toMatchObject({ customerId: customer.customerId, accountId: customer.accountId, sessionId: session.id });
    // Signed in: the proxy scopes the app's calls to that customer.
    expect((await b.fetch(`http://app.test/api/auth/sessions?accountId=${encodeURIComponent(customer.accountId)}`)).status).toBe(200);
    b.wallet.dispose();
  });

  it('an email signs in as the customer the hook names (its wallet looked up, nothing provisioned)', async () => {
    const customer = await env.admin.customer();
    const { proxy, forwarded } = loginProxy(async (contact) => ('email' in contact && contact.email === customer.email ? { customerId: customer.customerId } : null));
    const b = browserOn(proxy);
    const session = await (await b.wallet.startOtpLogin({ email: customer.email.toUpperCase() })).verify(OTP);
    expect(session.accountId).toBe(customer.accountId);
    expect(await b.session()).toMatchObject({ customerId: customer.customerId, accountId: customer.accountId });
    expect(forwarded.filter((f) => f.endsWith('/customers') && f.startsWith('POST'))).toEqual([]);
    b.wallet.dispose();
  });

  it('a contact the hook refuses: 403 LOGIN_REFUSED to the wallet, no ticket, no service call', async () => {
    const { proxy, forwarded } = loginProxy(async () => null);
    const b = browserOn(proxy);
    await expect(b.wallet.startOtpLogin({ email: 'someone@not-allowed.example' })).rejects.toMatchObject({ name: 'WalletError', code: 'LOGIN_REFUSED', status: 403 });
    await expect(b.wallet.startOtpLogin({ phone: '+15555550199' })).rejects.toMatchObject({ code: 'LOGIN_REFUSED', status: 403 });
    expect([...b.jar.keys()]).toEqual([]);
    expect(forwarded).toEqual([]);
    b.wallet.dispose();
  });
});
