// The frame-mode double (createTestFrameWallet) behaves as the real FrameWallet where an app can
// tell: verify() takes no code and waits on the frame's one entry, a used login is OTP_EXPIRED, a
// refresh and a login's verify are signed without the user (THREAT-MODEL P1) while each signed
// action waits for an approval, in order, and an export is shown in the frame only.
import { describe, expect, it } from 'vitest';
import { createTestFrameWallet } from '../../src/react/testing.js';

describe('createTestFrameWallet', () => {
  it('verify() refuses a code, waits on one entry for every caller, and a used login is OTP_EXPIRED', async () => {
    const t = createTestFrameWallet({ otpCode: '424242' });
    await t.wallet.restore();
    const login = await t.wallet.startOtpLogin({ email: 'ada@example.com' });
    expect(login.codeEntry).toBe('frame');
    await expect((login.verify as (code?: string) => Promise<unknown>)('424242')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(t.codeEntryOpen).toBe(false);
    const first = login.verify();
    const second = login.verify();
    expect(t.typeCode('000000')).toBe(false);
    expect(t.typeCode('424242')).toBe(true);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect(a.accountId).toBe('InternalAccount:test');
    expect(t.wallet.getSnapshot().status).toBe('active');
    await expect(login.verify()).rejects.toMatchObject({ code: 'OTP_EXPIRED' });
    expect(() => t.typeCode('424242')).toThrow(/no code entry/);
  });

  it('a refresh needs no approval; signed actions wait for theirs, oldest first; an export resolves { shown: true } once approved', async () => {
    const t = createTestFrameWallet({ signedInAs: 'InternalAccount:1' });
    await t.wallet.restore();
    const before = t.wallet.session()!.id;
    const after = await t.wallet.refresh();
    expect(after.id).not.toBe(before);
    expect(t.approvals).toEqual([]);
    const on = t.wallet.updateAccount('InternalAccount:1', { privateEnabled: true });
    const shown = t.wallet.exportWallet();
    expect(t.approvals.map((a) => a.purpose)).toEqual(['update-internal-account', 'export-wallet']);
    t.decline();
    await expect(on).rejects.toMatchObject({ code: 'SIGNER_DECLINED' });
    t.approve();
    expect(await shown).toEqual({ shown: true });
    expect(() => t.approve()).toThrow(/no signature waits/);
    await expect(t.wallet.addSmsOtp({ accountId: 'InternalAccount:1' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
