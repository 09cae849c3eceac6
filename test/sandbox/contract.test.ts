// Every route of the embedded-wallet surface, walked in each profile, against the contract written
// from the spec and the wire reference (src/sandbox/contract.ts): an answer field the contract does
// not define fails the test (`service`, `spec-minimal`); `spec-minimal` sends no optional field the
// contract does not keep; the `sandbox` profile adds only its listed SANDBOX_ADDITIONS.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT, SANDBOX_ADDITIONS, missingFields, undefinedFields, type ShapeName } from '../../src/sandbox/contract.js';
import type { SandboxProfile } from '../../src/sandbox/index.js';
import { findEmbeddedWallet } from '../../src/testing/client.js';
import { recipientKey, sealOtp } from './helpers/bundles.js';
import { type Answer, Api, enc, start } from './helpers/http.js';
import { newKey, stamp, type TestKey } from './helpers/keys.js';
import { SoftAuthenticator } from './helpers/webauthn.js';

const ORIGIN = 'https://wallet.example';
const RP_ID = 'wallet.example';

interface Seen {
  route: string;
  shape: ShapeName;
  status: number;
  body: unknown;
}

const nonce = (pub: string) => createHash('sha256').update(pub, 'utf8').digest('hex');

/** Runs every route once (the happy path and a few refusals) and records each answer with the shape the contract gives it. */
async function walk(api: Api): Promise<Seen[]> {
  const seen: Seen[] = [];
  const see = (route: string, shape: ShapeName, a: Answer, status: number): Answer => {
    expect(a.status, `${route}: ${a.text}`).toBe(status);
    seen.push({ route, shape, status: a.status, body: a.json });
    return a;
  };
  /** Both legs of a signed retry, each recorded. */
  const signed = async (route: string, method: string, path: string, body: unknown, key: TestKey, shape: ShapeName, status: number): Promise<Answer> => {
    const first = see(`${route} (leg 1)`, 'Challenge', await api.call(method, path, body === undefined ? {} : { body }), 202);
    const retry = await api.call(method, path, {
      ...(body === undefined ? {} : { body }),
      headers: { 'Service-Wallet-Signature': stamp(first.json.payloadToSign, key), 'Request-Id': first.json.requestId },
    });
    if (status === 204) {
      expect(retry.status, retry.text).toBe(204);
      return retry;
    }
    return see(`${route} (signed)`, shape, retry, status);
  };

  const id = randomUUID();
  const email = `walk-${id}@example.com`;
  const customer = see('POST /customers', 'Customer', await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${id}`, email, phoneNumber: `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`, fullName: 'Walk', currencies: ['USD'] }), 201).json;
  see('GET /customers/{id}', 'Customer', await api.get(`/customers/${enc(customer.id)}`), 200);
  const accounts = see('GET /internal-account', 'InternalAccountList', await api.get(`/internal-account?customerId=${enc(customer.id)}`), 200).json.data;
  // The spec's rule (spec-minimal sends no account `type`): src/testing/client.ts.
  const walletId = await findEmbeddedWallet(accounts, async (id) => (await api.get(`/auth/credentials?accountId=${enc(id)}`)).status === 200);
  const wallet = accounts.find((a: any) => a.id === walletId);
  const fiat = accounts.find((a: any) => a.id !== walletId);
  const creds = see('GET /auth/credentials', 'CredentialList', await api.get(`/auth/credentials?accountId=${enc(wallet.id)}`), 200).json.data;
  const emailCred = creds.find((c: any) => c.type === 'EMAIL_OTP');

  // Email OTP login.
  const key = newKey();
  const c = see('POST /auth/credentials/{id}/challenge (OTP)', 'OtpChallenge', await api.post(`/auth/credentials/${enc(emailCred.id)}/challenge`, {}), 200);
  const otpBody = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '000000', key.compressed) };
  const session = (await signed('POST /auth/credentials/{id}/verify (OTP)', 'POST', `/auth/credentials/${enc(emailCred.id)}/verify`, otpBody, key, 'AuthSession', 200)).json;
  see('GET /auth/sessions', 'SessionList', await api.get(`/auth/sessions?accountId=${enc(wallet.id)}`), 200);

  // Signed actions.
  await signed('PATCH /internal-accounts/{id}', 'PATCH', `/internal-accounts/${enc(wallet.id)}`, { privateEnabled: true }, key, 'InternalAccount', 200);
  const recipient = await recipientKey();
  await signed('POST /internal-accounts/{id}/export', 'POST', `/internal-accounts/${enc(wallet.id)}/export`, { clientPublicKey: recipient.publicKeyHex }, key, 'Export', 200);
  const next = newKey();
  const refreshed = (await signed('POST /auth/sessions/{id}/refresh', 'POST', `/auth/sessions/${enc(session.id)}/refresh`, { clientPublicKey: next.compressed }, key, 'AuthSession', 201)).json;

  // Credentials: SMS OTP, OAuth (and its login, legacy flow too), passkey (and its login).
  await signed('POST /auth/credentials (SMS_OTP)', 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }, next, 'AuthMethodResponse', 201);
  const token = async (n: string) => (await api.post('/sandbox/oauth/token', { email, nonce: n }, { auth: false })).json.oidcToken as string;
  const oauth = (await signed('POST /auth/credentials (OAUTH)', 'POST', '/auth/credentials', { type: 'OAUTH', accountId: wallet.id, oidcToken: await token('registration') }, next, 'AuthMethodResponse', 201)).json;
  const oauthKey = newKey();
  see('POST /auth/credentials/{id}/verify (OAUTH)', 'AuthSession', await api.post(`/auth/credentials/${enc(oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(nonce(oauthKey.compressed)), clientPublicKey: oauthKey.compressed }), 200);
  const legacy = await recipientKey();
  see('POST /auth/credentials/{id}/verify (OAUTH, legacy key)', 'AuthSession', await api.post(`/auth/credentials/${enc(oauth.id)}/verify`, { type: 'OAUTH', oidcToken: await token(nonce(legacy.publicKeyHex)), clientPublicKey: legacy.publicKeyHex }), 200);
  const auth = new SoftAuthenticator(ORIGIN, RP_ID);
  const regChallenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const passkey = (await signed('POST /auth/credentials (PASSKEY)', 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: wallet.id, nickname: 'laptop', challenge: regChallenge, attestation: auth.register(regChallenge) }, next, 'AuthMethodResponse', 201)).json;
  const pkKey = newKey();
  const pc = see('POST /auth/credentials/{id}/challenge (PASSKEY)', 'PasskeyAuthChallenge', await api.post(`/auth/credentials/${enc(passkey.id)}/challenge`, { clientPublicKey: pkKey.compressed }), 200);
  see('POST /auth/credentials/{id}/verify (PASSKEY)', 'AuthSession', await api.post(`/auth/credentials/${enc(passkey.id)}/verify`, { type: 'PASSKEY', assertion: auth.assert(pc.json.challenge) }, { headers: { 'Request-Id': pc.json.requestId } }), 200);

  // Quotes and transactions (the wallet funded through the sandbox tool).
  await api.post(`/sandbox/internal-accounts/${enc(wallet.id)}/fund`, { amount: 1_000_000 });
  const quote = see('POST /quotes', 'Quote', await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: fiat.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 250_000 }), 201).json;
  see('GET /quotes/{id}', 'Quote', await api.get(`/quotes/${enc(quote.id)}`), 200);
  const payload = quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string;
  see('POST /quotes/{id}/execute', 'Quote', await api.post(`/quotes/${enc(quote.id)}/execute`, undefined, { headers: { 'Service-Wallet-Signature': stamp(payload, next) } }), 200);
  const txs = see('GET /transactions', 'TransactionList', await api.get(`/transactions?customerId=${enc(customer.id)}`), 200).json.data;
  see('GET /transactions/{id}', 'Transaction', await api.get(`/transactions/${enc(txs[0].id)}`), 200);

  // Cards and delegated keys (three legs).
  const card = see('POST /cards', 'Card', await api.post('/cards', { cardholderId: customer.id, fundingSource: wallet.id }, { headers: { 'Idempotency-Key': randomUUID() } }), 201).json;
  see('GET /cards/{id}', 'Card', await api.get(`/cards/${enc(card.id)}`), 200);
  const dkBody = { cardId: card.id, internalAccountId: wallet.id, nickname: 'card signer' };
  const leg1 = see('POST /auth/delegated-keys (leg 1)', 'Challenge', await api.post('/auth/delegated-keys', dkBody), 202);
  const leg2 = see('POST /auth/delegated-keys (leg 2)', 'Challenge', await api.post('/auth/delegated-keys', dkBody, { headers: { 'Service-Wallet-Signature': stamp(leg1.json.payloadToSign, next), 'Request-Id': leg1.json.requestId } }), 202);
  const dk = see('POST /auth/delegated-keys (leg 3)', 'DelegatedKey', await api.post('/auth/delegated-keys', dkBody, { headers: { 'Service-Wallet-Signature': stamp(leg2.json.payloadToSign, next), 'Request-Id': leg2.json.requestId } }), 201).json;
  see('GET /auth/delegated-keys', 'DelegatedKeyList', await api.get(`/auth/delegated-keys?accountId=${enc(wallet.id)}`), 200);
  see('GET /auth/delegated-keys/{id}', 'DelegatedKey', await api.get(`/auth/delegated-keys/${enc(dk.id)}`), 200);
  see('DELETE /auth/delegated-keys/{id}', 'DelegatedKey', await api.delete(`/auth/delegated-keys/${enc(dk.id)}`), 200);
  see('GET /cards', 'CardList', await api.get(`/cards?cardholderId=${enc(customer.id)}`), 200);
  see('PATCH /cards/{id}', 'Card', await api.patch(`/cards/${enc(card.id)}`, { status: 'FROZEN', maxSpendPerDay: 5000 }), 200);
  see('PATCH /cards/{id}', 'Card', await api.patch(`/cards/${enc(card.id)}`, { status: 'CLOSED' }), 200);

  // Deletions (204: no body).
  await signed('DELETE /auth/sessions/{id}', 'DELETE', `/auth/sessions/${enc(refreshed.id)}`, undefined, pkKey, 'AuthSession', 204);
  await signed('DELETE /auth/credentials/{id}', 'DELETE', `/auth/credentials/${enc(emailCred.id)}`, undefined, oauthKey, 'AuthMethod', 204);

  // Refusals: the error body (spec §7), with field errors.
  see('POST /customers (bad input)', 'Error', await api.post('/customers', { customerType: 'NOBODY' }), 400);
  see('GET /customers/{id} (unknown)', 'Error', await api.get('/customers/Customer:00000000-0000-4000-8000-000000000000'), 404);
  const wrong = await api.post(`/auth/credentials/${enc(passkey.id)}/verify`, { type: 'PASSKEY', assertion: auth.assert('00'.repeat(32)) }, { headers: { 'Request-Id': 'Request:nope' } });
  seen.push({ route: 'POST /auth/credentials/{id}/verify (refused)', shape: 'Error', status: wrong.status, body: wrong.json });
  const unsigned = await api.post(`/quotes/${enc(quote.id)}/execute`);
  seen.push({ route: 'POST /quotes/{id}/execute (no signature)', shape: 'Error', status: unsigned.status, body: unsigned.json });
  return seen;
}

function fieldErrorsOf(s: Seen): string[] {
  const errors = (s.body as { details?: { errors?: unknown[] } }).details?.errors ?? [];
  return errors.flatMap((e, i) => undefinedFields('FieldError', e, `details.errors[${i}]`));
}

const walks = new Map<SandboxProfile, Seen[]>();
const apis: Api[] = [];
beforeAll(async () => {
  for (const profile of ['service', 'spec-minimal', 'sandbox'] as const) {
    const api = await start({ profile, origin: ORIGIN, rpId: RP_ID });
    apis.push(api);
    walks.set(profile, await walk(api));
  }
}, 60_000);
afterAll(() => Promise.all(apis.map((a) => a.sandbox.close())));

describe('the contract (src/sandbox/contract.ts)', () => {
  it('every wire-reference addition names its section; every shape it uses exists', () => {
    for (const [shape, rules] of Object.entries(CONTRACT)) {
      for (const [field, rule] of Object.entries(rules)) {
        expect(rule.where, `${shape}.${field}`).toMatch(rule.from === 'wire' ? /^wire §/ : /§/);
        if (rule.shape !== undefined) expect(CONTRACT[rule.shape], `${shape}.${field} → ${rule.shape}`).toBeDefined();
      }
    }
  });

  it('the walk covers every route of the embedded-wallet surface', () => {
    const routes = new Set((walks.get('service') ?? []).map((s) => s.route.replace(/ \(.*\)$/, '')));
    for (const route of [
      'POST /auth/credentials', 'GET /auth/credentials', 'DELETE /auth/credentials/{id}', 'POST /auth/credentials/{id}/challenge',
      'POST /auth/credentials/{id}/verify', 'GET /auth/sessions', 'DELETE /auth/sessions/{id}', 'POST /auth/sessions/{id}/refresh',
      'POST /auth/delegated-keys', 'GET /auth/delegated-keys', 'GET /auth/delegated-keys/{id}', 'DELETE /auth/delegated-keys/{id}',
      'PATCH /internal-accounts/{id}', 'POST /internal-accounts/{id}/export', 'GET /internal-account', 'POST /quotes', 'GET /quotes/{id}', 'POST /quotes/{id}/execute',
    ]) {
      expect(routes, route).toContain(route);
    }
  });
});

describe.each(['service', 'spec-minimal'] as const)('profile %s: answers carry only what the contract defines', (profile) => {
  it('no answer has a field the spec or the wire reference does not define; none lacks a required one', () => {
    const problems = (walks.get(profile) ?? []).flatMap((s) => [
      ...undefinedFields(s.shape, s.body).map((f) => `${s.route} → ${s.shape}: undefined field ${f}`),
      ...missingFields(s.shape, s.body).map((f) => `${s.route} → ${s.shape}: missing ${f}`),
      ...fieldErrorsOf(s).map((f) => `${s.route}: undefined field ${f}`),
    ]);
    expect(problems).toEqual([]);
  });

  it('error bodies are {code, reason, details?} with details only for field errors', () => {
    const errors = (walks.get(profile) ?? []).filter((s) => s.shape === 'Error');
    expect(errors.length).toBeGreaterThanOrEqual(4);
    for (const e of errors) {
      const body = e.body as Record<string, unknown>;
      expect(Object.keys(body).filter((k) => k !== 'details').sort(), e.route).toEqual(['code', 'reason']);
      if (body.details !== undefined) expect(Object.keys(body.details as object)).toEqual(['errors']);
    }
  });
});

describe('profile spec-minimal: optional fields omitted, opaque ids', () => {
  it('no optional field the contract does not keep where it applies', () => {
    const extra = (walks.get('spec-minimal') ?? []).flatMap((s) => {
      if (typeof s.body !== 'object' || s.body === null || s.shape === 'Error') return [];
      return Object.keys(s.body)
        .filter((f) => CONTRACT[s.shape][f]?.optional === true && CONTRACT[s.shape][f]?.keep !== true)
        .map((f) => `${s.route}: ${f}`);
    });
    expect(extra).toEqual([]);
  });

  it('session, credential, request and delegated-key ids are not <Type>:<uuid>', () => {
    const bodies = (walks.get('spec-minimal') ?? []).filter((s) => ['AuthSession', 'AuthMethodResponse', 'DelegatedKey', 'Challenge'].includes(s.shape));
    expect(bodies.length).toBeGreaterThan(5);
    for (const s of bodies) {
      const body = s.body as { id?: string; requestId?: string };
      const id = body.id ?? body.requestId;
      expect(id, s.route).not.toMatch(/^[A-Za-z]+:/);
    }
  });
});

describe('profile sandbox: the contract plus only the listed additions', () => {
  it('every field beyond the contract is in SANDBOX_ADDITIONS', () => {
    const problems = (walks.get('sandbox') ?? []).flatMap((s) => {
      // A list's items are checked against the item shape's additions (`data[0].status` → InternalAccount's `status`).
      const item = CONTRACT[s.shape].data?.shape;
      const allowedOf = (f: string) => (/^data\[\d+\]\./.test(f) && item !== undefined ? [item, f.replace(/^data\[\d+\]\./, '')] : [s.shape, f]) as [ShapeName, string];
      return undefinedFields(s.shape, s.body)
        .filter((f) => {
          const [shape, name] = allowedOf(f);
          return !(SANDBOX_ADDITIONS[shape] ?? []).includes(name);
        })
        .map((f) => `${s.route} → ${s.shape}: ${f}`);
    });
    expect(problems).toEqual([]);
  });
});
