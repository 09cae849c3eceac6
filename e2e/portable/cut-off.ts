/**
 * The proxy unreachable, or the browser offline, for journeys 24, 33, 37 and 38 in every engine and
 * both modes, with no request interception (WebKitWebDriver has none, and a patch of the app page's
 * `fetch` misses frame mode's requests, which the signer frame on another origin makes): the
 * wallet's `fetch` (looked up at each call, src/transport/client.ts) is cut off in each document of
 * the tab that sends requests — the page, and in frame mode its signer frame — as a network error
 * (fetch rejects with a TypeError, as on a lost connection or an aborted request). Applied to a
 * document already loaded (no init script: every engine's driver can); a load ends it.
 *
 * What this does not exercise: the browser's own network stack failing, and (for "offline") the
 * browser itself firing `offline`/`online`: {@link goOffline} sets `navigator.onLine` and
 * dispatches the events in the document, as a browser does, so the wallet's listener (src/session/
 * page-events.ts, `online` on the global) is what hears them. Chromium's real offline emulation is
 * kept beside the portable journey (e2e/13-session-leftovers.spec.ts, journey 37).
 */
import { expect } from '@playwright/test';
import type { Scope, Tab } from '../drivers/driver.js';
import { inFrameMode, walletScope } from './modes.js';

/**
 * In a page or frame: from now on, until called again with `null`, requests whose URL contains
 * `part` ('' for every request) fail as without a network; each one tried is listed in
 * `globalThis.e2eCutTried` as `METHOD signed|unsigned path`. `offline`: `navigator.onLine` follows
 * and the window hears `offline` (cut) or `online` (restored), as from the browser.
 */
export function cutOff(arg: { part: string | null; offline: boolean }): void {
  type Cut = { e2eCut?: string | null; e2eCutTried?: string[]; e2eCutInstalled?: boolean; e2eOnLine?: boolean };
  const w = globalThis as Cut;
  w.e2eCut = arg.part;
  w.e2eCutTried ??= [];
  if (w.e2eCutInstalled !== true) {
    w.e2eCutInstalled = true;
    const real = globalThis.fetch;
    const tried = w.e2eCutTried;
    globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href);
      if (typeof w.e2eCut === 'string' && url.href.includes(w.e2eCut)) {
        const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
        const signed = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has('service-wallet-signature');
        tried.push(`${method} ${signed ? 'signed' : 'unsigned'} ${url.pathname}`);
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      return real.call(globalThis, input, init);
    };
  }
  if (!arg.offline) return;
  if (w.e2eOnLine === undefined) Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => w.e2eOnLine });
  w.e2eOnLine = arg.part === null;
  dispatchEvent(new Event(w.e2eOnLine ? 'online' : 'offline'));
}

/** The documents of the tab that send requests: the page, and in frame mode its signer frame (once loaded). */
async function requestingDocuments(tab: Tab): Promise<Scope[]> {
  return inFrameMode(tab) ? [tab, await walletScope(tab)] : [tab];
}

/** The proxy (`/api/`) unreachable from the tab (`true`) or reachable again (`false`). */
export async function proxyUnreachable(tab: Tab, unreachable: boolean): Promise<void> {
  for (const scope of await requestingDocuments(tab)) await scope.evaluate(cutOff, { part: unreachable ? '/api/' : null, offline: false });
}

/** The tab offline (every request fails, `navigator.onLine` false, `offline` heard) or online again (`online` heard). */
export async function tabOffline(tab: Tab, offline: boolean): Promise<void> {
  for (const scope of await requestingDocuments(tab)) await scope.evaluate(cutOff, { part: offline ? '' : null, offline: true });
}

/** The wallet's requests the cut-off failed in the tab (its wallet's document), as `METHOD signed|unsigned path`. */
export async function triedWhileCut(tab: Tab): Promise<string[]> {
  return (await walletScope(tab)).evaluate(() => (globalThis as { e2eCutTried?: string[] }).e2eCutTried ?? []);
}

/** Waits until the wallet of the tab has tried (and failed) a request matching `pattern` while cut off. */
export async function expectTried(tab: Tab, pattern: RegExp): Promise<void> {
  await expect.poll(async () => (await triedWhileCut(tab)).some((t) => pattern.test(t)), { message: `a request ${pattern} tried while cut off` }).toBe(true);
}
