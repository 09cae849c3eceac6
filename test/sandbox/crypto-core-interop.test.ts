/**
 * The library's crypto core (src/crypto) against the sandbox's independent implementation: every
 * byte format the two exchange, driven over raw HTTP with the crypto core only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateRecipientKey,
  generateSessionKey,
  oauthNonce,
  parseOtpTargetBundle,
  stamp,
  type SessionKey,
} from '../../src/crypto/index.js';
import { buildEncryptedOtpBundle, openExportBundle, verifySignedBundle } from '../../src/crypto/enclave.js';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer } from './helpers/flows.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

async function signedCall(method: string, path: string, body: unknown, key: SessionKey) {
  const first = await api.call(method, path, { body });
  expect(first.status, first.text).toBe(202);
  return api.call(method, path, { body, headers: { 'Service-Wallet-Signature': await stamp(first.json.payloadToSign, key), 'Request-Id': first.json.requestId } });
}

async function login(credentialId: string): Promise<SessionKey> {
  const trusted = [api.sandbox.enclavePublicKey];
  const c = await api.post(`/auth/credentials/${enc(credentialId)}/challenge`, {});
  const target = parseOtpTargetBundle(c.json.otpEncryptionTargetBundle);
  await verifySignedBundle(target, trusted);
  const key = await generateSessionKey();
  const body = {
    type: 'EMAIL_OTP',
    encryptedOtpBundle: await buildEncryptedOtpBundle({ targetBundle: c.json.otpEncryptionTargetBundle, otpCode: '000000', sessionPublicKeyHex: key.publicKeyHex, trustedKeys: trusted }),
  };
  const leg1 = await api.post(`/auth/credentials/${enc(credentialId)}/verify`, body);
  expect(leg1.status, leg1.text).toBe(202);
  const leg2 = await api.post(`/auth/credentials/${enc(credentialId)}/verify`, body, {
    headers: { 'Service-Wallet-Signature': await stamp(leg1.json.payloadToSign, key), 'Request-Id': leg1.json.requestId },
  });
  expect(leg2.status, leg2.text).toBe(200);
  return key;
}

describe('src/crypto ↔ sandbox', () => {
  it('OTP bundle, WebCrypto stamps (P1363 → DER) and signed actions interoperate', async () => {
    const w = await createCustomer(api);
    const key = await login(w.email.id);
    for (let i = 0; i < 10; i += 1) {
      const r = await signedCall('PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { nickname: `n${i}` }, key);
      expect(r.status, r.text).toBe(200);
    }
  });

  it('export bundles open with the crypto core and verify against the enclave key', async () => {
    const w = await createCustomer(api);
    const key = await login(w.email.id);
    const recipient = await generateRecipientKey();
    const r = await signedCall('POST', `/internal-accounts/${enc(w.wallet.id)}/export`, { clientPublicKey: recipient.publicKeyUncompressedHex }, key);
    expect(r.status, r.text).toBe(200);
    const opened = await openExportBundle({
      bundle: r.json.encryptedWalletCredentials,
      recipientKey: { privateKey: recipient.privateKey, publicKey: recipient.publicKey },
      trustedKeys: [api.sandbox.enclavePublicKey],
    });
    expect(opened.mnemonic.split(' ')).toHaveLength(12);
    await expect(
      openExportBundle({ bundle: r.json.encryptedWalletCredentials, recipientKey: { privateKey: recipient.privateKey, publicKey: recipient.publicKey }, trustedKeys: [(await generateSessionKey()).publicKeyUncompressedHex] }),
    ).rejects.toMatchObject({ code: 'BUNDLE_SIGNER_UNTRUSTED' });
  });

  it("the crypto core's oauthNonce is the nonce the sandbox checks", async () => {
    const w = await createCustomer(api);
    const key = await login(w.email.id);
    const email = `interop-${Date.now()}@example.com`;
    const reg = (await api.post('/sandbox/oauth/token', { email, nonce: 'reg' }, { auth: false })).json.oidcToken;
    const added = await signedCall('POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: reg }, key);
    expect(added.status).toBe(201);
    const next = await generateSessionKey();
    const token = (await api.post('/sandbox/oauth/token', { email, nonce: await oauthNonce(next.publicKeyHex) }, { auth: false })).json.oidcToken;
    const r = await api.post(`/auth/credentials/${enc(added.json.id)}/verify`, { type: 'OAUTH', oidcToken: token, clientPublicKey: next.publicKeyHex });
    expect(r.status, r.text).toBe(200);
  });
});
