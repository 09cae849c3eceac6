// The session manager against the sandbox: restore after a reload, expiry on the server's clock,
// automatic and explicit refresh, logout, listing, signing out other devices, the 4-session limit,
// revocation, key eviction, and picking a session of another credential.
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import type { Session } from '../../src/session/types.js';
import { codeOf, emailLogin, errorOf, nextEvent, useTestSandbox, testWallet } from '../flows/helpers/sandbox.js';
import { flush } from '../helpers/wait-for.js';

const env = useTestSandbox();

const MINUTE = 60;

describe('persistence', () => {
  it('a new wallet on the same storage restores the session (a reload)', async () => {
    const { accountId } = await env.admin.customer();
    const first = testWallet(env.sandbox);
    const session = await emailLogin(first.wallet, accountId);
    first.wallet.dispose();

    const second = testWallet(env.sandbox, { backend: first.backend });
    expect(second.wallet.session()).toBeNull();
    expect(await second.wallet.restore()).toEqual([session]);
    expect(second.wallet.session()).toEqual(session);
    expect(second.wallet.session(accountId)).toEqual(session);
    // Its key signs: the signed DELETE of logout succeeds on the service.
    await second.wallet.logout();
    expect(await second.wallet.listSessions(accountId)).toEqual([]);
    second.wallet.dispose();
  });

  it('an evicted key is KEY_EVICTED, told apart from expiry, and reported on restore', async () => {
    const { accountId } = await env.admin.customer();
    const first = testWallet(env.sandbox);
    const session = await emailLogin(first.wallet, accountId);
    await first.backend.delete(session.publicKeyHex); // the browser dropped the key, not the metadata
    first.keyStore.invalidate();
    const evicted = nextEvent(first.wallet, 'key-evicted');
    expect(await codeOf(first.wallet.signOutOtherDevices(accountId))).toBe('KEY_EVICTED');
    expect((await evicted).session.id).toBe(session.id);
    expect(first.wallet.session(accountId)).toBeNull();
    first.wallet.dispose();

    const again = testWallet(env.sandbox);
    const other = await emailLogin(again.wallet, accountId);
    again.wallet.dispose();
    await again.backend.delete(other.publicKeyHex);
    const reloaded = testWallet(env.sandbox, { backend: again.backend });
    const seen: Session[] = [];
    reloaded.wallet.on('key-evicted', ({ session: s }) => seen.push(s));
    expect(await reloaded.wallet.restore()).toEqual([]);
    expect(seen.map((s) => s.id)).toEqual([other.id]);
    reloaded.wallet.dispose();
  });
});

describe('expiry and refresh', () => {
  it('expires on the server clock: expired + logged-out events, SESSION_EXPIRED after', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet, keyStore } = testWallet(env.sandbox, { autoRefresh: false });
    const session = await emailLogin(wallet, accountId);
    const expired = nextEvent(wallet, 'expired');
    const loggedOut = nextEvent(wallet, 'logged-out');
    env.admin.advance(15 * MINUTE + 1);
    // Any answer tells the wallet the server's time.
    await wallet.listSessions(accountId);
    expect((await expired).id).toBe(session.id);
    expect(await loggedOut).toEqual({ accountId, reason: 'expired' });
    expect(wallet.session(accountId)).toBeNull();
    expect(await keyStore.get(session.publicKeyHex)).toBeUndefined();
    expect(await codeOf(wallet.refresh(accountId))).toBe('SESSION_EXPIRED');
    // Logging in again clears it.
    await emailLogin(wallet, accountId);
    expect(wallet.session(accountId)).not.toBeNull();
    wallet.dispose();
  });

  it('an expiry first noticed from the answer to a signed call is SESSION_EXPIRED', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet } = testWallet(env.sandbox, { autoRefresh: false });
    await emailLogin(wallet, accountId);
    env.admin.advance(15 * MINUTE + 1);
    expect(await codeOf(wallet.addSmsOtp({ accountId }))).toBe('SESSION_EXPIRED');
    expect(wallet.session(accountId)).toBeNull();
    wallet.dispose();
  });

  it('refreshes by itself when a third of the lifetime is left: expiring → refreshed, new key signs, old key deleted', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet, keyStore, requests } = testWallet(env.sandbox);
    const session = await emailLogin(wallet, accountId);
    const expiring = nextEvent(wallet, 'expiring');
    const refreshed = nextEvent(wallet, 'refreshed');
    env.admin.advance(10 * MINUTE + 5);
    await wallet.listSessions(accountId);
    expect((await expiring).id).toBe(session.id);
    const { previous, session: next } = await refreshed;
    expect(previous.id).toBe(session.id);
    expect(next).toMatchObject({ accountId, credentialId: session.credentialId, credentialType: 'EMAIL_OTP' });
    expect(Date.parse(next.expiresAt) - Date.parse(session.expiresAt)).toBeGreaterThan(9 * MINUTE * 1000);
    expect(wallet.session(accountId)?.id).toBe(next.id);
    // The old key is kept only until the service confirms the replaced session ended (I8).
    await expect.poll(() => keyStore.get(session.publicKeyHex)).toBeUndefined();
    expect((await keyStore.get(next.publicKeyHex))?.sessionId).toBe(next.id);
    expect(requests.filter((r) => r.path.endsWith('/refresh') && r.leg === 1)).toHaveLength(1);
    // The new session signs; the old one was ended on the service (one slot per browser): the
    // section signOutOtherDevices enters comes after the refresh's, which ends it.
    expect(await wallet.signOutOtherDevices(accountId)).toBe(0);
    expect((await wallet.listSessions(accountId)).map((s) => s.id)).toEqual([next.id]);
    expect(requests.filter((r) => r.method === 'DELETE' && r.path.endsWith(encodeURIComponent(session.id))).map((r) => r.status)).toEqual([202, 204]);
    wallet.dispose();
  });

  it('refreshWhenRemaining moves the refresh point (half the lifetime here)', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox, { refreshWhenRemaining: 0.5 });
    const session = await emailLogin(wallet, accountId);
    let refreshed = false;
    let refreshing = 0;
    wallet.on('refreshed', () => (refreshed = true));
    wallet.on('refreshing', () => void refreshing++);
    env.admin.advance(7 * MINUTE);
    await wallet.listSessions(accountId);
    // The answer's server time re-plans the account; a refresh due would have started (its
    // `refreshing` event is sent as it starts) within the promises that follow.
    await flush();
    expect(refreshing).toBe(0);
    expect(refreshed).toBe(false);
    const next = nextEvent(wallet, 'refreshed');
    env.admin.advance(MINUTE);
    await wallet.listSessions(accountId);
    expect((await next).previous.id).toBe(session.id);
    wallet.dispose();
  });

  it('explicit refresh; refresh-failed and SESSION_REVOKED when the session was ended elsewhere', async () => {
    const { accountId } = await env.admin.customer();
    const a = testWallet(env.sandbox, { autoRefresh: false });
    const b = testWallet(env.sandbox, { autoRefresh: false });
    const first = await emailLogin(a.wallet, accountId);
    const refreshed = await a.wallet.refresh(accountId);
    expect(refreshed.id).not.toBe(first.id);
    await emailLogin(b.wallet, accountId);
    // B signs out every session it does not hold: A's current one (the refresh ended A's first).
    expect(await b.wallet.signOutOtherDevices(accountId)).toBe(1);
    const failed = nextEvent(a.wallet, 'refresh-failed');
    const loggedOut = nextEvent(a.wallet, 'logged-out');
    const error = await errorOf(a.wallet.refresh(accountId));
    expect(isWalletError(error, 'SESSION_REVOKED')).toBe(true);
    expect((await failed).error.code).toBe('SESSION_REVOKED');
    expect(await loggedOut).toEqual({ accountId, reason: 'revoked' });
    expect(a.wallet.session(accountId)).toBeNull();
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('the 5th device evicts the oldest session; that device finds out on its next signed call', async () => {
    const { accountId } = await env.admin.customer();
    const devices = Array.from({ length: 5 }, () => testWallet(env.sandbox, { autoRefresh: false }));
    for (const d of devices) await emailLogin(d.wallet, accountId);
    expect(await devices[4]!.wallet.listSessions(accountId)).toHaveLength(4);
    const oldest = devices[0]!.wallet;
    expect(await codeOf(oldest.signOutOtherDevices(accountId))).toBe('SESSION_REVOKED');
    expect(oldest.session(accountId)).toBeNull();
    expect(await codeOf(oldest.refresh(accountId))).toBe('SESSION_REVOKED');
    expect(await devices[1]!.wallet.signOutOtherDevices(accountId)).toBe(3);
    for (const d of devices) d.wallet.dispose();
  });

  it('uses the server clock, not the local one', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet } = testWallet(env.sandbox, { autoRefresh: false });
    const session = await emailLogin(wallet, accountId);
    const before = wallet.serverNow() - Date.now();
    env.admin.advance(7 * MINUTE);
    await wallet.listSessions(accountId);
    const skew = wallet.serverNow() - Date.now() - before;
    expect(skew).toBeGreaterThan(7 * MINUTE * 1000 - 2000);
    expect(skew).toBeLessThan(7 * MINUTE * 1000 + 2000);
    expect(Date.parse(session.expiresAt) - wallet.serverNow()).toBeLessThan(8 * MINUTE * 1000 + 2000);
    wallet.dispose();
  });
});

describe('logout and other devices', () => {
  it('logout deletes the session on the service and the key here', async () => {
    const { accountId } = await env.admin.customer();
    const { wallet, keyStore, requests } = testWallet(env.sandbox);
    const session = await emailLogin(wallet, accountId);
    const loggedOut = nextEvent(wallet, 'logged-out');
    await wallet.logout(accountId);
    expect(await loggedOut).toEqual({ accountId, reason: 'user' });
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => [r.leg, r.status])).toEqual([
      [1, 202],
      [2, 204],
    ]);
    expect(await keyStore.get(session.publicKeyHex)).toBeUndefined();
    expect(wallet.sessions()).toEqual([]);
    expect(await wallet.listSessions(accountId)).toEqual([]);
    await wallet.logout(); // nothing left: a no-op
    wallet.dispose();
  });

  it('listSessions shows every active session; signOutOtherDevices ends the ones not held here', async () => {
    const { accountId } = await env.admin.customer();
    const here = testWallet(env.sandbox);
    const elsewhere = testWallet(env.sandbox);
    const mine = await emailLogin(here.wallet, accountId);
    const theirs = await emailLogin(elsewhere.wallet, accountId);
    expect((await here.wallet.listSessions(accountId)).map((s) => s.id)).toEqual([mine.id, theirs.id]);
    expect(await here.wallet.signOutOtherDevices(accountId)).toBe(1);
    expect((await here.wallet.listSessions(accountId)).map((s) => s.id)).toEqual([mine.id]);
    expect(await codeOf(elsewhere.wallet.signOutOtherDevices(accountId))).toBe('SESSION_REVOKED');
    here.wallet.dispose();
    elsewhere.wallet.dispose();
  });
});

describe('sessions of several credentials', () => {
  it('signer(excludeCredentialId) picks a session of another credential, or OTHER_CREDENTIAL_SESSION_REQUIRED', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet } = testWallet(env.sandbox);
    const { sessions } = (await import('../../src/session/context.js')).walletContext(wallet);
    const email = await emailLogin(wallet, accountId);
    expect(await codeOf(sessions.signer(accountId, { excludeCredentialId: email.credentialId }))).toBe('OTHER_CREDENTIAL_SESSION_REQUIRED');
    const sms = await (await wallet.addSmsOtp({ accountId })).verify('000000');
    expect(wallet.session(accountId)?.id).toBe(sms.id);
    const picked = await sessions.resolve(accountId, { excludeCredentialId: sms.credentialId });
    expect(picked.session.id).toBe(email.id);
    expect(picked.signer.publicKeyHex).toBe(email.publicKeyHex);
    expect((await sessions.resolve(accountId, { excludeCredentialId: email.credentialId })).session.id).toBe(sms.id);
    expect(await codeOf(sessions.signer('InternalAccount:unknown'))).toBe('NOT_LOGGED_IN');
    // Logout ends every session of the account held here.
    await wallet.logout(accountId);
    expect(wallet.sessions()).toEqual([]);
    expect(await wallet.listSessions(accountId)).toEqual([]);
    wallet.dispose();
  });

  it('forget() drops sessions the service ended: the next one becomes current, the last logs out', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet, keyStore } = testWallet(env.sandbox);
    const { sessions } = (await import('../../src/session/context.js')).walletContext(wallet);
    const email = await emailLogin(wallet, accountId);
    const sms = await (await wallet.addSmsOtp({ accountId })).verify('000000');
    const next = nextEvent(wallet, 'session');
    await sessions.forget([sms.id]);
    expect((await next).id).toBe(email.id);
    expect(wallet.session(accountId)?.id).toBe(email.id);
    expect(await keyStore.get(sms.publicKeyHex)).toBeUndefined();
    const out = nextEvent(wallet, 'logged-out');
    await sessions.forget([email.id, 'Session:unknown']);
    expect(await out).toEqual({ accountId, reason: 'revoked' });
    expect(await codeOf(sessions.signer(accountId))).toBe('SESSION_REVOKED');
    expect(await codeOf(sessions.forget('x' as never))).toBe('INVALID_ARGUMENT');
    wallet.dispose();
  });

  it('when the current session expires, another held session of the account becomes current', async () => {
    const { accountId } = await env.admin.customer({ phone: true });
    const { wallet } = testWallet(env.sandbox, { autoRefresh: false });
    const email = await emailLogin(wallet, accountId);
    env.admin.advance(2 * MINUTE);
    const sms = await (await wallet.addSmsOtp({ accountId })).verify('000000');
    expect(wallet.session(accountId)?.id).toBe(sms.id);
    // Past the email session's expiry, not yet the SMS one's.
    const expired = nextEvent(wallet, 'expired');
    env.admin.advance(13 * MINUTE + 1);
    await wallet.listSessions(accountId);
    expect((await expired).id).toBe(email.id);
    expect(wallet.session(accountId)?.id).toBe(sms.id);
    expect(wallet.sessions().map((s) => s.id)).toEqual([sms.id]);
    wallet.dispose();
  });
});
