/**
 * The probes of issue 15: for each point, the requests a second client sent to find what the
 * sandbox accepted though the service would most plausibly refuse it. Each probe returns the
 * answers that matter (labelled), so the tests assert them and a report can print them.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_OAUTH_CLIENT_ID } from '../../../src/sandbox/index.js';
import { sealOtp } from './bundles.js';
import { createCustomer, otpLogin, type Wallet } from './flows.js';
import { enc, type Answer, type Api } from './http.js';
import { derSign, newKey, stamp, stampWith, type TestKey } from './keys.js';
import { SoftAuthenticator } from './webauthn.js';

export type Probe = (api: Api) => Promise<Record<string, Answer>>;

const SIG = 'Service-Wallet-Signature';
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nonceOf = (pub: string) => createHash('sha256').update(pub, 'utf8').digest('hex');
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** A JWT-shaped OIDC token as the sandbox accepts them (dummy signature). */
export function oidcJwt(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT' }): string {
  return `${b64(header)}.${b64(claims)}.${Buffer.from('sig').toString('base64url')}`;
}

async function sandboxNow(api: Api): Promise<number> {
  const r = await api.get('/sandbox/clock');
  return Date.parse(r.headers.get('Date') ?? '') || Date.now();
}

/** Fresh, well-formed claims for `email` bound to `nonce` (what the stand-in IdP would issue). */
async function claimsFor(api: Api, email: string, nonce: string | undefined): Promise<Record<string, unknown>> {
  const iat = Math.floor((await sandboxNow(api)) / 1000);
  return {
    iss: 'https://accounts.google.com',
    aud: DEFAULT_OAUTH_CLIENT_ID,
    sub: `sub-${email}`,
    email,
    ...(nonce !== undefined ? { nonce } : {}),
    iat,
    exp: iat + 3600,
  };
}

/** Both legs of a signed action, the second only when the first answered 202; the last answer. */
export async function signedAnswer(api: Api, method: string, path: string, body: unknown, key: TestKey | 'magic'): Promise<Answer> {
  const first = await api.call(method, path, body === undefined ? {} : { body });
  if (first.status !== 202) return first;
  const signature = key === 'magic' ? 'sandbox-valid-signature' : stamp(first.json.payloadToSign, key);
  return api.call(method, path, { ...(body === undefined ? {} : { body }), headers: { [SIG]: signature, 'Request-Id': first.json.requestId } });
}

async function loggedIn(api: Api): Promise<Wallet & { key: TestKey }> {
  const w = await createCustomer(api);
  const { key } = await otpLogin(api, w.email.id);
  return { ...w, key };
}

async function withOauth(api: Api): Promise<Wallet & { key: TestKey; oauth: any; oauthEmail: string }> {
  const w = await loggedIn(api);
  const email = `oauth-${Math.random()}@example.com`;
  const token = oidcJwt(await claimsFor(api, email, 'registration'));
  const added = await signedAnswer(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: token }, w.key);
  if (added.status !== 201) throw new Error(`OAuth credential: ${added.status} ${added.text}`);
  return { ...w, oauth: added.json, oauthEmail: email };
}

const randomChallenge = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

/** Issue 15's ten points, in order. The labels name what each answer is. */
export const PROBES: Record<string, Probe> = {
  '1 retry body compared as bytes': async (api) => {
    const w = await loggedIn(api);
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const retry = async (first: string, second: string) => {
      const leg1 = await api.call('PATCH', path, { raw: first, headers: JSON_TYPE });
      return api.call('PATCH', path, { raw: second, headers: { ...JSON_TYPE, [SIG]: stamp(leg1.json.payloadToSign, w.key), 'Request-Id': leg1.json.requestId } });
    };
    return {
      'whitespace changed': await retry('{"privateEnabled":true}', '{ "privateEnabled": true }'),
      'key order changed': await retry('{"privateEnabled":true,"nickname":"a"}', '{"nickname":"a","privateEnabled":true}'),
      'duplicate key added': await retry('{"privateEnabled":true}', '{"privateEnabled":false,"privateEnabled":true}'),
    };
  },

  '2 only JSON bodies': async (api) => {
    const body = () => JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId: `pc-${Math.random()}`, currencies: ['USD'] });
    return {
      'text/plain': await api.call('POST', '/customers', { raw: body(), headers: { 'Content-Type': 'text/plain' } }),
      'application/xml': await api.call('POST', '/customers', { raw: body(), headers: { 'Content-Type': 'application/xml' } }),
      'no Content-Type': await api.call('POST', '/customers', { raw: new Uint8Array(Buffer.from(body())) }),
    };
  },

  '3 OAuth registration checks the token': async (api) => {
    const w = await loggedIn(api);
    const add = async (claims: Record<string, unknown>) =>
      signedAnswer(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: oidcJwt(claims) }, w.key);
    const good = await claimsFor(api, `r-${Math.random()}@example.com`, 'registration');
    const iat = good.iat as number;
    return {
      'expired token, no nonce': await add({ ...good, nonce: undefined, iat: iat - 7200, exp: iat - 3600 }),
      'expired token': await add({ ...good, sub: `${good.sub}-1`, iat: iat - 7200, exp: iat - 3600 }),
      'the API client id as audience': await add({ ...good, sub: `${good.sub}-2`, aud: 'sandbox-client' }),
      'no nonce': await add({ ...good, sub: `${good.sub}-3`, nonce: undefined }),
      'iat an hour old, not expired': await add({ ...good, sub: `${good.sub}-4`, iat: iat - 3600 }),
    };
  },

  '4 OAuth verify token freshness and replay': async (api) => {
    const w = await withOauth(api);
    const verify = (token: string, key: TestKey) =>
      api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: token, clientPublicKey: key.compressed });
    const key = newKey();
    const token = oidcJwt(await claimsFor(api, w.oauthEmail, nonceOf(key.compressed)));
    const first = await verify(token, key);
    const replay = await verify(token, key);
    const k2 = newKey();
    const noExp = { ...(await claimsFor(api, w.oauthEmail, nonceOf(k2.compressed))), exp: undefined };
    const k3 = newKey();
    const future = await claimsFor(api, w.oauthEmail, nonceOf(k3.compressed));
    const k4 = newKey();
    return {
      'first use': first,
      'replayed within 60 s': replay,
      'no exp': await verify(oidcJwt(noExp), k2),
      'iat 50 s in the future': await verify(oidcJwt({ ...future, iat: (future.iat as number) + 50 }), k3),
      'alg none': await verify(oidcJwt(await claimsFor(api, w.oauthEmail, nonceOf(k4.compressed)), { alg: 'none', typ: 'JWT' }), k4),
    };
  },

  '5 one key, one session': async (api) => {
    const w = await withOauth(api);
    // Refresh a session onto its own key.
    const s = await otpLogin(api, w.email.id);
    const sameKeyRefresh = await signedAnswer(api, 'POST', `/auth/sessions/${enc(s.session.id)}/refresh`, { clientPublicKey: s.key.compressed }, s.key);
    // OAuth login with the key of an active session.
    const token = oidcJwt(await claimsFor(api, w.oauthEmail, nonceOf(w.key.compressed)));
    const oauthSameKey = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: token, clientPublicKey: w.key.compressed });
    return { 'refresh onto the same key': sameKeyRefresh, 'OAuth login with an active session key': oauthSameKey };
  },

  '6 quote execute replay needs the stamp': async (api) => {
    const alice = await loggedIn(api);
    const bob = await createCustomer(api);
    await api.post(`/sandbox/internal-accounts/${enc(alice.wallet.id)}/fund`, { amount: 10_000 });
    const quote = await api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: alice.wallet.id },
      destination: { destinationType: 'ACCOUNT', accountId: bob.wallet.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
    });
    const payload = quote.json.paymentInstructions[0].accountOrWalletInfo.payloadToSign;
    const path = `/quotes/${enc(quote.json.id)}/execute`;
    const executed = await api.post(path, undefined, { headers: { [SIG]: stamp(payload, alice.key), 'Idempotency-Key': 'probe-6' } });
    const replay = await api.post(path, undefined, { headers: { 'Idempotency-Key': 'probe-6' } });
    return { 'signed execute': executed, 'replay with the key, no stamp': replay };
  },

  '7 export to a fresh key only': async (api) => {
    const w = await loggedIn(api);
    const path = `/internal-accounts/${enc(w.wallet.id)}/export`;
    return { 'export sealed to the signing session key': await signedAnswer(api, 'POST', path, { clientPublicKey: w.key.uncompressed }, w.key) };
  },

  '8 stamp JSON and hex as the spec allows': async (api) => {
    const w = await loggedIn(api);
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const withStamp = async (make: (payload: string) => string) => {
      const leg1 = await api.patch(path, { privateEnabled: true });
      return api.patch(path, { privateEnabled: true }, { headers: { [SIG]: make(leg1.json.payloadToSign), 'Request-Id': leg1.json.requestId } });
    };
    const otp = async () => {
      const c = await api.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
      const sealed = JSON.parse(await sealOtp(c.json.otpEncryptionTargetBundle, '000000', newKey().compressed));
      const upper = JSON.stringify({ encappedPublic: sealed.encappedPublic.toUpperCase(), ciphertext: sealed.ciphertext.toUpperCase() });
      return api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: upper });
    };
    const reordered = (p: string) => Buffer.from(JSON.stringify({ signature: derSign(w.key, p), scheme: 'SIGNATURE_SCHEME_TK_API_P256', publicKey: w.key.compressed })).toString('base64url');
    const spaced = (p: string) => Buffer.from(JSON.stringify({ publicKey: w.key.compressed, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: derSign(w.key, p) }, null, 1)).toString('base64url');
    const twice = (p: string) => Buffer.from(`{"publicKey":"${w.key.compressed}","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"${derSign(w.key, p)}","publicKey":"${w.key.compressed}"}`).toString('base64url');
    return {
      'uppercase signature hex': await withStamp((p) => stampWith(w.key.compressed, derSign(w.key, p).toUpperCase())),
      'uppercase publicKey hex': await withStamp((p) => stampWith(w.key.compressed.toUpperCase(), derSign(w.key, p))),
      'keys in another order': await withStamp(reordered),
      'JSON whitespace': await withStamp(spaced),
      'stamp JSON with an extra field': await withStamp((p) =>
        Buffer.from(JSON.stringify({ publicKey: w.key.compressed, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: derSign(w.key, p), extra: 1 })).toString('base64url'),
      ),
      'stamp JSON with a field twice': await withStamp(twice),
      'uppercase hex in the OTP bundle': await otp(),
    };
  },

  '9 uniqueness across customers, userHandle': async (api) => {
    const a = await loggedIn(api);
    const sameEmail = await api.post('/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `pc-${Math.random()}`,
      email: a.customer.email,
      currencies: ['USD'],
    });
    // A phone tied to A's SMS_OTP credential, then an SMS_OTP credential on B with the same phone.
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    await api.patch(`/customers/${enc(a.customer.id)}`, { phoneNumber: phone });
    await signedAnswer(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, a.key);
    const b = await loggedIn(api);
    await api.patch(`/customers/${enc(b.customer.id)}`, { phoneNumber: phone });
    const samePhone = await signedAnswer(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: b.wallet.id }, b.key);
    // One passkey credentialId on two wallets.
    const auth = new SoftAuthenticator('http://localhost:5173', 'localhost');
    const register = async (w: Wallet & { key: TestKey }) => {
      const challenge = randomChallenge();
      return signedAnswer(api, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'key', challenge, attestation: auth.register(challenge) }, w.key);
    };
    const onA = await register(a);
    const onB = await register(b);
    // Two logins with the passkey, the second with another userHandle.
    const login = async (userHandle: string) => {
      const c = await api.post(`/auth/credentials/${enc(onA.json.id)}/challenge`, { clientPublicKey: newKey().compressed });
      return api.post(`/auth/credentials/${enc(onA.json.id)}/verify`, { type: 'PASSKEY', assertion: { ...auth.assert(c.json.challenge), userHandle } }, { headers: { 'Request-Id': c.json.requestId } });
    };
    const handle = Buffer.from(a.wallet.id).toString('base64url');
    return {
      'customer with an email tied to another EMAIL_OTP': sameEmail,
      'SMS_OTP with a phone tied to another SMS_OTP': samePhone,
      'passkey credentialId already on another wallet': onB,
      'passkey login, userHandle of this wallet': await login(handle),
      'passkey login, another userHandle': await login(Buffer.from(b.wallet.id).toString('base64url')),
    };
  },

  '10 sandbox-valid-signature stands in for any allowed stamp': async (api) => {
    const w = await createCustomer(api);
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const noSession = await signedAnswer(api, 'PATCH', path, { privateEnabled: true }, 'magic');
    // Two credentials, sessions only on the one being deleted.
    const s = await loggedIn(api);
    const oauthToken = oidcJwt(await claimsFor(api, `d-${Math.random()}@example.com`, 'registration'));
    const added = await signedAnswer(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: s.wallet.id, oidcToken: oauthToken }, s.key);
    const deleteOwn = await signedAnswer(api, 'DELETE', `/auth/credentials/${enc(s.email.id)}`, undefined, 'magic');
    void added;
    return { 'signed action on a wallet without any session': noSession, 'delete a credential with only its own sessions': deleteOwn };
  },
};
