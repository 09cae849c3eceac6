/**
 * The library's side of the email-first login (src/flows/otp.ts startByContact): the start
 * answer is checked field by field and its bundle against the trusted keys before the user types;
 * bad input is a typed error before any request. The proxy answers in-process (its handler as the
 * wallet's fetch) in front of the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailLoginProxy, type ProxyHandler } from '../../src/proxy/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createWallet } from '../../src/wallet.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';

let sandbox: RunningSandbox;
let proxy: ProxyHandler;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  proxy = emailLoginProxy({ baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', prefix: '/api', secret: 'flows-email-first-secret-32-characters!', logger: false });
});
afterAll(() => sandbox.close());

function wallet(options: { trustedKeys?: string[]; fetch?: typeof globalThis.fetch } = {}) {
  return createWallet({
    baseUrl: 'http://app.test/api',
    trustedKeys: options.trustedKeys ?? [sandbox.enclavePublicKey],
    keyStore: createKeyStore({ backend: createMemoryBackend() }),
    crossTab: false,
    fetch: options.fetch ?? (async (input, init) => (seen.push(String(input)), proxy(new Request(input, init)))),
  });
}

describe('startOtpLogin({ email })', () => {
  it('an empty or non-string email, or a phone of the wrong type: INVALID_ARGUMENT, nothing sent', async () => {
    const before = seen.length;
    const w = wallet();
    await expect(w.startOtpLogin({ email: '  ' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(w.startOtpLogin({ phone: 5 } as unknown as { phone: string })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(seen.length).toBe(before);
  });

  it('a bundle signed by an enclave key the wallet does not trust fails before the code is typed', async () => {
    const other = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', other.publicKey));
    const w = wallet({ trustedKeys: [Buffer.from(raw).toString('hex')] });
    await expect(w.startOtpLogin({ email: 'untrusted@example.com' })).rejects.toMatchObject({ code: expect.stringMatching(/^BUNDLE_SIGN/) });
  });

  it('a start answer without accountId, credentialId or type: BAD_RESPONSE', async () => {
    for (const body of [{}, { accountId: 'A', credentialId: 'C' }, { accountId: 'A', credentialId: 'C', type: 'PASSKEY', otpEncryptionTargetBundle: 'x' }, { accountId: '', credentialId: 'C', type: 'EMAIL_OTP' }]) {
      const w = wallet({ fetch: async () => Response.json(body) });
      await expect(w.startOtpLogin({ email: 'x@example.com' }), JSON.stringify(body)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    }
  });

  it('the proxy refusing (rate limit, bad input) reaches the caller as a WalletError with the status', async () => {
    const w = wallet({ fetch: async () => new Response(JSON.stringify({ code: 'RATE_LIMITED', reason: 'Too many' }), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '30' } }) });
    await expect(w.startOtpLogin({ email: 'x@example.com' })).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });
});
