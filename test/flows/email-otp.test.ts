// Email OTP login against the in-process sandbox: the happy path, wrong and expired codes, resend,
// the rate limit, and the enclave-key check (trusted, untrusted, explicit skip).
import { describe, expect, it, vi } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { generateSessionKey } from '../../src/crypto/index.js';
import { codeOf, errorOf, explained, idPattern, nextEvent, useTestSandbox, testWallet } from './helpers/sandbox.js';

const env = useTestSandbox();
/**
 * In the service profile the sandbox does not say why it refused a code (no details.cause, no
 * attemptsLeft), as the service does not: the library then reports OTP_CODE_INVALID unless it knows
 * the code was used (src/flows/otp.ts).
 */
const service = () => env.sandbox.profile !== 'sandbox';

describe('email OTP login', () => {
  it('challenge → verify → a session whose key signs for the account', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet, keyStore, requests } = testWallet(env.sandbox);
    const login = await wallet.startOtpLogin({ accountId });
    expect(login.type).toBe('EMAIL_OTP');
    expect(login.credentialId).toMatch(idPattern(env.sandbox, 'AuthMethod'));
    const event = nextEvent(wallet, 'session');
    const session = await login.verify('000000');
    expect(await event).toEqual(session);
    expect(session).toMatchObject({ accountId, credentialId: login.credentialId, credentialType: 'EMAIL_OTP' });
    expect(session.id).toMatch(idPattern(env.sandbox, 'Session'));
    expect(wallet.session()).toEqual(session);
    expect(wallet.session(accountId)).toEqual(session);
    // The key is in the key store, non-extractable, and it is the session key on the service.
    const stored = await keyStore.get(session.publicKeyHex);
    expect(stored?.privateKey.extractable).toBe(false);
    expect(stored?.sessionId).toBe(session.id);
    const verify = requests.filter((r) => r.path.endsWith('/verify'));
    expect(verify.map((r) => [r.leg, r.signed, r.status])).toEqual([
      [1, false, 202],
      [2, true, 200],
    ]);
    // A signed call with the session works: delete nothing, but sign out other devices (none).
    expect(await wallet.signOutOtherDevices(accountId)).toBe(0);
    const listed = await wallet.listSessions(accountId);
    expect(listed.map((s) => s.id)).toEqual([session.id]);
    wallet.dispose();
  });

  it('a wrong code is OTP_CODE_INVALID with attemptsLeft; the right code then still works', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    const login = await wallet.startOtpLogin({ accountId });
    const error = await errorOf(login.verify('123456'));
    expect(isWalletError(error, 'OTP_CODE_INVALID')).toBe(true);
    // Spec §7.1: a rejected OTP bundle is 400 INVALID_INPUT (the library also takes the wire reference's 401).
    expect(error.status).toBe(400);
    expect(error.details?.attemptsLeft).toBe(explained(env.sandbox, 4));
    expect(wallet.session(accountId)).toBeNull();
    const session = await login.verify(' 000000 ');
    expect(session.accountId).toBe(accountId);
    wallet.dispose();
  });

  it('an expired code is OTP_EXPIRED; resend() sends a new one that works', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    const login = await wallet.startOtpLogin({ accountId });
    env.admin.advance(5 * 60 + 1);
    // The service does not tell an expired code from a wrong one; the sandbox profile does.
    expect(await codeOf(login.verify('000000'))).toBe(service() ? 'OTP_CODE_INVALID' : 'OTP_EXPIRED');
    await login.resend();
    const session = await login.verify('000000');
    expect(session.credentialType).toBe('EMAIL_OTP');
    // A code works once: the library knows it used it, in both profiles.
    expect(await codeOf(login.verify('000000'))).toBe('OTP_EXPIRED');
    wallet.dispose();
  });

  it('a verify whose challenge expires before its signed leg is accepted is OTP_EXPIRED at once: the used code is never re-posted (issue 18)', async () => {
    const { accountId } = await env.admin.customer();
    // The user takes 6 minutes to approve the signature: the 5-minute challenge expires meanwhile.
    const { wallet, requests } = testWallet(env.sandbox, { onBeforeSign: () => void env.admin.advance(6 * 60) });
    const login = await wallet.startOtpLogin({ accountId });
    const error = await errorOf(login.verify('000000'));
    expect(error.code).toBe('OTP_EXPIRED');
    expect(error.cause.code).toBe('CHALLENGE_EXPIRED');
    // The signed leg is refused as expired (the refusal's Date header is past expiresAt); leg 1 is
    // not sent again by the transport.
    const verifies = () => requests.filter((r) => r.path.endsWith('/verify')).map((r) => [r.leg, r.signed, r.status]);
    expect(verifies()).toEqual([
      [1, false, 202],
      [2, true, 401],
    ]);
    // Trying the same code again: the service refuses it, and the library knows why.
    expect(await codeOf(login.verify('000000'))).toBe('OTP_EXPIRED');
    expect(verifies().slice(2)).toEqual([[1, false, 400]]);
    // A new code works (approved at once this time).
    const { wallet: quick } = testWallet(env.sandbox);
    const again = await quick.startOtpLogin({ accountId });
    expect((await again.verify('000000')).accountId).toBe(accountId);
    wallet.dispose();
    quick.dispose();
  });

  it('the user approves 6 minutes late (both clocks move): OTP_EXPIRED before signing, the used code is never re-posted (issue 18)', async () => {
    const { accountId } = await env.admin.customer();
    // Only Date is faked (timers run as usual): the sandbox's clock and the client's move together.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      const { wallet, requests } = testWallet(env.sandbox, { onBeforeSign: () => void vi.setSystemTime(Date.now() + 6 * 60_000) });
      const login = await wallet.startOtpLogin({ accountId });
      const error = await errorOf(login.verify('000000'));
      expect([error.code, error.cause?.code]).toEqual(['OTP_EXPIRED', 'CHALLENGE_EXPIRED']);
      // Judged expired on the server's clock before signing: nothing signed, leg 1 not sent again.
      expect(requests.filter((r) => r.path.endsWith('/verify')).map((r) => [r.leg, r.signed, r.status])).toEqual([[1, false, 202]]);
      wallet.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('too many wrong codes burn the code (OTP_EXPIRED; the service profile cannot tell)', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    const login = await wallet.startOtpLogin({ accountId });
    for (let i = 0; i < 5; i++) expect(await codeOf(login.verify('999999'))).toBe('OTP_CODE_INVALID');
    expect(await codeOf(login.verify('000000'))).toBe(service() ? 'OTP_CODE_INVALID' : 'OTP_EXPIRED');
    wallet.dispose();
  });

  it('asking for codes too often is RATE_LIMITED with retryAfterMs', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    const login = await wallet.startOtpLogin({ accountId });
    for (let i = 0; i < 4; i++) await login.resend();
    const error = await errorOf(login.resend());
    expect(isWalletError(error, 'RATE_LIMITED')).toBe(true);
    expect(error.status).toBe(429);
    expect(error.details.retryAfterMs).toBeGreaterThan(10_000);
    // The code sent last still works.
    expect((await login.verify('000000')).accountId).toBe(accountId);
    wallet.dispose();
  });

  it('an enclave key that is not trusted fails before any code is typed; skip-verification opts out', async () => {
    const { accountId } = await env.admin.customer();
    const other = await generateSessionKey();
    const untrusted = testWallet(env.sandbox, { trustedKeys: [other.publicKeyUncompressedHex] });
    expect(await codeOf(untrusted.wallet.startOtpLogin({ accountId }))).toBe('BUNDLE_SIGNER_UNTRUSTED');
    const skip = testWallet(env.sandbox, { trustedKeys: 'skip-verification' });
    const session = await (await skip.wallet.startOtpLogin({ accountId })).verify('000000');
    expect(session.accountId).toBe(accountId);
    untrusted.wallet.dispose();
    skip.wallet.dispose();
  });

  it('bad input and unknown credentials are clear errors', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox);
    expect(await codeOf(wallet.startOtpLogin({ accountId: '' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(wallet.startOtpLogin({ accountId, type: 'OAUTH' as never }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(wallet.startOtpLogin({ accountId, type: 'SMS_OTP' }))).toBe('CREDENTIAL_NOT_FOUND');
    expect(await codeOf(wallet.startOtpLogin({ accountId, credentialId: 'AuthMethod:nope' }))).toBe('CREDENTIAL_NOT_FOUND');
    const login = await wallet.startOtpLogin({ accountId });
    expect(await codeOf(login.verify(''))).toBe('INVALID_ARGUMENT');
    expect(() => createBad()).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    wallet.dispose();
  });
});

function createBad(): unknown {
  return testWallet(env.sandbox, { trustedKeys: 'nope' as never });
}

describe('a refused code as 401 UNAUTHORIZED (the wire reference) or 400 INVALID_INPUT (the spec): the same error (issue 25)', () => {
  /** A fetch that answers a 400 INVALID_INPUT of a verify call as the wire reference's 401 UNAUTHORIZED. */
  const as401: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (res.status !== 400 || !url.endsWith('/verify')) return res;
    const body = (await res.json()) as { code?: string; reason?: string; details?: unknown };
    if (body.code !== 'INVALID_INPUT') return new Response(JSON.stringify(body), { status: 400, headers: res.headers });
    return new Response(JSON.stringify({ code: 'UNAUTHORIZED', reason: body.reason, ...(body.details !== undefined ? { details: body.details } : {}) }), { status: 401, headers: { 'Content-Type': 'application/json', Date: res.headers.get('date') ?? '' } });
  };

  it.each([
    ['400 INVALID_INPUT', undefined],
    ['401 UNAUTHORIZED', as401],
  ] as const)('%s: a wrong code is OTP_CODE_INVALID; after a used code, OTP_EXPIRED', async (_, fetchImpl) => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox, fetchImpl === undefined ? {} : { fetch: fetchImpl });
    const login = await wallet.startOtpLogin({ accountId });
    const wrong = await errorOf(login.verify('999999'));
    expect(wrong.code).toBe('OTP_CODE_INVALID');
    expect(wrong.status).toBe(fetchImpl === undefined ? 400 : 401);
    await login.verify('000000');
    expect(await codeOf(login.verify('000000'))).toBe('OTP_EXPIRED');
    wallet.dispose();
  });
});
