/**
 * Journey 17 in every engine and both modes: the browser refuses to store
 * a CryptoKey (what Safari does in private browsing: DataCloneError) → the keys live in memory, the
 * login still works, with a visible warning; a reload asks for a login again.
 *
 * The refusal must be there before the wallet's first look at its key store (its restore, at the
 * load), which needs an init script (WebKitGTK's WebKitWebDriver has none: the demo stack's test
 * switch adds it, demo/server/init-scripts.ts). In frame mode the init script runs in the signer frame too, where the keys
 * live: IndexedDB opens there (so the frame serves; SIGNER_STORAGE_UNAVAILABLE is for a frame whose
 * IndexedDB cannot open, THREAT-MODEL.md P3), refuses the key, and the frame keeps it in its own
 * memory (never outside the frame); the app hears the `storage-fallback` event and shows the warning.
 */
import { attributeOf, expect, isVisible, newLoggedInCustomer, signPrivateToggle, test, textOf, visible } from './fixtures.js';

/** Init script: any IndexedDB record holding a CryptoKey cannot be cloned (put throws DataCloneError). */
function cryptoKeysNotStorable(): void {
  const put = IDBObjectStore.prototype.put;
  const holdsKey = (value: unknown): boolean => value instanceof CryptoKey || (typeof value === 'object' && value !== null && Object.values(value).some((v) => v instanceof CryptoKey));
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    if (holdsKey(value)) throw new DOMException('A CryptoKey could not be cloned.', 'DataCloneError');
    return put.call(this, value, key);
  };
}

test('17 · storage fallback: IndexedDB refuses the key → login still works, with a visible warning', async ({ openDevice }) => {
  test.slow(); // Firefox ran out of the 45 s at load 33 (19 s at load 20)
  const tab = await (await openDevice()).newTab();
  await tab.addInitScript(cryptoKeysNotStorable, undefined);

  await newLoggedInCustomer(tab);
  await visible(tab, 'banner-storage-fallback');
  expect(await attributeOf(tab, 'banner-storage-fallback', 'role')).toBe('alert');
  const warning = await textOf(tab, 'banner-storage-fallback');
  expect(warning).toContain('Keys cannot be saved in this browser (cryptokey-not-storable)');
  expect(warning).toContain('memory only');
  await signPrivateToggle(tab);

  // As the warning says: the key lived in this page only, so a reload asks for a login again.
  await tab.reload();
  await visible(tab, 'screen-login');
  expect(await isVisible(tab, 'screen-home')).toBe(false);
});
