/**
 * Events a journey waits for instead of a pause: the moments after which something that did not
 * happen cannot happen any more. Each function runs in the page (Playwright's `page.evaluate` or the
 * portable driver's `tab.evaluate`): self-contained, one JSON argument.
 */
import type { Page, Request } from '@playwright/test';

/**
 * In the page: whether no tab of its origin holds or waits for a lock whose name contains `part`
 * (`navigator.locks.query()` sees every tab of the origin). The session layer names its locks
 * `…:refresh:<account>` (a refresh's request is sent holding it), `…:account:<account>` (a tab's
 * section: reading storage, committing) and `…:logins:<account>` (src/session/critical-section.ts).
 */
export async function locksIdle(part: string): Promise<boolean> {
  const { held = [], pending = [] } = await navigator.locks.query();
  return [...held, ...pending].every((lock) => !(lock.name ?? '').includes(part));
}

/**
 * An init script: counts the IndexedDB transactions of this page, begun and ended (complete, abort
 * or error: `globalThis.e2eIdb`), so that a journey can wait for a read the page makes on its own
 * (e.g. storage read again when the page comes back into view) to have begun and ended.
 */
export function countIdbTransactions(): void {
  const counts = { begun: 0, ended: 0 };
  (globalThis as { e2eIdb?: typeof counts }).e2eIdb = counts;
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof transaction>) {
    const tx = transaction.apply(this, args);
    counts.begun++;
    let ended = false;
    const end = (): void => {
      if (!ended) counts.ended++;
      ended = true;
    };
    for (const type of ['complete', 'abort', 'error']) tx.addEventListener(type, end);
    return tx;
  } as typeof transaction;
}

/** In the page: `countIdbTransactions`'s counts (zeros when it is not installed). */
export function idbTransactions(): { begun: number; ended: number } {
  return (globalThis as { e2eIdb?: { begun: number; ended: number } }).e2eIdb ?? { begun: 0, ended: 0 };
}

/** Counts the requests a Playwright page sent that have not finished or failed yet (install before they start). */
export function requestsInFlight(page: Pick<Page, 'on'>): () => number {
  const open = new Set<Request>();
  page.on('request', (r) => open.add(r));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  return () => open.size;
}
