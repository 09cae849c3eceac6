/**
 * Cross-origin passkey ceremonies (src/sandbox/domain/passkeys.ts, `crossOriginProblem`): a passkey
 * used in the signer frame, a page of the signer origin embedded in the app's page. Its client data
 * carries `crossOrigin: true` and the app's origin as `topOrigin`; the sandbox accepts it when the
 * origin is a configured origin and the top origin a configured top origin (`topOrigin` option).
 * Real WebAuthn-shaped data: a software authenticator (ES256, "none" attestation) signs each case.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, enc, start } from './helpers/http.js';
import { createCustomer, otpLogin, signed } from './helpers/flows.js';
import { newKey } from './helpers/keys.js';
import { SoftAuthenticator, type Frame } from './helpers/webauthn.js';
import { parseCli } from '../../src/sandbox/cli-options.js';
import { startSandbox } from '../../src/sandbox/index.js';

const APP = 'https://app.example';
const SIGNER = 'https://signer.app.example';
const EVIL = 'https://evil.example';
const RP_ID = 'app.example';
/** In the frame: the ceremony's origin is the signer's, its top the app's. */
const IN_FRAME: Frame = { crossOrigin: true, topOrigin: APP };

let api: Api;
let closed: Api;
beforeAll(async () => {
  [api, closed] = await Promise.all([start({ origin: [APP, SIGNER], topOrigin: [APP], rpId: RP_ID }), start({ origin: [APP, SIGNER], rpId: RP_ID })]);
});
afterAll(async () => {
  await Promise.all([api.sandbox.close(), closed.sandbox.close()]);
});

const randomChallenge = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

/** A customer logged in by OTP (its session key signs the registration's retry). */
async function customer(on: Api) {
  const w = await createCustomer(on);
  const { key } = await otpLogin(on, w.email.id);
  return { ...w, key };
}

const addPasskey = (on: Api, accountId: string, challenge: string, attestation: unknown) =>
  on.post('/auth/credentials', { type: 'PASSKEY', accountId, nickname: 'laptop', challenge, attestation });

/** A passkey registered by an ordinary (same-origin) ceremony at the app. */
async function withPasskey(on: Api) {
  const w = await customer(on);
  const auth = new SoftAuthenticator(APP, RP_ID);
  const challenge = randomChallenge();
  const r = await signed(on, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'laptop', challenge, attestation: auth.register(challenge) }, w.key);
  expect(r.status, r.text).toBe(201);
  return { ...w, passkey: r.json, auth };
}

/** The challenge each passkey's next login answers: kept until a login uses it (a refused one does not; the service rate-limits challenges). */
const pending = new Map<string, { challenge: string; requestId: string }>();

/** A login with `auth`'s passkey whose client data has `origin` and `frame`: the verify's answer. */
async function login(on: Api, w: Awaited<ReturnType<typeof withPasskey>>, origin: string, frame: Frame) {
  let c = pending.get(w.passkey.id);
  if (c === undefined) {
    const ask = () => on.post(`/auth/credentials/${enc(w.passkey.id)}/challenge`, { clientPublicKey: newKey().compressed });
    let answer = await ask();
    if (answer.status === 429) {
      // The service limits challenges per credential: move the sandbox's clock past the wait.
      on.sandbox.advanceClock(answer.json.details.retryAfterSeconds);
      answer = await ask();
    }
    expect(answer.status, answer.text).toBe(200);
    c = { challenge: answer.json.challenge, requestId: answer.json.requestId };
    pending.set(w.passkey.id, c);
  }
  const r = await on.post(`/auth/credentials/${enc(w.passkey.id)}/verify`, { type: 'PASSKEY', assertion: w.auth.assert(c.challenge, { origin, frame }) }, { headers: { 'Request-Id': c.requestId } });
  if (r.status === 200) pending.delete(w.passkey.id);
  return r;
}

/** The rule, written apart from the code: what the sandbox must accept. */
function accepted(origin: string, frame: Frame, topOrigins: readonly string[]): boolean {
  if (![APP, SIGNER].includes(origin)) return false;
  if (frame.crossOrigin !== undefined && typeof frame.crossOrigin !== 'boolean') return false;
  if (frame.topOrigin === undefined) return true;
  return typeof frame.topOrigin === 'string' && frame.crossOrigin === true && topOrigins.includes(frame.topOrigin);
}

const frames = fc.record(
  {
    crossOrigin: fc.constantFrom<unknown>(true, false, 'true', 1, null),
    topOrigin: fc.constantFrom<unknown>(APP, SIGNER, EVIL, '', 5, null, `${APP}/`),
  },
  { requiredKeys: [] },
);
const origins = fc.constantFrom(APP, SIGNER, EVIL);

describe('a ceremony in the signer frame (crossOrigin, topOrigin)', () => {
  it('registration in the frame: accepted with an allowed top origin, refused with another or none configured', async () => {
    const w = await customer(api);
    const auth = new SoftAuthenticator(SIGNER, RP_ID);
    const c = randomChallenge();
    const inFrame = auth.register(c, { frame: IN_FRAME });
    const framedByEvil = await addPasskey(api, w.wallet.id, c, auth.register(c, { frame: { crossOrigin: true, topOrigin: EVIL } }));
    expect(framedByEvil.status).toBe(400);
    expect(framedByEvil.json).toMatchObject({ code: 'INVALID_INPUT', details: { cause: 'PASSKEY_ATTESTATION_INVALID' } });
    expect(framedByEvil.json.message).toContain(EVIL);
    // A top origin on a ceremony that says it is not cross-origin: the spec sets it only for cross-origin calls.
    expect((await addPasskey(api, w.wallet.id, c, auth.register(c, { frame: { crossOrigin: false, topOrigin: APP } }))).status).toBe(400);
    // Nothing configured: the same ceremony is refused.
    const other = await customer(closed);
    expect((await addPasskey(closed, other.wallet.id, c, inFrame)).status).toBe(400);
    // The signed retry adds it.
    const added = await signed(api, 'POST', '/auth/credentials', { type: 'PASSKEY', accountId: w.wallet.id, nickname: 'laptop', challenge: c, attestation: inFrame }, w.key);
    expect(added.status, added.text).toBe(201);
    expect(added.json).toMatchObject({ type: 'PASSKEY', credentialId: auth.id });
  });

  it('login in the frame: an allowed top origin gives a session; another top origin, or none configured, 401', async () => {
    const w = await withPasskey(api);
    const evil = await login(api, w, SIGNER, { crossOrigin: true, topOrigin: EVIL });
    expect(evil.status).toBe(401);
    expect(evil.json).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { cause: 'PASSKEY_ASSERTION_INVALID' } });
    const ok = await login(api, w, SIGNER, IN_FRAME);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ id: expect.stringMatching(/^Session:/), type: 'PASSKEY', authMethodId: w.passkey.id });
    const elsewhere = await withPasskey(closed);
    expect((await login(closed, elsewhere, SIGNER, IN_FRAME)).status).toBe(401);
    // Without topOrigin (a browser that does not send it) the ceremony is judged by its origin alone.
    expect((await login(closed, elsewhere, SIGNER, { crossOrigin: true })).status).toBe(200);
  });

  it('registrations against the rule (fast-check: origin × crossOrigin × topOrigin)', async () => {
    const w = await customer(api);
    const auth = new SoftAuthenticator(SIGNER, RP_ID);
    await fc.assert(
      fc.asyncProperty(origins, frames, async (origin, frame) => {
        const c = randomChallenge();
        const r = await addPasskey(api, w.wallet.id, c, auth.register(c, { origin, frame }));
        expect(r.status, `${origin} ${JSON.stringify(frame)}: ${r.text}`).toBe(accepted(origin, frame, [APP]) ? 202 : 400);
      }),
      { numRuns: 60 },
    );
  });

  it('logins against the rule (fast-check: origin × crossOrigin × topOrigin, both configurations)', async () => {
    const here = await withPasskey(api);
    const there = await withPasskey(closed);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), origins, frames, async (configured, origin, frame) => {
        const r = configured ? await login(api, here, origin, frame) : await login(closed, there, origin, frame);
        expect(r.status, `${configured} ${origin} ${JSON.stringify(frame)}: ${r.text}`).toBe(accepted(origin, frame, configured ? [APP] : []) ? 200 : 401);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the topOrigin option', () => {
  it('startSandbox refuses a bad topOrigin (INVALID_ARGUMENT); the CLI reads --top-origin and SANDBOX_TOP_ORIGIN', async () => {
    for (const topOrigin of ['', [APP, ''], [5]]) {
      await expect(startSandbox({ port: 0, log: false, topOrigin: topOrigin as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const flags = parseCli(['--top-origin', `${APP},${SIGNER}`, '--top-origin', EVIL], {}, '/tmp');
    expect(flags.help === false && flags.options.topOrigin).toEqual([APP, SIGNER, EVIL]);
    const fromEnv = parseCli([], { SANDBOX_TOP_ORIGIN: APP }, '/tmp');
    expect(fromEnv.help === false && fromEnv.options.topOrigin).toEqual([APP]);
    const none = parseCli([], {}, '/tmp');
    expect(none.help === false && none.options.topOrigin).toBeUndefined();
  });
});
