import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CLIENT_ID, DEFAULT_OAUTH_CLIENT_ID } from '../../src/sandbox/index.js';
import vectors from '../../../shared/vectors/wire-vectors.json' with { type: 'json' };
import { Api, enc, start } from './helpers/http.js';
import { openSealedKey, recipientKey } from './helpers/bundles.js';
import { createCustomer, otpLogin, signed } from './helpers/flows.js';
import { keyFromScalar, newKey } from './helpers/keys.js';

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.sandbox.close());

const nonce = (pub: string) => createHash('sha256').update(pub, 'utf8').digest('hex');
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${Buffer.from('sig').toString('base64url')}`;

async function token(email: string, n: string): Promise<string> {
  const r = await api.post('/sandbox/oauth/token', { email, nonce: n }, { auth: false });
  expect(r.status).toBe(200);
  return r.json.oidcToken;
}

async function withOauth(email = `oauth-${Math.random()}@example.com`) {
  const w = await createCustomer(api);
  const { key } = await otpLogin(api, w.email.id);
  const added = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await token(email, 'registration') }, key);
  expect(added.status, added.text).toBe(201);
  return { ...w, oauth: added.json, email };
}

describe('OAuth (wire-reference §5.2)', () => {
  it('the nonce rule matches the vector', () => {
    expect(nonce(vectors.oauthNonce.clientPublicKey)).toBe(vectors.oauthNonce.nonce);
  });

  it('sandbox tokens: iss google, aud the default OAuth client id (not the API client id), sub stable per email, fresh iat, the nonce', async () => {
    const t = await token('A@example.com', 'n1');
    const claims = JSON.parse(Buffer.from(t.split('.')[1] as string, 'base64url').toString());
    expect(DEFAULT_OAUTH_CLIENT_ID).not.toBe(DEFAULT_CLIENT_ID);
    expect(claims).toMatchObject({ iss: 'https://accounts.google.com', aud: DEFAULT_OAUTH_CLIENT_ID, email: 'A@example.com', nonce: 'n1', sub: expect.stringMatching(/^[0-9]{21}$/) });
    const again = JSON.parse(Buffer.from((await token('a@example.com', 'n2')).split('.')[1] as string, 'base64url').toString());
    expect(again.sub).toBe(claims.sub);
    expect((await api.post('/sandbox/oauth/token', { email: 'bad' }, { auth: false })).status).toBe(400);
  });

  it('adding an OAUTH credential records it with the email as nickname', async () => {
    const w = await withOauth('oauth-nick@example.com');
    expect(w.oauth).toMatchObject({ type: 'OAUTH', nickname: 'oauth-nick@example.com', accountId: w.wallet.id });
    const again = await api.post('/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await token('oauth-nick@example.com', 'x') });
    expect(again.status).toBe(400);
    expect(again.json.details.cause).toBe('OAUTH_CREDENTIAL_ALREADY_EXISTS');
  });

  it('verify with a fresh token whose nonce binds the key → 200 AuthSession in one call', async () => {
    const w = await withOauth();
    const key = newKey();
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(w.email, nonce(key.compressed)), clientPublicKey: key.compressed });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^Session:/), type: 'OAUTH', authMethodId: w.oauth.id });
    expect(r.json.encryptedSessionSigningKey).toBeUndefined();
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { privateEnabled: true }, key)).status).toBe(200);
  });

  it('a wrong nonce → 400 INVALID_INPUT (OIDC_NONCE_MISMATCH)', async () => {
    const w = await withOauth();
    const key = newKey();
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(w.email, nonce(newKey().compressed)), clientPublicKey: key.compressed });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'OIDC_NONCE_MISMATCH' } });
  });

  it('another identity → 400 INVALID_INPUT (OIDC_TOKEN_MISMATCH); a wrong audience too', async () => {
    const w = await withOauth();
    const key = newKey();
    const other = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token('someone-else@example.com', nonce(key.compressed)), clientPublicKey: key.compressed });
    expect(other.status).toBe(400);
    expect(other.json.details.cause).toBe('OIDC_TOKEN_MISMATCH');
    const aud = (await api.post('/sandbox/oauth/token', { email: w.email, nonce: nonce(key.compressed), aud: 'another-app' }, { auth: false })).json.oidcToken;
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: aud, clientPublicKey: key.compressed });
    expect(r.json.details.cause).toBe('OIDC_TOKEN_MISMATCH');
  });

  it('a token 60 s old → 400 INVALID_INPUT (OIDC_TOKEN_STALE)', async () => {
    const w = await withOauth();
    const key = newKey();
    const t = await token(w.email, nonce(key.compressed));
    api.sandbox.advanceClock(60);
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: t, clientPublicKey: key.compressed });
    expect(r.status).toBe(400);
    expect(r.json.details.cause).toBe('OIDC_TOKEN_STALE');
  });

  it('hand-made tokens: accounts.google.com is the same issuer; other issuers and malformed tokens → 400 INVALID_INPUT', async () => {
    const w = await withOauth();
    const key = newKey();
    const t = JSON.parse(Buffer.from((await token(w.email, 'x')).split('.')[1] as string, 'base64url').toString());
    const now = Math.floor(Date.parse((await api.get('/sandbox/clock')).json.now) / 1000);
    const verify = (oidcToken: unknown) => api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken, clientPublicKey: key.compressed });
    const ok = await verify(jwt({ ...t, iss: 'accounts.google.com', iat: now, nonce: nonce(key.compressed) }));
    expect(ok.status, ok.text).toBe(200);
    for (const bad of [
      'not-a-jwt',
      'a.b',
      `${b64({ alg: 'none' })}.${b64({ ...t, iat: now })}.`,
      `${b64({ alg: 'none' })}.${Buffer.from('not json').toString('base64url')}.c2ln`,
      jwt({ ...t, iss: 'https://evil.example.com', iat: now }),
      jwt({ ...t, iat: 'yesterday' }),
      jwt({ ...t, sub: 5 }),
      jwt({ ...t, aud: [] }),
    ]) {
      const r = await verify(bad);
      expect(r.status, bad).toBe(400);
      expect(r.json.code).toBe('INVALID_INPUT');
    }
    const expired = await verify(jwt({ ...t, iat: now, exp: now - 1, nonce: nonce(key.compressed) }));
    expect(expired.json.details.cause).toBe('OIDC_TOKEN_STALE');
  });

  it('an uncompressed clientPublicKey gives a legacy sealed session key (wire-reference §6)', async () => {
    const w = await withOauth();
    const recipient = await recipientKey();
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(w.email, nonce(recipient.publicKeyHex)), clientPublicKey: recipient.publicKeyHex });
    expect(r.status).toBe(200);
    expect(typeof r.json.encryptedSessionSigningKey).toBe('string');
    const opened = await openSealedKey(r.json.encryptedSessionSigningKey, recipient);
    expect(opened.scalar).toHaveLength(32);
    const sessionKey = keyFromScalar(opened.scalar, opened.publicKey);
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { nickname: 'legacy' }, sessionKey)).status).toBe(200);
    // Refreshing a legacy session with a new uncompressed key seals a new one.
    const next = await recipientKey();
    const refreshed = await signed(api, 'POST', `/auth/sessions/${enc(r.json.id)}/refresh`, { clientPublicKey: next.publicKeyHex }, sessionKey);
    expect(refreshed.status).toBe(201);
    const nextKey = await openSealedKey(refreshed.json.encryptedSessionSigningKey, next);
    expect((await signed(api, 'PATCH', `/internal-accounts/${enc(w.wallet.id)}`, { nickname: 'legacy2' }, keyFromScalar(nextKey.scalar, nextKey.publicKey))).status).toBe(200);
  });

  it('the sealed key decodes to 33-byte enc ‖ ciphertext ‖ tag of a 32-byte scalar (81 bytes)', async () => {
    const w = await withOauth();
    const recipient = await recipientKey();
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(w.email, nonce(recipient.publicKeyHex)), clientPublicKey: recipient.publicKeyHex });
    const { default: bs58check } = await import('bs58check');
    const raw = bs58check.decode(r.json.encryptedSessionSigningKey);
    expect(raw.length).toBe(vectors.credentialBundle.decodedLength);
    expect([2, 3]).toContain(raw[0]);
  });

  it('OAUTH has no challenge step; verify needs the right fields', async () => {
    const w = await withOauth();
    const c = await api.post(`/auth/credentials/${enc(w.oauth.id)}/challenge`, {});
    expect(c.status).toBe(400);
    expect(c.json.code).toBe('INVALID_INPUT');
    const r = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH' });
    expect(r.json.details.errors.map((e: any) => e.field).sort()).toEqual(['clientPublicKey', 'oidcToken']);
    const badKey = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', oidcToken: 'x', clientPublicKey: '04abc' });
    expect(badKey.json.details.errors[0].field).toBe('clientPublicKey');
    // A key that is not on the curve is listed together with the other bad fields, in one 400.
    const offCurve = vectors.invalidPoints[0]?.hex as string;
    const both = await api.post(`/auth/credentials/${enc(w.oauth.id)}/verify`, { type: 'OAUTH', clientPublicKey: offCurve });
    expect(both.status).toBe(400);
    expect(both.json.details.errors).toEqual([
      { field: 'oidcToken', constraint: 'REQUIRED', message: expect.any(String) },
      { field: 'clientPublicKey', constraint: 'FORMAT', message: expect.any(String) },
    ]);
  });
});

describe('the sandbox sign-in page', () => {
  it('GET shows a form (no platform auth), values escaped', async () => {
    const r = await api.get(`/sandbox/oauth/authorize?nonce=abc&redirect_uri=${encodeURIComponent('http://localhost:5173/cb')}&state=${encodeURIComponent('"><script>')}&email=a%40example.com`, { auth: false });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.text).toContain('<form method="post" action="authorize">');
    expect(r.text).toContain('value="a@example.com"');
    expect(r.text).not.toContain('"><script>');
  });

  it('POST redirects to redirect_uri#id_token=…&state=…', async () => {
    const key = newKey();
    const form = new URLSearchParams({ nonce: nonce(key.compressed), redirect_uri: 'http://localhost:5173/callback?x=1', state: 's-1', email: 'page@example.com' });
    const res = await fetch(`${api.url}/sandbox/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}${location.search}`).toBe('http://localhost:5173/callback?x=1');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('state')).toBe('s-1');
    const claims = JSON.parse(Buffer.from((fragment.get('id_token') as string).split('.')[1] as string, 'base64url').toString());
    expect(claims).toMatchObject({ email: 'page@example.com', nonce: nonce(key.compressed), iss: 'https://accounts.google.com' });
  });

  it('refuses a bad redirect_uri or a missing nonce with 400', async () => {
    const a = await api.get('/sandbox/oauth/authorize?nonce=abc&redirect_uri=javascript:alert(1)', { auth: false });
    expect(a.status).toBe(400);
    expect(a.json.details.errors[0].field).toBe('redirect_uri');
    const b = await api.get(`/sandbox/oauth/authorize?redirect_uri=${encodeURIComponent('http://x/cb')}`, { auth: false });
    expect(b.json.details.errors[0].field).toBe('nonce');
    const c = await fetch(`${api.url}/sandbox/oauth/authorize`, { method: 'POST', body: new URLSearchParams({ nonce: 'n', redirect_uri: 'http://x/cb' }), redirect: 'manual' });
    expect(c.status).toBe(400);
  });
});

describe('OAuth audience: bound at registration, matched at login, never the API client id (issue 25)', () => {
  const APP_AUDIENCE = '1234567890-app.apps.googleusercontent.com';
  async function appToken(target: Api, claims: { sub: string; nonce: string | undefined; aud?: string }): Promise<string> {
    const now = Date.parse((await target.get('/sandbox/clock')).json.now) / 1000;
    const iat = Math.floor(now);
    return jwt({ iss: 'https://accounts.google.com', aud: claims.aud ?? APP_AUDIENCE, azp: claims.aud ?? APP_AUDIENCE, sub: claims.sub, email: `${claims.sub}@example.com`, nonce: claims.nonce, iat, exp: iat + 3600 });
  }

  it("an independent token with the app's own audience (no nonce at registration) registers and logs in; another audience at login is refused", async () => {
    const app = await start({ oauthClientIds: [APP_AUDIENCE] });
    const api = app;
    onTestFinished(() => app.sandbox.close());
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const sub = `app-${Math.random().toString(36).slice(2)}`;
    const added = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await appToken(api, { sub, nonce: undefined }) }, key);
    expect(added.status, added.text).toBe(201);
    const login = newKey();
    const ok = await api.post(`/auth/credentials/${enc(added.json.id)}/verify`, { type: 'OAUTH', oidcToken: await appToken(api, { sub, nonce: nonce(login.compressed) }), clientPublicKey: login.compressed });
    expect(ok.status, ok.text).toBe(200);
    const other = newKey();
    const foreign = await api.post(`/auth/credentials/${enc(added.json.id)}/verify`, { type: 'OAUTH', oidcToken: await appToken(api, { sub, nonce: nonce(other.compressed), aud: 'another-app' }), clientPublicKey: other.compressed });
    expect(foreign.status).toBe(400);
    expect(foreign.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'OIDC_TOKEN_MISMATCH' } });
  });

  it('with no oauthClientIds configured, no audience is bound: every registration is refused (issue 34)', async () => {
    const none = await start({ oauthClientIds: [] });
    onTestFinished(() => none.sandbox.close());
    const w = await createCustomer(none);
    for (const aud of [APP_AUDIENCE, 'sandbox-client', DEFAULT_OAUTH_CLIENT_ID]) {
      const r = await none.post('/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await appToken(none, { sub: `s-${aud}`, nonce: 'r', aud }) });
      expect(r.status, r.text).toBe(400);
      expect(r.json.details.errors[0]).toMatchObject({ field: 'oidcToken' });
    }
  });

  it('by default the stand-in provider token registers and its audience is the default OAuth client id', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    const oidcToken = (await api.post('/sandbox/oauth/token', { email: `d-${Math.random()}@example.com`, nonce: 'n' }, { auth: false })).json.oidcToken;
    const added = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken }, key);
    expect(added.status, added.text).toBe(201);
  });

  it('with oauthClientIds configured, a registration token must name one of them (the API client id is not one)', async () => {
    const strict = await start({ oauthClientIds: [APP_AUDIENCE] });
    try {
      const w = await createCustomer(strict);
      const { key } = await otpLogin(strict, w.email.id);
      const refused = await strict.post('/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await appToken(strict, { sub: 's1', nonce: 'r', aud: 'sandbox-client' }) });
      expect(refused.status).toBe(400);
      expect(refused.json.details.errors[0]).toMatchObject({ field: 'oidcToken' });
      const accepted = await signed(strict, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: w.wallet.id, oidcToken: await appToken(strict, { sub: 's2', nonce: 'r', aud: APP_AUDIENCE }) }, key);
      expect(accepted.status, accepted.text).toBe(201);
    } finally {
      await strict.sandbox.close();
    }
  });
});
