// The test double (src/react/testing.ts) signs where the real wallet signs: the OTP login's verify
// asks `onBeforeSign` (purpose otp-verify), and a refused refresh signature fails the refresh
// (SIGNING_REFUSED, the session kept, `refreshing` over) instead of refreshing anyway.
import { describe, expect, it } from 'vitest';
import { createTestWallet } from '../../src/react/testing.js';

describe('createTestWallet signs like the real wallet', () => {
  it('the OTP login’s verify asks for the otp-verify signature: refused → SIGNING_REFUSED, no session', async () => {
    const asked: string[] = [];
    const t = createTestWallet({ signatures: { policy: (r) => (asked.push(r.purpose), r.purpose === 'otp-verify' ? false : undefined) } });
    await t.wallet.restore();
    const login = await t.wallet.startOtpLogin({ accountId: 'InternalAccount:1' });
    await expect(login.verify('000000')).rejects.toMatchObject({ code: 'SIGNING_REFUSED' });
    expect(asked).toEqual(['otp-verify']);
    expect(t.wallet.getSnapshot().status).toBe('signed-out');
  });

  it('the default policy signs the login’s own verify without a prompt (none mounted)', async () => {
    const t = createTestWallet();
    await t.wallet.restore();
    const login = await t.wallet.startOtpLogin({ accountId: 'InternalAccount:1' });
    expect((await login.verify('000000')).accountId).toBe('InternalAccount:1');
    expect(t.wallet.getSnapshot().status).toBe('active');
  });

  it('email-first: startOtpLogin({ email }) needs no account id (EMAIL_OTP), { phone } is SMS_OTP', async () => {
    const t = createTestWallet();
    await t.wallet.restore();
    const byEmail = await t.wallet.startOtpLogin({ email: 'someone@example.com' });
    expect(byEmail.type).toBe('EMAIL_OTP');
    expect((await byEmail.verify('000000')).accountId).toBe('InternalAccount:test');
    expect((await t.wallet.startOtpLogin({ phone: '+14155550123' })).type).toBe('SMS_OTP');
  });

  it('a refused refresh signature fails the refresh: SIGNING_REFUSED, the same session, active again', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1', signatures: { policy: (r) => (r.purpose === 'refresh-session' ? false : undefined) } });
    await t.wallet.restore();
    const before = t.wallet.session()!.id;
    const failed: string[] = [];
    t.wallet.on('refresh-failed', ({ error }) => void failed.push(error.code));
    await expect(t.wallet.refresh()).rejects.toMatchObject({ code: 'SIGNING_REFUSED' });
    expect(t.wallet.session()!.id).toBe(before);
    expect(t.wallet.getSnapshot().status).toBe('active');
    expect(failed).toEqual(['SIGNING_REFUSED']);
  });

  it('an approved refresh replaces the session', async () => {
    const t = createTestWallet({ signedInAs: 'InternalAccount:1', signatures: { policy: () => true } });
    await t.wallet.restore();
    const before = t.wallet.session()!.id;
    const after = await t.wallet.refresh();
    expect(after.id).not.toBe(before);
    expect(t.wallet.getSnapshot()).toMatchObject({ status: 'active', session: { id: after.id } });
  });
});
