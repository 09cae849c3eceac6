// The promises of INVARIANTS.md about signatures and prompts, tried as the issue 22 reports were, in
// Node against the sandbox with two wallets on one storage (two tabs): I2 (a logout cancels a user
// action's signature not yet sent, in another tab, even when that tab is offline), I3 (an approval
// across a refresh signs with the new session), I4 (sign-out-other-devices at its prompt does not
// delay a logout; a closed tab's logout is finished without a prompt), I5 (a login whose commit
// fails after verify ends its session), I8 (an offline logout is finished when the network comes
// back; a second login with the same credential replaces the first, and finishes an offline logout's end).
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { createKeyStore, createMemoryBackend, type KeyStoreBackend } from '../../src/keys/index.js';
import { walletContext } from '../../src/session/index.js';
import type { SignRequest } from '../../src/transport/index.js';
import { codeOf, emailLogin, idPattern, optional, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';

const env = useTestSandbox();

/** The account's active sessions on the service. */
async function active(accountId: string): Promise<Array<{ id: string }>> {
  const answer = await env.admin.call<{ data: Array<{ id: string }> }>('GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`);
  return answer.json.data;
}

/** A prompt the test answers: `next(purpose)` resolves when the hook is asked for that purpose. */
function prompts() {
  const waiting = new Map<string, Array<(r: { request: SignRequest; answer: (ok: boolean) => void }) => void>>();
  const open: Array<{ request: SignRequest; answer: (ok: boolean) => void }> = [];
  const held = new Set<string>();
  return {
    hold(purpose: string) {
      held.add(purpose);
    },
    hook: (request: SignRequest): boolean | Promise<boolean> => {
      if (!held.has(request.purpose)) return true;
      return new Promise<boolean>((answer) => {
        const entry = { request, answer };
        open.push(entry);
        for (const w of waiting.get(request.purpose)?.splice(0) ?? []) w(entry);
      });
    },
    next(purpose: string): Promise<{ request: SignRequest; answer: (ok: boolean) => void }> {
      const there = open.find((e) => e.request.purpose === purpose);
      if (there) return Promise.resolve(there);
      return new Promise((r) => waiting.set(purpose, [...(waiting.get(purpose) ?? []), r]));
    },
  };
}

/** A fetch that can be cut (the proxy unreachable from this tab). */
function cuttable() {
  let offline = false;
  return {
    set offline(v: boolean) {
      offline = v;
    },
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => (offline ? Promise.reject(new TypeError('fetch failed')) : globalThis.fetch(input, init))) as typeof fetch,
  };
}

function tab(backend: KeyStoreBackend, name: string, extra: Parameters<typeof testWallet>[1] = {}) {
  return testWallet(env.sandbox, { backend, crossTab: { name }, autoRefresh: false, ...extra });
}

describe('I2: a logout cancels every signature not yet sent, in every tab', () => {
  it('tab A approves a user action after tab B (offline) logged out: nothing is signed, NOT_LOGGED_IN; B’s logout is finished when it is back online', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i2-${randomUUID()}`;
    const p = prompts();
    p.hold('update-internal-account');
    const a = tab(backend, name, { onBeforeSign: p.hook });
    const net = cuttable();
    const b = tab(backend, name, { fetch: net.fetch });
    await a.wallet.restore();
    await b.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    await expect.poll(() => b.wallet.session(accountId)?.id).toBe(session.id);

    const action = codeOf(a.wallet.updateAccount(accountId, { privateEnabled: true }));
    const prompt = await p.next('update-internal-account');
    net.offline = true;
    await b.wallet.logout(accountId);
    expect(b.wallet.session(accountId)).toBeNull();
    // The prompt was cancelled (its signal fired); approving now changes nothing.
    await expect.poll(() => prompt.request.signal.aborted).toBe(true);
    prompt.answer(true);
    expect(await action).toBe('NOT_LOGGED_IN');
    expect(a.requests.filter((r) => r.method === 'PATCH' && r.signed)).toEqual([]);
    // B could not end the session: it is a pending end (I8), its key kept for that alone.
    expect((await active(accountId)).map((s) => s.id)).toEqual([session.id]);
    expect(await codeOf(a.wallet.updateAccount(accountId, { privateEnabled: true }))).toBe('NOT_LOGGED_IN');
    net.offline = false;
    // Any tab of the origin coming back finishes it: here a new one loading.
    const c = tab(backend, name);
    await c.wallet.restore();
    await expect.poll(async () => (await active(accountId)).length).toBe(0);
    await expect.poll(() => createKeyStore({ backend }).get(session.publicKeyHex)).toBeUndefined();
    for (const t of [a, b, c]) t.wallet.dispose();
  });

  it('a prompt declined, timed out or cancelled fails that call with a WalletError; the session stays', async () => {
    const { accountId } = await env.admin.customer();
    const refuse = testWallet(env.sandbox, { autoRefresh: false, onBeforeSign: (r) => r.purpose !== 'update-internal-account' });
    await emailLogin(refuse.wallet, accountId);
    expect(await codeOf(refuse.wallet.updateAccount(accountId, { privateEnabled: true }))).toBe('SIGNING_REFUSED');
    const slow = testWallet(env.sandbox, { autoRefresh: false, onBeforeSignTimeoutMs: 50, onBeforeSign: (r) => (r.purpose === 'update-internal-account' ? new Promise<boolean>(() => undefined) : true) });
    await emailLogin(slow.wallet, accountId);
    expect(await codeOf(slow.wallet.updateAccount(accountId, { privateEnabled: true }))).toBe('SIGNING_REFUSED');
    expect(slow.wallet.session(accountId)).not.toBeNull();
    expect(refuse.wallet.session(accountId)).not.toBeNull();
    refuse.wallet.dispose();
    slow.wallet.dispose();
  });
});

describe('I3: an approval across a refresh succeeds', () => {
  it('one tab: the action’s prompt spans an explicit refresh; approving signs with the new session (200)', async () => {
    const { accountId } = await env.admin.customer();
    const p = prompts();
    p.hold('update-internal-account');
    const t = testWallet(env.sandbox, { autoRefresh: false, onBeforeSign: p.hook });
    const first = await emailLogin(t.wallet, accountId);
    const action = t.wallet.updateAccount(accountId, { privateEnabled: true });
    const prompt = await p.next('update-internal-account');
    const next = await t.wallet.refresh(accountId);
    expect(next.id).not.toBe(first.id);
    // The replaced session is ended on the service before the user approves.
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([next.id]);
    prompt.answer(true);
    // The spec-minimal profile leaves privateEnabled out of the answer (the spec does not require it).
    const answer = await action;
    expect(answer.id).toBe(accountId);
    expect(answer.privateEnabled).toBe(optional(env.sandbox, true));
    expect(t.wallet.session(accountId)?.id).toBe(next.id);
    t.wallet.dispose();
  });

  it('two tabs: the other tab refreshes while the prompt is open; approving succeeds', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i3-${randomUUID()}`;
    const p = prompts();
    p.hold('update-internal-account');
    const a = tab(backend, name, { onBeforeSign: p.hook });
    const b = tab(backend, name);
    await a.wallet.restore();
    await b.wallet.restore();
    await emailLogin(a.wallet, accountId);
    const action = a.wallet.updateAccount(accountId, { privateEnabled: false });
    const prompt = await p.next('update-internal-account');
    const next = await b.wallet.refresh(accountId);
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([next.id]);
    prompt.answer(true);
    const answer = await action;
    expect(answer.id).toBe(accountId);
    expect(answer.privateEnabled).toBe(optional(env.sandbox, false));
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

describe('I4: no user prompt inside a critical section', () => {
  it('sign-out-other-devices waiting at its prompt does not delay a logout in another tab', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i4-${randomUUID()}`;
    const p = prompts();
    p.hold('delete-session');
    const a = tab(backend, name, { onBeforeSign: p.hook });
    const b = tab(backend, name);
    await a.wallet.restore();
    await b.wallet.restore();
    // Another device of the user.
    const elsewhere = testWallet(env.sandbox, { autoRefresh: false });
    const other = await emailLogin(elsewhere.wallet, accountId);
    await emailLogin(a.wallet, accountId);
    const signOut = codeOf(a.wallet.signOutOtherDevices(accountId));
    await p.next('delete-session');
    const started = Date.now();
    await b.wallet.logout(accountId);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(['NOT_LOGGED_IN', 'ABORTED']).toContain(await signOut);
    // Nothing of this browser is left; the other device's session was not ended.
    expect((await active(accountId)).map((s) => s.id)).toEqual([other.id]);
    for (const t of [a, b, elsewhere]) t.wallet.dispose();
  });

  it('a new tab loads while another tab’s explicit refresh waits at its prompt', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i4b-${randomUUID()}`;
    const p = prompts();
    p.hold('refresh-session');
    const a = tab(backend, name, { onBeforeSign: p.hook });
    await a.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    const refreshing = codeOf(a.wallet.refresh(accountId));
    const prompt = await p.next('refresh-session');
    const b = tab(backend, name);
    expect((await b.wallet.restore()).map((s) => s.id)).toEqual([session.id]);
    // And a logout there does not wait for the prompt either: it cancels it.
    await b.wallet.logout(accountId);
    expect(prompt.request.signal.aborted).toBe(true);
    expect(await refreshing).toBe('NOT_LOGGED_IN');
    expect(await active(accountId)).toEqual([]);
    a.wallet.dispose();
    b.wallet.dispose();
  });

  it('a logout finished for a closed tab asks no prompt, and the session is ended on the service', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i4c-${randomUUID()}`;
    const seen: SignRequest[] = [];
    const a = tab(backend, name);
    await a.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    // Tab B asks for the logout and closes before carrying it out: the request is stored.
    const meta = createKeyStore({ backend }).meta;
    const { state } = { state: (await meta.get<{ generation: number }>(`account:${accountId}`))! };
    await meta.put(`logout:${accountId}`, { nonce: 'closed-tab', generation: state.generation });
    a.wallet.dispose();
    const c = tab(backend, name, { onBeforeSign: (r) => (seen.push(r), false) });
    await c.wallet.restore();
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([]);
    expect(c.wallet.session(accountId)).toBeNull();
    expect(seen).toEqual([]);
    expect(session.id).toMatch(idPattern(env.sandbox, 'Session'));
    c.wallet.dispose();
  });
});

describe('I5: a login never orphans a session', () => {
  it('storage fails when the login commits: the session the service made is ended', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    let failing = false;
    const broken: KeyStoreBackend = { ...backend, set: (k, v) => (failing && k.startsWith('meta:account:') ? Promise.reject(new Error('QuotaExceededError')) : backend.set(k, v)) };
    const t = testWallet(env.sandbox, { backend: broken, autoRefresh: false });
    await t.wallet.restore();
    failing = true;
    const error = await emailLogin(t.wallet, accountId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(isWalletError(error) || error instanceof Error).toBe(true);
    expect(await active(accountId)).toEqual([]);
    expect(t.wallet.session(accountId)).toBeNull();
    t.wallet.dispose();
  });
});

describe('I8: nothing left on the service', () => {
  it('a second login with the same credential replaces the first session', async () => {
    const { accountId } = await env.admin.customer();
    const t = testWallet(env.sandbox, { autoRefresh: false });
    const first = await emailLogin(t.wallet, accountId);
    const second = await emailLogin(t.wallet, accountId);
    expect(t.wallet.sessions().map((s) => s.id)).toEqual([second.id]);
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([second.id]);
    expect(await walletContext(t.wallet).keyStore.get(first.publicKeyHex)).toBeUndefined();
    t.wallet.dispose();
  });

  it('a logout made offline whose key is older than two minutes: the next tab that loads still ends it (the key is not dropped as an orphan)', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i8-${randomUUID()}`;
    const net = cuttable();
    const a = tab(backend, name, { fetch: net.fetch });
    await a.wallet.restore();
    const session = await emailLogin(a.wallet, accountId);
    net.offline = true;
    await a.wallet.logout(accountId);
    a.wallet.dispose();
    expect((await active(accountId)).map((s) => s.id)).toEqual([session.id]);
    // Three minutes on (sessions last 15): a tab of the origin loads.
    const real = Date.now.bind(Date);
    const later = vi.spyOn(Date, 'now').mockImplementation(() => real() + 3 * 60 * 1000);
    try {
      const b = tab(backend, name);
      await b.wallet.restore();
      await expect.poll(async () => (await active(accountId)).length).toBe(0);
      b.wallet.dispose();
    } finally {
      later.mockRestore();
    }
  });

  it('a key a closed tab stored for a session it never committed: the next tab that loads ends that session (under the refresh lock and the section)', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const name = `i8-${randomUUID()}`;
    const a = tab(backend, name);
    await a.wallet.restore();
    const mine = await emailLogin(a.wallet, accountId);
    // A refresh or login of a tab that closed after storing its key, before committing: a session
    // the service holds, its key here, no state naming it (made by a wallet on other storage, its
    // key record copied over).
    const other = createMemoryBackend();
    const x = testWallet(env.sandbox, { backend: other, autoRefresh: false });
    const lost = await emailLogin(x.wallet, accountId);
    x.wallet.dispose();
    for (const [k, v] of await other.entries()) if ((v as { publicKeyHex?: string }).publicKeyHex === lost.publicKeyHex) await backend.set(k, v);
    expect((await active(accountId)).map((s) => s.id).sort()).toEqual([mine.id, lost.id].sort());
    const b = tab(backend, name);
    await b.wallet.restore();
    // Before: the key was kept until it was two minutes old, then deleted, its session left to run
    // to its expiry, unnamed.
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([mine.id]);
    await expect.poll(() => createKeyStore({ backend }).get(lost.publicKeyHex)).toBeUndefined();
    expect(b.wallet.session(accountId)?.id).toBe(mine.id);
    for (const t of [a, b]) t.wallet.dispose();
  });

  it('a logout made offline, then a login again with the same credential (no reload, no wake): the logout’s pending end is finished by the login', async () => {
    const { accountId } = await env.admin.customer();
    const net = cuttable();
    const t = testWallet(env.sandbox, { autoRefresh: false, fetch: net.fetch });
    const first = await emailLogin(t.wallet, accountId);
    net.offline = true;
    await t.wallet.logout(accountId);
    expect((await active(accountId)).map((s) => s.id)).toEqual([first.id]);
    net.offline = false;
    const second = await emailLogin(t.wallet, accountId);
    // Before: only a load, a wake or the next logout finished it (two of the four slots taken).
    await expect.poll(async () => (await active(accountId)).map((s) => s.id)).toEqual([second.id]);
    await expect.poll(() => walletContext(t.wallet).keyStore.get(first.publicKeyHex)).toBeUndefined();
    t.wallet.dispose();
  });
});
