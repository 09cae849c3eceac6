/** Journey 17: the browser refuses to store a CryptoKey (Safari private mode) → memory, with a warning. */
import { autoApprove, byTest, expect, newLoggedInCustomer, signPrivateToggle, test } from './fixtures.js';

test('17 · storage fallback: IndexedDB refuses the key → login still works, with a visible warning', async ({ page, context }) => {
  await autoApprove(context);
  // What Safari does in private browsing: any record holding a CryptoKey cannot be cloned.
  await context.addInitScript(() => {
    const put = IDBObjectStore.prototype.put;
    const holdsKey = (value: unknown): boolean =>
      value instanceof CryptoKey || (typeof value === 'object' && value !== null && Object.values(value).some((v) => v instanceof CryptoKey));
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if (holdsKey(value)) throw new DOMException('A CryptoKey could not be cloned.', 'DataCloneError');
      return put.call(this, value, key);
    };
  });

  await newLoggedInCustomer(page);
  const banner = byTest(page, 'banner-storage-fallback');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('role', 'alert');
  await expect(banner).toContainText('Keys cannot be saved in this browser (cryptokey-not-storable)');
  await expect(banner).toContainText('memory only');
  await signPrivateToggle(page);

  // As the warning says: the key lived in this page only, so a reload asks for a login again.
  await page.reload();
  await expect(byTest(page, 'screen-login')).toBeVisible();
});
