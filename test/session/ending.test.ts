// ending.ts on the tabs fixture (fast, no sandbox; issue 31, I1): a login is bound when its flow
// starts (`loginStarts`): a logout called in this tab after that wins, even when the login's read of
// the logout nonce comes after the logout wrote it (the read held here until the logout resolved);
// one called before it does not. A tab whose key store fell back to memory hears a logout of another
// tab by message and carries it out (its own session ended on the service), and its own user's
// logout is carried out by the tabs on the shared store; a logout carried out for another tab says
// `other-tab`, and is not announced again.
import { describe, expect, it } from 'vitest';
import { generateSessionKey } from '../../src/crypto/index.js';
import { createKeyStore, type KeyStore, type KeyStoreBackend } from '../../src/keys/index.js';
import { ACCOUNT, codeOf, named, platform, until, type Tab } from './tabs-fixture.js';
import { openBackend } from './model/harness.js';

const loggedOut = (t: Tab) => named(t, 'logged-out') as Array<{ accountId: string; reason: string }>;

/** A backend whose next two reads of the account's records (one snapshot), once armed, wait until released. */
function gatedBackend(inner: KeyStoreBackend) {
  let gate: Promise<void> | undefined;
  let release = (): void => undefined;
  let held = 0;
  const backend: KeyStoreBackend = {
    ...inner,
    get: async (k) => {
      if (gate && k.includes(ACCOUNT) && held < 2) {
        held++;
        await gate;
      }
      return inner.get(k);
    },
  };
  return {
    backend,
    arm: () => void (gate = new Promise<void>((r) => (release = r))),
    release: () => release(),
    held: () => held,
  };
}

/** A key store that fell back to memory (IndexedDB could not be opened): its own storage. */
function memoryStore(): KeyStore {
  const real = createKeyStore({ backend: openBackend() });
  return new Proxy(real, { get: (t, prop, r) => (prop === 'fallbackReason' ? 'indexeddb-open-failed' : Reflect.get(t, prop, r)) }) as KeyStore;
}

describe('loginStarts: a login is bound when its flow starts', () => {
  it('a logout called after it started wins, even when its nonce read comes after the logout wrote the nonce: nothing is run', async () => {
    const p = platform();
    const gated = gatedBackend(p.backend);
    const a = p.tab({ backend: gated.backend });
    await a.manager.restore();
    gated.arm();
    const login = a.manager.loginStarts(ACCOUNT);
    await until(() => gated.held() === 2, 'the login’s nonce read held (its two records)');
    // The logout's own reads go through; the login's read returns after the logout resolved.
    await a.manager.logout(ACCOUNT);
    gated.release();
    let ran = false;
    expect(await codeOf(login(async () => void (ran = true)))).toBe('NOT_LOGGED_IN');
    expect(ran).toBe(false);
    expect(a.manager.current(ACCOUNT)).toBeNull();
  });

  it('a logout called before the login started does not stop it; nor does one of another account', async () => {
    const p = platform();
    const a = p.tab();
    await a.manager.logout(ACCOUNT);
    const login = a.manager.loginStarts(ACCOUNT);
    await a.manager.logout('InternalAccount:someone-else');
    const s = await p.login(a);
    expect(await login(async (ticket) => ticket.accountId)).toBe(ACCOUNT);
    expect(a.manager.current(ACCOUNT)?.id).toBe(s.id);
  });

  it('checks its arguments: an account (non-empty string) when called, a function when run', async () => {
    const p = platform();
    const a = p.tab();
    for (const bad of ['', 3, undefined]) expect(() => a.manager.loginStarts(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => a.manager.loginStarts(ACCOUNT)('x' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => a.manager.loggingIn(ACCOUNT, 'x' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('a tab on the memory store (IndexedDB could not be opened) and logouts (I1)', () => {
  it('a logout in a shared tab is carried out there: its own session ended on the service, `other-tab`', async () => {
    const p = platform();
    const a = p.tab();
    const m = p.tab({ keyStore: memoryStore() });
    await a.manager.restore();
    await m.manager.restore();
    const shared = await p.login(a);
    const own = await p.login(m);
    expect(p.service.active(own.id)).toBe(true);
    await a.manager.logout(ACCOUNT);
    await until(() => loggedOut(m).length === 1 && !p.service.active(own.id), 'the memory tab logged out');
    expect(loggedOut(m)).toEqual([expect.objectContaining({ accountId: ACCOUNT, reason: 'other-tab' })]);
    expect(loggedOut(a)).toEqual([expect.objectContaining({ accountId: ACCOUNT, reason: 'user' })]);
    expect(m.manager.current(ACCOUNT)).toBeNull();
    expect(p.service.active(shared.id)).toBe(false);
  });

  it('its user’s logout is carried out by the shared tabs (`other-tab`), and not announced again', async () => {
    const p = platform();
    const a = p.tab();
    const b = p.tab();
    const m = p.tab({ keyStore: memoryStore() });
    for (const t of [a, b, m]) await t.manager.restore();
    const shared = await p.login(a);
    await until(() => b.manager.current(ACCOUNT)?.id === shared.id, 'b sees the login');
    const own = await p.login(m);
    await m.manager.logout(ACCOUNT);
    expect(loggedOut(m)).toEqual([expect.objectContaining({ accountId: ACCOUNT, reason: 'user' })]);
    await until(() => a.manager.current(ACCOUNT) === null && b.manager.current(ACCOUNT) === null && !p.service.active(shared.id), 'the shared tabs logged out');
    expect(p.service.active(own.id)).toBe(false);
    for (const t of [a, b]) expect(loggedOut(t)).toEqual([expect.objectContaining({ accountId: ACCOUNT, reason: 'other-tab' })]);
    // Carried out, not asked for by their users: the memory tab hears no logout back (it logs out once).
    const sent = p.bus.sent;
    await p.login(m);
    await until(() => p.bus.sent === sent, 'quiet');
    expect(m.manager.current(ACCOUNT)).not.toBeNull();
  });

  it('a memory tab’s commits are its own: a login there tells the shared tabs nothing', async () => {
    const p = platform();
    const a = p.tab();
    const m = p.tab({ keyStore: memoryStore() });
    await a.manager.restore();
    await m.manager.restore();
    const sent = p.bus.sent;
    await p.login(m);
    expect(p.bus.sent).toBe(sent);
    expect(a.manager.current(ACCOUNT)).toBeNull();
    const key = await generateSessionKey();
    expect(key.publicKeyHex).toMatch(/^0[23]/);
  });
});
