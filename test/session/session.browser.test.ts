// In real Chromium, Firefox and WebKit, against the sandbox (behind a CORS forwarder started by the globalSetup): a
// reload restores the session from IndexedDB; two wallet instances on one IndexedDB (with Web Locks
// and BroadcastChannel, as two tabs would) refresh once near expiry and both keep signing; logout in
// one ends the other's session.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createIndexedDbBackend, createKeyStore, createWallet, walletContext, type RequestLogEntry, type Wallet, type WalletEvents } from '../../src/index.js';

const url = inject('sandboxUrl');
const enclavePublicKey = inject('enclavePublicKey');
const opened: Wallet[] = [];

afterEach(() => {
  for (const w of opened.splice(0)) w.dispose();
});

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function newAccount(): Promise<string> {
  const id = crypto.randomUUID();
  const customer = await admin('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${id}`, email: `b-${id}@example.com`, currencies: ['USD'] });
  const accounts = await admin('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}`);
  return accounts.data.find((a: { type: string }) => a.type === 'EMBEDDED_WALLET').id;
}

/** A wallet over the IndexedDB database `db`, coordinating with others on `db` (a tab). */
function tab(db: string, requests: RequestLogEntry[] = []): Wallet {
  const wallet = createWallet({
    baseUrl: url,
    trustedKeys: [enclavePublicKey],
    keyStore: createKeyStore({ backend: createIndexedDbBackend({ dbName: db }) }),
    crossTab: { name: db },
    onRequest: (entry) => requests.push(entry),
  });
  opened.push(wallet);
  return wallet;
}

function next<E extends keyof WalletEvents>(wallet: Wallet, event: E, ms = 15_000): Promise<WalletEvents[E]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    const off = wallet.on(event, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('sessions in the browser', () => {
  it('a reload restores the session from IndexedDB and its key still signs', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    const first = tab(db);
    await first.restore();
    const session = await (await first.startOtpLogin({ accountId })).verify('000000');
    first.dispose();

    const requests: RequestLogEntry[] = [];
    const reloaded = tab(db, requests);
    expect(reloaded.session(accountId)).toBeNull();
    expect(await reloaded.restore()).toEqual([session]);
    // Really IndexedDB (no fallback), and the key came back non-extractable.
    const { keyStore } = walletContext(reloaded);
    expect(keyStore.status).toBe('indexeddb');
    expect((await keyStore.get(session.publicKeyHex))?.privateKey.extractable).toBe(false);
    expect(reloaded.session()).toEqual(session);
    await reloaded.logout(accountId);
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => [r.leg, r.signed, r.status])).toEqual([
      [1, false, 202],
      [2, true, 204],
    ]);
    expect(await reloaded.listSessions(accountId)).toEqual([]);
  });

  it('two tabs near expiry: exactly one refresh request, both adopt it and keep signing', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    // What two tabs coordinate with is here (no fallback path in this test).
    expect(typeof navigator.locks?.request).toBe('function');
    expect(typeof BroadcastChannel).toBe('function');
    const requests: RequestLogEntry[] = [];
    const a = tab(db, requests);
    const b = tab(db, requests);
    await a.restore();
    await b.restore();
    const session = await (await a.startOtpLogin({ accountId })).verify('000000');
    await expect.poll(() => b.session(accountId)?.id).toBe(session.id);

    const refreshedA = next(a, 'refreshed');
    const refreshedB = next(b, 'refreshed');
    await admin('POST', '/sandbox/clock/advance', { seconds: 10 * 60 + 5 });
    // Both learn the server's time from an answer; both decide to refresh.
    await Promise.all([a.listSessions(accountId), b.listSessions(accountId)]);
    const [ra, rb] = await Promise.all([refreshedA, refreshedB]);
    expect(ra.previous.id).toBe(session.id);
    expect(rb.session.id).toBe(ra.session.id);
    expect(requests.filter((r) => r.path.endsWith('/refresh') && r.leg === 1)).toHaveLength(1);
    expect(a.session(accountId)?.id).toBe(ra.session.id);
    expect(b.session(accountId)?.id).toBe(ra.session.id);
    // Both sign with the new key (B read it from IndexedDB).
    // Both sign with the new key; the refresh ended the session it replaced (one slot per browser).
    expect(await a.signOutOtherDevices(accountId)).toBe(0);
    expect(await b.signOutOtherDevices(accountId)).toBe(0);
    expect((await a.listSessions(accountId)).map((s) => s.id)).toEqual([ra.session.id]);
  });

  it('logout in one tab ends the session in the other', async () => {
    const db = `ews-${crypto.randomUUID()}`;
    const accountId = await newAccount();
    const a = tab(db);
    const b = tab(db);
    await a.restore();
    await b.restore();
    await (await a.startOtpLogin({ accountId })).verify('000000');
    await expect.poll(() => b.session(accountId)).not.toBeNull();
    const out = next(b, 'logged-out');
    await a.logout(accountId);
    expect(await out).toEqual({ accountId, reason: 'other-tab' });
    expect(b.session(accountId)).toBeNull();
    expect(await codeOf(b.signOutOtherDevices(accountId))).toBe('NOT_LOGGED_IN');
  });
});
