// Credentials through the wallet facade against the sandbox: list, delete signed by a session of
// another credential (chosen among the sessions this browser holds), the local refusal when there is
// none, the sandbox's own refusals (same credential's session forced, last credential), re-adding
// EMAIL_OTP, and onBeforeSign on the way.
import { describe, expect, it } from 'vitest';
import { parseStamp } from '../../src/crypto/index.js';
import { isWalletError } from '../../src/errors.js';
import { walletContext } from '../../src/session/index.js';
import { addSmsAndLogin, emailLogin, counted, explained, failing, shape, smsLogin, useTestSandbox, testWallet, OTP } from './helpers.js';

const env = useTestSandbox();

function stampKey(headers: Headers): string | undefined {
  const value = headers.get('Service-Wallet-Signature');
  return value === null ? undefined : parseStamp(value).publicKey;
}

/**
 * Browser `one` holds an EMAIL_OTP and an SMS_OTP session (the SMS one current); browser `two` then
 * deletes the SMS credential, which ends `one`'s SMS session on the service only.
 */
async function smsDeletedInAnotherBrowser() {
  const customer = await env.admin.customer({ phone: true });
  const one = testWallet(env.sandbox);
  const email = await emailLogin(one.wallet, customer.accountId);
  const sms = await addSmsAndLogin(one.wallet, customer.accountId);
  const two = testWallet(env.sandbox);
  await emailLogin(two.wallet, customer.accountId);
  await two.wallet.deleteCredential(sms.credentialId);
  return { customer, one, email, sms };
}

describe('listCredentials', () => {
  it('lists the account of the current session in one request', async () => {
    const customer = await env.admin.customer();
    const t = testWallet(env.sandbox);
    await emailLogin(t.wallet, customer.accountId);
    const { result, legs } = await counted(t, () => t.wallet.listCredentials());
    expect(result).toEqual([expect.objectContaining({ type: 'EMAIL_OTP', accountId: customer.accountId, nickname: customer.email })]);
    expect(shape(legs)).toEqual([['GET', 200, 1, false]]);
  });

  it('refuses without an account or a session, before any request', async () => {
    const t = testWallet(env.sandbox);
    const { error, legs } = await failing(t, () => t.wallet.listCredentials());
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(legs).toHaveLength(0);
    expect((await failing(t, () => t.wallet.listCredentials('' as string))).error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('deleteCredential', () => {
  it('signs with a session of the other credential, in exactly 2 requests, and drops the deleted credential\'s sessions', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    const email = await emailLogin(t.wallet, customer.accountId);
    const sms = await addSmsAndLogin(t.wallet, customer.accountId);
    expect(t.wallet.session()?.id).toBe(sms.id);
    expect(t.wallet.sessions().map((s) => s.credentialType).sort()).toEqual(['EMAIL_OTP', 'SMS_OTP']);

    // Deleting the SMS credential: the current session is SMS, so the EMAIL session signs.
    const { legs, wire } = await counted(t, () => t.wallet.deleteCredential(sms.credentialId));
    expect(shape(legs)).toEqual([
      ['DELETE', 202, 1, false],
      ['DELETE', 204, 2, true],
    ]);
    expect(stampKey(wire[1]!.headers)).toBe(email.publicKeyHex);
    expect(t.signs.at(-1)).toMatchObject({ purpose: 'delete-credential', method: 'DELETE', leg: 2 });

    // The SMS session ended with its credential: it is gone here too, and the email one is current.
    expect(t.wallet.sessions().map((s) => s.id)).toEqual([email.id]);
    expect(t.wallet.session()?.id).toBe(email.id);
    expect(await t.keyStore.get(sms.publicKeyHex)).toBeUndefined();
    expect((await t.wallet.listCredentials()).map((c) => c.type)).toEqual(['EMAIL_OTP']);
    expect((await t.wallet.listSessions()).map((s) => s.id)).toEqual([email.id]);
  });

  it('refuses locally with OTHER_CREDENTIAL_SESSION_REQUIRED when only that credential\'s sessions are held', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    const email = await emailLogin(t.wallet, customer.accountId);
    // The account has a second credential, but this browser holds no session of it.
    const other = testWallet(env.sandbox);
    await emailLogin(other.wallet, customer.accountId);
    await addSmsAndLogin(other.wallet, customer.accountId);

    const signed = t.signs.length;
    const { error, legs } = await failing(t, () => t.wallet.deleteCredential(email.credentialId));
    expect(isWalletError(error, 'OTHER_CREDENTIAL_SESSION_REQUIRED')).toBe(true);
    expect(error.message).toMatch(/log in with another credential/);
    expect(legs).toHaveLength(0);
    expect(t.signs).toHaveLength(signed);

    // Logging in with the other credential here makes the delete possible.
    await smsLogin(t.wallet, customer.accountId);
    const { legs: ok } = await counted(t, () => t.wallet.deleteCredential(email.credentialId));
    expect(ok).toHaveLength(2);
    expect(t.wallet.sessions().map((s) => s.credentialType)).toEqual(['SMS_OTP']);
  });

  it('the sandbox itself refuses a delete signed by the same credential\'s session (forced through the transport)', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    const email = await emailLogin(t.wallet, customer.accountId);
    await addSmsAndLogin(t.wallet, customer.accountId);
    const ctx = walletContext(t.wallet);
    const signer = await t.keyStore.signer(email.publicKeyHex);
    const { error, legs } = await failing(t, () =>
      ctx.client.signed({ method: 'DELETE', path: `/auth/credentials/${encodeURIComponent(email.credentialId)}`, signer, purpose: 'forced' }),
    );
    expect(error).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', status: 401 });
    expect(error.details?.cause).toBe(explained(env.sandbox, 'SAME_CREDENTIAL_SESSION'));
    expect(shape(legs)).toEqual([
      ['DELETE', 202, 1, false],
      ['DELETE', 401, 2, true],
    ]);
    expect((await t.wallet.listCredentials()).map((c) => c.type).sort()).toEqual(['EMAIL_OTP', 'SMS_OTP']);
  });

  it('deleting the last credential: 400 from the service after one request', async () => {
    // Browser 1 holds sessions of both credentials; browser 2 deletes the SMS credential. Browser 1
    // still holds its (now ended) SMS session, so the local rule passes and the service decides.
    const { one, email } = await smsDeletedInAnotherBrowser();

    const signed = one.signs.length;
    const { error, legs } = await failing(one, () => one.wallet.deleteCredential(email.credentialId));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
    expect(error.details?.cause).toBe(explained(env.sandbox, 'LAST_CREDENTIAL'));
    expect(shape(legs)).toEqual([['DELETE', 400, 1, false]]);
    expect(one.signs).toHaveLength(signed);
    expect((await one.wallet.listCredentials()).map((c) => c.id)).toEqual([email.credentialId]);
  });

  it('a session ended by a delete in another browser: the next action says SESSION_REVOKED and the other session takes over', async () => {
    const { customer, one, email, sms } = await smsDeletedInAnotherBrowser();

    expect(one.wallet.session()?.id).toBe(sms.id);
    const { error, legs } = await failing(one, () => one.wallet.updateAccount(customer.accountId, { privateEnabled: true }));
    expect(error.code).toBe('SESSION_REVOKED');
    // The two legs, then the session list that shows the session is gone.
    expect(shape(legs)).toEqual([
      ['PATCH', 202, 1, false],
      ['PATCH', 401, 2, true],
      ['GET', 200, 1, false],
    ]);
    expect(one.wallet.session()?.id).toBe(email.id);
    const { legs: ok } = await counted(one, () => one.wallet.updateAccount(customer.accountId, { privateEnabled: true }));
    expect(ok).toHaveLength(2);
  });

  it('re-adding EMAIL_OTP after deleting it (signed by the SMS session), then logging in with it', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    const email = await emailLogin(t.wallet, customer.accountId);
    await addSmsAndLogin(t.wallet, customer.accountId);
    await t.wallet.deleteCredential(email.credentialId);
    expect((await t.wallet.listCredentials()).map((c) => c.type)).toEqual(['SMS_OTP']);
    expect(t.wallet.sessions().map((s) => s.credentialType)).toEqual(['SMS_OTP']);

    const readded = await (await t.wallet.addEmailOtp({ accountId: customer.accountId })).verify(OTP);
    expect(readded).toMatchObject({ credentialType: 'EMAIL_OTP', accountId: customer.accountId });
    expect(readded.credentialId).not.toBe(email.credentialId);
    const credentials = await t.wallet.listCredentials();
    expect(credentials.map((c) => c.type).sort()).toEqual(['EMAIL_OTP', 'SMS_OTP']);
    expect(credentials.find((c) => c.type === 'EMAIL_OTP')?.nickname).toBe(customer.email);
  });

  it('a refusal in onBeforeSign stops after the first leg (SIGNING_REFUSED); nothing is deleted', async () => {
    const customer = await env.admin.customer({ phone: true });
    const t = testWallet(env.sandbox);
    const email = await emailLogin(t.wallet, customer.accountId);
    await addSmsAndLogin(t.wallet, customer.accountId);
    t.approve.value = false;
    const { error, legs } = await failing(t, () => t.wallet.deleteCredential(email.credentialId));
    expect(error.code).toBe('SIGNING_REFUSED');
    expect(shape(legs)).toEqual([['DELETE', 202, 1, false]]);
    t.approve.value = true;
    expect(await t.wallet.listCredentials()).toHaveLength(2);
    expect(t.wallet.sessions()).toHaveLength(2);
  });
});
