// SMS OTP: adding the credential (signed by the current session, activated by its first code),
// logging in with it, and the credential rules (one per account, needs a phone, 5 at most).
import { describe, expect, it } from 'vitest';
import { codeOf, emailLogin, errorOf, explained, optional, useTestSandbox, testWallet } from './helpers/sandbox.js';

const env = useTestSandbox();

describe('SMS OTP', () => {
  it('adding needs a session: NOT_LOGGED_IN, nothing signed, no code sent', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet, requests } = testWallet(env.sandbox);
    expect(await codeOf(wallet.addSmsOtp({ accountId }))).toBe('NOT_LOGGED_IN');
    // The first leg asked for a challenge; the missing session stopped the signature.
    expect(requests.filter((r) => r.signed)).toEqual([]);
    wallet.dispose();
  });

  it('add (signed) → verify activates it → SMS login works on its own', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet, requests } = testWallet(env.sandbox);
    const emailSession = await emailLogin(wallet, accountId);
    const adding = await wallet.addSmsOtp({ accountId });
    expect(adding.type).toBe('SMS_OTP');
    const add = requests.filter((r) => r.path === '/auth/credentials' && r.method === 'POST');
    expect(add.map((r) => [r.leg, r.signed, r.status])).toEqual([
      [1, false, 202],
      [2, true, 201],
    ]);
    // The code came inline with the 201: no separate challenge was asked for. The wire reference says
    // it "may be inline": without it (spec-minimal) the library asks for one.
    expect(requests.some((r) => r.path.endsWith('/challenge') && r.path.includes(adding.credentialId))).toBe(optional(env.sandbox, false) ?? true);
    const smsSession = await adding.verify('000000');
    expect(smsSession).toMatchObject({ accountId, credentialId: adding.credentialId, credentialType: 'SMS_OTP' });
    // The new session is current; the email session is still held (for deleting a credential).
    expect(wallet.session(accountId)?.id).toBe(smsSession.id);
    expect(wallet.sessions().map((s) => s.id).sort()).toEqual([emailSession.id, smsSession.id].sort());

    const other = testWallet(env.sandbox);
    const login = await other.wallet.startOtpLogin({ accountId, type: 'SMS_OTP' });
    expect(login.credentialId).toBe(adding.credentialId);
    expect((await login.verify('000000')).credentialType).toBe('SMS_OTP');
    wallet.dispose();
    other.wallet.dispose();
  });

  it('a wrong SMS code is OTP_CODE_INVALID', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet } = testWallet(env.sandbox);
    await emailLogin(wallet, accountId);
    const adding = await wallet.addSmsOtp({ accountId });
    expect(await codeOf(adding.verify('000001'))).toBe('OTP_CODE_INVALID');
    expect((await adding.verify('000000')).credentialType).toBe('SMS_OTP');
    wallet.dispose();
  });

  it('one SMS_OTP per account, and only with a phone number', async () => {
    const withPhone = await env.admin.customer({ phone: true });
    const a = testWallet(env.sandbox);
    await emailLogin(a.wallet, withPhone.accountId);
    await a.wallet.addSmsOtp({ accountId: withPhone.accountId });
    expect(await codeOf(a.wallet.addSmsOtp({ accountId: withPhone.accountId }))).toBe('SMS_OTP_CREDENTIAL_ALREADY_EXISTS');
    expect(await codeOf(a.wallet.addEmailOtp({ accountId: withPhone.accountId }))).toBe('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS');

    const noPhone = await env.admin.customer();
    const b = testWallet(env.sandbox);
    await emailLogin(b.wallet, noPhone.accountId);
    expect(await codeOf(b.wallet.addSmsOtp({ accountId: noPhone.accountId }))).toBe('MISSING_MANDATORY_USER_INFO');
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('an account holds at most 5 credentials', async () => {
    const { accountId, email } = await env.admin.customer({ phone: true });
    const { wallet } = testWallet(env.sandbox);
    await emailLogin(wallet, accountId);
    await wallet.addSmsOtp({ accountId });
    for (let i = 0; i < 3; i++) {
      const token = await env.admin.oidcToken(`other-${i}-${email}`, 'n'.repeat(64));
      await wallet.addOAuthCredential({ accountId, oidcToken: token });
    }
    const token = await env.admin.oidcToken(`sixth-${email}`, 'n'.repeat(64));
    const error = await errorOf(wallet.addOAuthCredential({ accountId, oidcToken: token }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details?.cause).toBe(explained(env.sandbox, 'CREDENTIAL_LIMIT'));
    wallet.dispose();
  });
});
