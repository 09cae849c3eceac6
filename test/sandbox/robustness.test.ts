import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin } from './helpers/flows.js';

let api: Api;
let routes: [string, string][];

beforeAll(async () => {
  api = await start();
  const w = await createCustomer(api, { phoneNumber: '+14155550400' });
  const { session } = await otpLogin(api, w.email.id);
  const c = enc(w.customer.id);
  const a = enc(w.wallet.id);
  const m = enc(w.email.id);
  const s = enc(session.id);
  routes = [
    ['POST', '/customers'],
    ['GET', '/customers'],
    ['PATCH', `/customers/${c}`],
    ['POST', `/customers/${c}/verify-email/confirm`],
    ['GET', `/internal-account?customerId=${c}`],
    ['PATCH', `/internal-accounts/${a}`],
    ['POST', `/internal-accounts/${a}/export`],
    ['POST', '/auth/credentials'],
    ['DELETE', `/auth/credentials/${m}`],
    ['POST', `/auth/credentials/${m}/verify`],
    ['POST', `/auth/sessions/${s}/refresh`],
    ['DELETE', `/auth/sessions/${s}`],
    ['POST', `/sandbox/internal-accounts/${a}/fund`],
    ['POST', '/sandbox/clock/advance'],
    ['POST', '/sandbox/oauth/token'],
    ['POST', '/sandbox/customers/Customer:x/kyc'],
  ];
});
afterAll(() => api.sandbox.close());

const field = fc.constantFrom(
  'type', 'accountId', 'email', 'phoneNumber', 'customerType', 'platformCustomerId', 'currencies', 'clientPublicKey',
  'encryptedOtpBundle', 'oidcToken', 'assertion', 'attestation', 'challenge', 'nickname', 'amount', 'seconds', 'privateEnabled', 'code', 'nonce',
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(field, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  fc.constant(undefined),
);
const headerText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_:=+/ .{}"'.split('')), maxLength: 80 });

describe('garbage never breaks the sandbox', () => {
  it('random bodies and signature headers on every route: a 4xx with a code (or a success), never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), body, fc.option(headerText), fc.option(headerText), async (pick, b, stampValue, requestId) => {
        const [method, path] = routes[pick % routes.length] as [string, string];
        const headers: Record<string, string> = {};
        if (stampValue !== null) headers['Service-Wallet-Signature'] = stampValue;
        if (requestId !== null) headers['Request-Id'] = requestId;
        const r = await api.call(method, path, { ...(b === undefined ? {} : { raw: JSON.stringify(b), headers: { ...headers, 'Content-Type': 'application/json' } }), ...(b === undefined ? { headers } : {}) });
        expect(r.status, `${method} ${path} ${JSON.stringify(b)} → ${r.text}`).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code, r.text).toBe('string');
      }),
      { numRuns: 400 },
    );
  });

  it('valid bodies with one field replaced by random JSON: a 4xx with a code (or a success)', async () => {
    const c = routes[2]![1];
    const bases: [string, string, Record<string, unknown>][] = [
      ['POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'p', email: 'a@b.co', currencies: ['USD'], phoneNumber: '+14155550000' }],
      ['PATCH', c, { fullName: 'x' }],
      ['POST', '/auth/credentials', { type: 'PASSKEY', accountId: 'InternalAccount:x', nickname: 'n', challenge: 'AAAAAAAAAAAAAAAAAAAAAA', attestation: { credentialId: 'AA', clientDataJson: 'AA', attestationObject: 'AA' } }],
      ['POST', routes[9]![1], { type: 'EMAIL_OTP', encryptedOtpBundle: JSON.stringify({ encappedPublic: '04', ciphertext: 'ab' }) }],
      ['POST', routes[6]![1], { clientPublicKey: '04' }],
    ];
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.nat({ max: 1000 }), fc.jsonValue({ maxDepth: 3 }), async (pick, fieldPick, value) => {
        const [method, path, base] = bases[pick % bases.length]!;
        const keys = Object.keys(base);
        const body = { ...base, [keys[fieldPick % keys.length]!]: value };
        const r = await api.call(method, path, { body });
        expect(r.status, `${method} ${path} ${JSON.stringify(body)} → ${r.text}`).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('stamps with random fields: 401 MALFORMED or INVALID, never 5xx', async () => {
    const a = routes[5]![1];
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }), fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.stringMatching(/^[0-9a-f]{0,150}$/)), async (publicKey, scheme, signature) => {
        const first = await api.patch(a, { privateEnabled: true });
        const value = Buffer.from(JSON.stringify({ publicKey, scheme, signature })).toString('base64url');
        const r = await api.patch(a, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': value, 'Request-Id': first.json.requestId } });
        expect(r.status).toBe(401);
        expect(['WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_INVALID']).toContain(r.json.code);
      }),
      { numRuns: 150 },
    );
  });

  it('random raw bytes as bodies: a 4xx with a code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.uint8Array({ maxLength: 200 }), async (pick, bytes) => {
        const [method, path] = routes[pick % routes.length] as [string, string];
        const r = await api.call(method, path, { raw: new Uint8Array(bytes) });
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code).toBe('string');
      }),
      { numRuns: 200 },
    );
  });

  it('keeps idle connections 65 s and says so (Keep-Alive), so a client does not reuse one the server is closing', async () => {
    const r = await api.get('/sandbox/enclave');
    expect(r.headers.get('keep-alive')).toMatch(/timeout=65\b/);
  });

  it('random paths: a 4xx with a code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'), fc.webPath(), async (method, path) => {
        const r = await api.call(method, path.replace(/#/g, ''));
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.json?.code).toBe('string');
      }),
      { numRuns: 200 },
    );
  });
});
