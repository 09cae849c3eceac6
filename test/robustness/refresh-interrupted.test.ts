// Closing a tab in the middle of a refresh loses no session. The service accepts the refresh (a new
// session exists on its side), but the answer never reaches the page: the tab was closed (the
// fetch never settles, the page is gone) or the connection broke. The new key was never stored, so
// the page reloaded on the same storage restores the old session, whose key still signs; a later
// refresh works. Through the wallet facade, against the in-process sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createWallet, type Wallet } from '../../src/wallet.js';
import { createKeyStore, createMemoryBackend, type KeyStoreBackend } from '../../src/keys/index.js';
import { isWalletError } from '../../src/errors.js';
import { SANDBOX_BASIC, createWalletCustomer, platformClient } from '../../scripts/load.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
});
afterAll(async () => {
  await sandbox.close();
});

type Interrupt = 'tab-closed' | 'connection-lost';

/** A wallet on `backend` whose fetch lets the signed refresh reach the service and then loses the answer. */
function wallet(backend: KeyStoreBackend, interrupt?: { how: Interrupt; accepted: () => void }): Wallet {
  const fetchThrough: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const signed = new Headers(init?.headers).has('Service-Wallet-Signature');
    const response = await fetch(input, init);
    if (interrupt && signed && url.endsWith('/refresh')) {
      // The service has answered: the refresh is accepted and a new session exists there.
      expect(response.status).toBe(201);
      interrupt.accepted();
      if (interrupt.how === 'tab-closed') return new Promise<Response>(() => undefined); // the page is gone
      throw new TypeError('network error: connection reset while reading the answer');
    }
    return response;
  };
  return createWallet({
    baseUrl: sandbox.url,
    trustedKeys: [sandbox.enclavePublicKey],
    headers: { Authorization: SANDBOX_BASIC },
    keyStore: createKeyStore({ backend }),
    crossTab: false,
    autoRefresh: false,
    fetch: fetchThrough,
    // The closed tab's stuck request ends at its timeout: in a real browser the whole page is gone,
    // here it shares the realm (and the realm-local refresh lock) with the reloaded page.
    ...(interrupt ? { timeoutMs: 1_000 } : {}),
  });
}

async function activeSessionIds(accountId: string): Promise<string[]> {
  const list = await platformClient(sandbox.url).request<{ data: { id: string }[] }>({ method: 'GET', path: '/auth/sessions', query: { accountId } });
  return list.data.map((s) => s.id).sort();
}

describe('a refresh interrupted after the service accepted it', () => {
  for (const how of ['tab-closed', 'connection-lost'] as const) {
    it(`${how}: the old session is kept and still signs, after a reload too; the next refresh works`, async () => {
      const { accountId } = await createWalletCustomer(platformClient(sandbox.url), `tab-${how}-${Date.now()}`);
      const backend = createMemoryBackend();
      let accepted!: () => void;
      const acceptedOnService = new Promise<void>((resolve) => {
        accepted = resolve;
      });
      const tab = wallet(backend, { how, accepted });
      const login = await tab.startOtpLogin({ accountId });
      const old = await login.verify('000000');

      const refreshing = tab.refresh(accountId);
      refreshing.catch(() => undefined);
      await acceptedOnService;
      const onService = await activeSessionIds(accountId);
      expect(onService).toHaveLength(2); // the old session and the new one the page never learned of
      expect(onService).toContain(old.id);

      if (how === 'connection-lost') {
        // The same page: the refresh fails with a typed error and the old session goes on signing.
        const error = await refreshing.then(() => undefined, (e: unknown) => e);
        expect(isWalletError(error, 'NETWORK_ERROR')).toBe(true);
        expect(tab.session(accountId)?.id).toBe(old.id);
        const updated = await tab.updateAccount(accountId, { privateEnabled: true });
        expect(updated.privateEnabled).toBe(true);
      }
      tab.dispose();

      // The page reloads on the same storage.
      const reloaded = wallet(backend);
      const restored = await reloaded.restore();
      expect(restored.map((s) => s.id)).toEqual([old.id]);
      expect(reloaded.session(accountId)?.id).toBe(old.id);
      const updated = await reloaded.updateAccount(accountId, { privateEnabled: false });
      expect(updated.privateEnabled).toBe(false);

      // Nothing half-stored: only the old session's key is in storage.
      const keys = await createKeyStore({ backend }).list({ purpose: 'session' });
      expect(keys.map((k) => k.publicKeyHex)).toEqual([old.publicKeyHex]);

      // A refresh now completes, and the new session signs.
      const next = await reloaded.refresh(accountId);
      expect(next.id).not.toBe(old.id);
      expect(reloaded.session(accountId)?.id).toBe(next.id);
      expect((await reloaded.updateAccount(accountId, { privateEnabled: true })).id).toBe(accountId);
      expect(await activeSessionIds(accountId)).toContain(next.id);
      reloaded.dispose();
    });
  }
});
