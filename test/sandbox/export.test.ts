import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { Api, enc, start } from './helpers/http.js';
import { bundleData, openExport, recipientKey, verifyBundle } from './helpers/bundles.js';
import { createCustomer, otpLogin, retryHeaders, signed } from './helpers/flows.js';
import { newKey } from './helpers/keys.js';
import { entropyToMnemonic } from '../../src/sandbox/crypto/bip39.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

describe('wallet export (wire-reference §8.6)', () => {
  it('signed export → 200 {id, encryptedWalletCredentials}: enclave-signed, HPKE to the client key, a valid BIP-39 mnemonic', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const recipient = await recipientKey();
    const path = `/internal-accounts/${enc(w.wallet.id)}/export`;
    const r = await signed(api, 'POST', path, { clientPublicKey: recipient.publicKeyHex }, key);
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json)).toEqual(['id', 'encryptedWalletCredentials']);
    expect(r.json.id).toBe(w.wallet.id);
    const bundle = JSON.parse(r.json.encryptedWalletCredentials);
    expect(Object.keys(bundle)).toEqual(['version', 'data', 'dataSignature', 'enclaveQuorumPublic']);
    expect(bundle.enclaveQuorumPublic).toBe(api.sandbox.enclavePublicKey);
    expect(verifyBundle(bundle)).toBe(true);
    expect(Object.keys(bundleData(bundle))).toEqual(['encappedPublic', 'ciphertext', 'organizationId']);
    const { mnemonic, organizationId } = await openExport(r.json.encryptedWalletCredentials, recipient);
    expect(mnemonic.split(' ')).toHaveLength(12);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);
    const again = await signed(api, 'POST', path, { clientPublicKey: (await recipientKey()).publicKeyHex }, key);
    expect(JSON.parse(again.json.encryptedWalletCredentials).data).not.toBe(bundle.data);
    const payload = JSON.parse((await api.post(path, { clientPublicKey: (await recipientKey()).publicKeyHex })).json.payloadToSign);
    expect(payload).toMatchObject({ type: 'ACTIVITY_TYPE_EXPORT_WALLET', organizationId });
    // Each wallet has its own mnemonic.
    const other = await createCustomer(api);
    const otherKey = (await otpLogin(api, other.email.id)).key;
    const otherRecipient = await recipientKey(); // a fresh key per export (wire-reference §8.6)
    const o = await signed(api, 'POST', `/internal-accounts/${enc(other.wallet.id)}/export`, { clientPublicKey: otherRecipient.publicKeyHex }, otherKey);
    expect((await openExport(o.json.encryptedWalletCredentials, otherRecipient)).mnemonic).not.toBe(mnemonic);
  });

  it('a compressed or invalid clientPublicKey → 400 INVALID_INPUT; non-wallet → 400; unknown → 404', async () => {
    const w = await createCustomer(api);
    const path = `/internal-accounts/${enc(w.wallet.id)}/export`;
    for (const body of [{ clientPublicKey: newKey().compressed }, { clientPublicKey: `04${'00'.repeat(64)}` }, {}, { clientPublicKey: 1 }]) {
      const r = await api.post(path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.details.errors[0].field).toBe('clientPublicKey');
    }
    const usd = w.accounts.find((a: any) => a.type === 'INTERNAL_FIAT');
    expect((await api.post(`/internal-accounts/${enc(usd.id)}/export`, { clientPublicKey: newKey().uncompressed })).status).toBe(400);
    expect((await api.post('/internal-accounts/InternalAccount:x/export', { clientPublicKey: newKey().uncompressed })).status).toBe(404);
  });

  it('the export retry must be signed by a session of that wallet with the same body', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const path = `/internal-accounts/${enc(w.wallet.id)}/export`;
    const body = { clientPublicKey: newKey().uncompressed };
    const first = await api.post(path, body);
    expect(first.status).toBe(202);
    expect((await api.post(path, body, { headers: retryHeaders(first, newKey()) })).json.code).toBe('WALLET_SIGNATURE_INVALID');
    expect((await api.post(path, { clientPublicKey: newKey().uncompressed }, { headers: retryHeaders(first, key) })).json.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    expect((await api.post(path, body, { headers: retryHeaders(first, key) })).status).toBe(200);
  });

  it('entropyToMnemonic matches the BIP-39 reference vectors', async () => {
    expect(await entropyToMnemonic(new Uint8Array(16))).toBe('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    expect(await entropyToMnemonic(new Uint8Array(16).fill(0x7f))).toBe('legal winner thank year wave sausage worth useful legal winner thank yellow');
    expect(await entropyToMnemonic(new Uint8Array(32).fill(0xff))).toBe('zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote');
  });
});
