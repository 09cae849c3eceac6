/** Journey 7, in every engine and both modes: a reload keeps the session; the key in IndexedDB (the signer frame's in frame mode) is non-extractable. */
import { currentSessionId, expect, newLoggedInCustomer, signPrivateToggle, test, visible, walletScope } from './fixtures.js';

test('7 · reload keeps the session; the key in IndexedDB is non-extractable', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  const sessionId = await currentSessionId(tab);

  await tab.reload();
  await visible(tab, 'screen-home');
  expect(await currentSessionId(tab)).toBe(sessionId);
  await signPrivateToggle(tab);

  // Read the store the way any script of the wallet's origin could, and try to get the key out.
  const records = await (await walletScope(tab)).evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('embedded-wallet-signer');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const values = await new Promise<unknown[]>((resolve, reject) => {
      const all = db.transaction('keys', 'readonly').objectStore('keys').getAll();
      all.onsuccess = () => resolve(all.result);
      all.onerror = () => reject(all.error);
    });
    db.close();
    const keys = [];
    for (const value of values) {
      if (typeof value !== 'object' || value === null || !('privateKey' in value)) continue;
      const record = value as { privateKey: unknown; purpose?: string; sessionId?: string };
      const key = record.privateKey;
      let exportError = 'exported';
      if (key instanceof CryptoKey) {
        try {
          await crypto.subtle.exportKey('pkcs8', key);
        } catch (e) {
          exportError = (e as DOMException).name;
        }
      }
      keys.push({
        purpose: record.purpose,
        sessionId: record.sessionId,
        isCryptoKey: key instanceof CryptoKey,
        type: key instanceof CryptoKey ? key.type : null,
        extractable: key instanceof CryptoKey ? key.extractable : null,
        exportError,
      });
    }
    return keys;
  });
  const sessionKey = records.find((r) => r.purpose === 'session' && r.sessionId === sessionId);
  expect(sessionKey).toEqual({ purpose: 'session', sessionId, isCryptoKey: true, type: 'private', extractable: false, exportError: 'InvalidAccessError' });
  for (const r of records) expect(r.extractable, `key of purpose ${r.purpose}`).toBe(false);
});
