// Issue 15: the sandbox as strict as the service; issue 34: and no stricter than the spec (points 3, 8, 10). One test per point of the issue, each over HTTP
// with the probe that found the leniency (test/sandbox/helpers/probes.ts); the decisions are in
// src/sandbox/README.md ("Strictness").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, start } from './helpers/http.js';
import { PROBES } from './helpers/probes.js';
import type { Answer } from './helpers/http.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

const probe = (name: string) => (PROBES[name] as (api: Api) => Promise<Record<string, Answer>>)(api);
const refused = (a: Answer | undefined, status: number, code: string) => {
  expect(a?.status, a?.text).toBe(status);
  expect(a?.json?.code).toBe(code);
};

describe('the sandbox refuses what the service would (issue 15)', () => {
  it('1. the retry body must be byte-identical: whitespace, key order → 401 WALLET_SIGNATURE_BODY_MISMATCH; duplicate keys → 400', async () => {
    const r = await probe('1 retry body compared as bytes');
    refused(r['whitespace changed'], 401, 'WALLET_SIGNATURE_BODY_MISMATCH');
    refused(r['key order changed'], 401, 'WALLET_SIGNATURE_BODY_MISMATCH');
    // A body with a key twice is refused on any call, a first leg included.
    refused(r['duplicate key added'], 400, 'INVALID_INPUT');
  });

  it('2. a body that is not application/json → 400 INVALID_INPUT naming Content-Type', async () => {
    const r = await probe('2 only JSON bodies');
    for (const a of Object.values(r)) {
      refused(a, 400, 'INVALID_INPUT');
      expect(a.json.details.errors).toEqual([expect.objectContaining({ field: 'Content-Type', constraint: 'FORMAT' })]);
    }
  });

  it('3. registering an OAuth credential needs only an unexpired token naming a platform OAuth client id (issue 34)', async () => {
    const r = await probe('3 OAuth registration checks the token');
    refused(r['expired token, no nonce'], 400, 'INVALID_INPUT');
    refused(r['expired token'], 400, 'INVALID_INPUT');
    refused(r['the API client id as audience'], 400, 'INVALID_INPUT');
    // No nonce, no 60 s freshness at registration: those are login rules (wire §5.2).
    expect(r['no nonce']?.status, r['no nonce']?.text).toBe(201);
    expect(r['iat an hour old, not expired']?.status, r['iat an hour old, not expired']?.text).toBe(201);
  });

  it('4. a verify token is single use, needs exp, no iat in the future, no alg none', async () => {
    const r = await probe('4 OAuth verify token freshness and replay');
    expect(r['first use']?.status, r['first use']?.text).toBe(200);
    refused(r['replayed within 60 s'], 400, 'INVALID_INPUT');
    refused(r['iat 50 s in the future'], 400, 'INVALID_INPUT');
    refused(r['no exp'], 400, 'INVALID_INPUT');
    refused(r['alg none'], 400, 'INVALID_INPUT');
  });

  it('5. a key backs one session only: refresh onto the same key, OAuth with an active key → 400 INVALID_INPUT', async () => {
    const r = await probe('5 one key, one session');
    for (const a of Object.values(r)) {
      refused(a, 400, 'INVALID_INPUT');
      expect(a.json.details.errors[0]).toMatchObject({ field: 'clientPublicKey', constraint: 'CONFLICT' });
    }
  });

  it('6. an idempotent replay of quote execute still needs the stamp → 401 WALLET_SIGNATURE_MISSING', async () => {
    const r = await probe('6 quote execute replay needs the stamp');
    expect(r['signed execute']?.status, r['signed execute']?.text).toBe(200);
    refused(r['replay with the key, no stamp'], 401, 'WALLET_SIGNATURE_MISSING');
  });

  it('7. export to a session key (not fresh) → 400 INVALID_INPUT on clientPublicKey', async () => {
    const r = await probe('7 export to a fresh key only');
    const a = r['export sealed to the signing session key'];
    refused(a, 400, 'INVALID_INPUT');
    expect(a?.json.details.errors[0]).toMatchObject({ field: 'clientPublicKey', constraint: 'CONFLICT' });
  });

  it('8. stamps in any key order, JSON whitespace and hex case (spec §5.4); a fourth or repeated field is malformed (issue 34)', async () => {
    const r = await probe('8 stamp JSON and hex as the spec allows');
    for (const name of ['uppercase signature hex', 'uppercase publicKey hex', 'keys in another order', 'JSON whitespace']) {
      expect(r[name]?.status, `${name}: ${r[name]?.text}`).toBe(200);
    }
    refused(r['stamp JSON with an extra field'], 401, 'WALLET_SIGNATURE_MALFORMED');
    refused(r['stamp JSON with a field twice'], 401, 'WALLET_SIGNATURE_MALFORMED');
    // Spec §4.5: the bundle is "JSON of encappedPublic, ciphertext": hex of any case opens.
    expect(r['uppercase hex in the OTP bundle']?.status, r['uppercase hex in the OTP bundle']?.text).toBe(202);
  });

  it('9. OTP contacts and passkey ids are unique across wallets; userHandle must name the wallet', async () => {
    const r = await probe('9 uniqueness across customers, userHandle');
    refused(r['customer with an email tied to another EMAIL_OTP'], 409, 'EMAIL_OTP_EMAIL_ALREADY_EXISTS');
    refused(r['SMS_OTP with a phone tied to another SMS_OTP'], 409, 'SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS');
    refused(r['passkey credentialId already on another wallet'], 400, 'PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    expect(r['passkey login, userHandle of this wallet']?.status, r['passkey login, userHandle of this wallet']?.text).toBe(200);
    refused(r['passkey login, another userHandle'], 401, 'WALLET_SIGNATURE_INVALID');
  });

  it('10. sandbox-valid-signature is accepted for any signed account action, with or without a session (spec §5.4; issue 34)', async () => {
    const r = await probe('10 sandbox-valid-signature stands in for any allowed stamp');
    expect(r['signed action on a wallet without any session']?.status, r['signed action on a wallet without any session']?.text).toBe(200);
    expect(r['delete a credential with only its own sessions']?.status, r['delete a credential with only its own sessions']?.text).toBe(204);
  });
});
