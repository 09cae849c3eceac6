import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, BASIC, enc, start } from './helpers/http.js';
import { openExport, recipientKey, sealOtp } from './helpers/bundles.js';
import { createCustomer, retryHeaders, signed } from './helpers/flows.js';
import { newKey } from './helpers/keys.js';

const lines: string[] = [];
let api: Api;
beforeAll(async () => {
  api = await start({}, lines);
});
afterAll(() => api.sandbox.close());

describe('request log', () => {
  it('a full session leaves no code, key, token, bundle, mnemonic or secret in the log', async () => {
    const secrets: string[] = ['sandbox-secret', BASIC.slice(6)];
    const w = await createCustomer(api);
    secrets.push(w.customer.email);
    const key = newKey();
    secrets.push(key.compressed, key.uncompressed);
    const c = await api.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
    secrets.push(c.json.otpEncryptionTargetBundle);
    const bundle = await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed);
    secrets.push(bundle, JSON.parse(bundle).ciphertext);
    const leg1 = await api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: bundle });
    secrets.push(leg1.json.payloadToSign);
    const headers = retryHeaders(leg1, key);
    secrets.push(headers['Service-Wallet-Signature'] as string);
    expect((await api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: bundle }, { headers })).status).toBe(200);
    const recipient = await recipientKey();
    const exported = await signed(api, 'POST', `/internal-accounts/${enc(w.wallet.id)}/export`, { clientPublicKey: recipient.publicKeyHex }, key);
    const { mnemonic } = await openExport(exported.json.encryptedWalletCredentials, recipient);
    secrets.push(mnemonic, ...mnemonic.split(' ').slice(0, 3).map((word) => ` ${word} `), exported.json.encryptedWalletCredentials);
    const token = (await api.post('/sandbox/oauth/token', { email: 'log@example.com', nonce: 'n' }, { auth: false })).json.oidcToken;
    secrets.push(token, 'log@example.com');
    await api.post(`/customers/${enc(w.customer.id)}/verify-email/confirm`, { code: '123456' });
    secrets.push('123456');

    expect(lines.length).toBeGreaterThan(8);
    const log = lines.join('\n');
    for (const s of secrets) expect(log.includes(s), `log contains ${s.slice(0, 20)}…`).toBe(false);
    expect(log).not.toMatch(/"000000"/);
    for (const line of lines) {
      expect(Object.keys(JSON.parse(line)).sort()).toEqual(expect.arrayContaining(['method', 'ms', 'path', 'status', 'time']));
    }
  });
});
