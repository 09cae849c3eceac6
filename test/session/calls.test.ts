// Issue 31, the session layer's calls (INVARIANTS.md I3, I1): node, against the sandbox, tabs as
// wallets on one storage. I3: another tab refreshes while each signed leg of a call is on the wire
// (held by the test until the refresh committed and the old session is ended): the call starts over
// for as long as the refusal is explained by this browser's refreshes, up to MAX_RESTARTS, then
// SESSION_REPLACED_DURING_CALL (the user still logged in). Each fails on the code before its fix
// (the call started over once: WALLET_SIGNATURE_INVALID or SESSION_REVOKED at the second refusal).
// I1: a login loses against a logout called after its verify() (OTP) or complete() (OAuth) was
// called, however long the flow's work before its verify request takes (gated here until the logout
// resolved: before the fix, the login then read the logout's nonce and committed after it).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryBackend, type KeyStoreBackend } from '../../src/keys/index.js';
import { MAX_RESTARTS } from '../../src/session/signed-call.js';
import { OTP, codeOf, emailLogin, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';

const env = useTestSandbox();

async function active(accountId: string): Promise<string[]> {
  const answer = await env.admin.call<{ data: Array<{ id: string }> }>('GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`);
  return answer.json.data.map((s) => s.id);
}

function tab(backend: KeyStoreBackend, name: string, extra: Parameters<typeof testWallet>[1] = {}) {
  return testWallet(env.sandbox, { backend, crossTab: { name }, autoRefresh: false, ...extra });
}

/**
 * Tab A, whose signed PATCH legs are held while tab B refreshes (`refreshesPerLeg` times, for the
 * first `legsHeld` signed legs), each refresh committed and the session it replaced ended on the
 * service before the leg goes on: the slow network of the issue, without timing.
 */
async function twoTabs(legsHeld: number, refreshesPerLeg: number) {
  const { accountId } = await env.admin.customer();
  const backend = createMemoryBackend();
  const name = `calls-${randomUUID()}`;
  let b: ReturnType<typeof tab> | undefined;
  let held = 0;
  const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const signed = [...new Headers(init?.headers).keys()].some((k) => k.toLowerCase().includes('signature'));
    if (init?.method === 'PATCH' && signed && b && held < legsHeld) {
      held++;
      for (let i = 0; i < refreshesPerLeg; i++) {
        const before = b.wallet.session(accountId)!.id;
        await b.wallet.refresh(accountId);
        await expect.poll(async () => (await active(accountId)).includes(before)).toBe(false);
      }
    }
    return globalThis.fetch(input, init);
  }) as typeof fetch;
  const a = tab(backend, name, { fetch: fetchA });
  await a.wallet.restore();
  await emailLogin(a.wallet, accountId);
  b = tab(backend, name);
  await b.wallet.restore();
  const signedLegs = () => a.requests.filter((r) => r.method === 'PATCH' && r.status !== 202);
  return { accountId, a, b: b, signedLegs, held: () => held };
}

describe('I3: refreshes of another tab during a call’s signed legs', () => {
  it('two refreshes during one leg, then one during the retry: the call starts over each time and succeeds', async () => {
    const { accountId, a, b, signedLegs } = await twoTabs(2, 2);
    expect(await a.wallet.updateAccount(accountId, { privateEnabled: true })).toBeDefined();
    // Two refused legs (each signed by a session a refresh of B replaced), then the one accepted.
    expect(signedLegs().map((r) => r.status)).toEqual([401, 401, 200]);
    expect(a.wallet.session(accountId)?.id).toBe(b.wallet.session(accountId)?.id);
    expect(await active(accountId)).toEqual([a.wallet.session(accountId)!.id]);
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it(`a refresh during every leg: ${MAX_RESTARTS} restarts, then SESSION_REPLACED_DURING_CALL; the user is still logged in`, async () => {
    const { accountId, a, b, signedLegs } = await twoTabs(Number.POSITIVE_INFINITY, 1);
    expect(MAX_RESTARTS).toBe(3);
    expect(await codeOf(a.wallet.updateAccount(accountId, { privateEnabled: true }))).toBe('SESSION_REPLACED_DURING_CALL');
    expect(signedLegs().map((r) => r.status)).toEqual(Array.from({ length: MAX_RESTARTS + 1 }, () => 401));
    // Nothing was dropped: A holds B's newest session, which is active and signs.
    const current = a.wallet.session(accountId)!;
    expect(current.id).toBe(b.wallet.session(accountId)!.id);
    expect(await active(accountId)).toEqual([current.id]);
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

/** A gate: `wait()` resolves once `open()` was called. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, wait: () => opened };
}

describe('I1: a login loses from the moment its verify() is called', () => {
  afterEach(() => vi.restoreAllMocks());

  it('OTP: logout() called while verify() still makes its key: the login fails NOT_LOGGED_IN, no verify sent, nothing on the service', async () => {
    const { accountId } = await env.admin.customer();
    const a = tab(createMemoryBackend(), `calls-${randomUUID()}`);
    await a.wallet.restore();
    const pending = await a.wallet.startOtpLogin({ accountId });
    // verify() first makes the session key: held here until the logout resolved (a busy machine).
    const held = gate();
    const generateKey = crypto.subtle.generateKey.bind(crypto.subtle);
    vi.spyOn(crypto.subtle, 'generateKey').mockImplementation((async (...args: Parameters<typeof generateKey>) => {
      await held.wait();
      return generateKey(...args);
    }) as typeof crypto.subtle.generateKey);
    const login = codeOf(pending.verify(OTP));
    await a.wallet.logout(accountId);
    held.open();
    expect(await login).toBe('NOT_LOGGED_IN');
    expect(a.requests.filter((r) => r.path.endsWith('/verify'))).toEqual([]);
    expect(a.wallet.session(accountId)).toBeNull();
    expect(await active(accountId)).toEqual([]);
    a.wallet.dispose();
  });

  it('OAuth: logout() called while complete() still looks up the credential: NOT_LOGGED_IN, no verify sent', async () => {
    const { accountId, email } = await env.admin.customer();
    const owner = testWallet(env.sandbox);
    await emailLogin(owner.wallet, accountId);
    await owner.wallet.addOAuthCredential({ accountId, oidcToken: await env.admin.oidcToken(email, 'x'.repeat(64)) });
    await owner.wallet.logout(accountId);
    owner.wallet.dispose();
    const held = gate();
    let lookups = 0;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if ((init?.method ?? 'GET') === 'GET' && url.includes('/auth/credentials') && lookups++ === 0) await held.wait();
      return globalThis.fetch(input, init);
    }) as typeof fetch;
    const a = tab(createMemoryBackend(), `calls-${randomUUID()}`, { fetch: fetchA });
    await a.wallet.restore();
    const prepared = await a.wallet.prepareOAuth({ accountId });
    const login = codeOf(prepared.complete(await env.admin.oidcToken(email, prepared.nonce)));
    await expect.poll(() => lookups).toBe(1);
    await a.wallet.logout(accountId);
    held.open();
    expect(await login).toBe('NOT_LOGGED_IN');
    expect(a.requests.filter((r) => r.path.endsWith('/verify'))).toEqual([]);
    expect(await active(accountId)).toEqual([]);
    a.wallet.dispose();
  });

  it('a login whose verify() is called after logout() resolved commits', async () => {
    const { accountId } = await env.admin.customer();
    const a = tab(createMemoryBackend(), `calls-${randomUUID()}`);
    const pending = await a.wallet.startOtpLogin({ accountId });
    await a.wallet.logout(accountId);
    const session = await pending.verify(OTP);
    expect(a.wallet.session(accountId)?.id).toBe(session.id);
    expect(await active(accountId)).toEqual([session.id]);
    a.wallet.dispose();
  });
});

/** A backend IndexedDB-like that cannot be opened: the key store falls back to memory. */
function unopenable(): KeyStoreBackend {
  const fail = () => Promise.reject(Object.assign(new Error('the database cannot be opened'), { name: 'UnknownError' }));
  return { kind: 'indexeddb', get: fail, set: fail, delete: fail, entries: fail, clear: fail };
}

/** A tab on the memory store and one on the shared store, both loaded and logged in to one new account. */
async function memoryAndShared() {
  const { accountId } = await env.admin.customer();
  const name = `calls-${randomUUID()}`;
  const memory = tab(unopenable(), name);
  const shared = tab(createMemoryBackend(), name);
  await memory.wallet.restore();
  await shared.wallet.restore();
  const own = await emailLogin(memory.wallet, accountId);
  const other = await emailLogin(shared.wallet, accountId);
  return { accountId, memory, shared, own, other };
}

describe('I1: a tab whose IndexedDB cannot be opened (its keys in memory) hears a logout by message', () => {
  it('a logout in a tab on the shared store ends the memory tab’s session too: in that tab and on the service', async () => {
    const { accountId, memory, shared, own, other } = await memoryAndShared();
    expect(memory.keyStore.fallbackReason).toBe('indexeddb-open-failed');
    expect((await active(accountId)).sort()).toEqual([own.id, other.id].sort());
    const gone = new Promise((resolve) => memory.wallet.on('logged-out', resolve));
    await shared.wallet.logout(accountId);
    expect(await gone).toMatchObject({ accountId, reason: 'other-tab' });
    expect(memory.wallet.session(accountId)).toBeNull();
    await expect.poll(() => active(accountId)).toEqual([]);
    memory.wallet.dispose();
    shared.wallet.dispose();
  });

  it('a logout in the memory tab reaches the tabs on the shared store (they log the account out)', async () => {
    const { accountId, memory, shared } = await memoryAndShared();
    const gone = new Promise((resolve) => shared.wallet.on('logged-out', resolve));
    await memory.wallet.logout(accountId);
    expect(await gone).toMatchObject({ accountId, reason: 'other-tab' });
    expect(shared.wallet.session(accountId)).toBeNull();
    await expect.poll(() => active(accountId)).toEqual([]);
    memory.wallet.dispose();
    shared.wallet.dispose();
  });
});
