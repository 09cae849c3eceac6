/**
 * What the journeys of e2e/portable/ read of the wallet's own requests beyond their legs (modes.ts):
 * chosen headers, chosen fields of the JSON body, and the answer's text. Recorded where the wallet
 * sends them ({@link walletScope}: the app's page in-origin, the signer frame in frame mode) by a
 * wrapper of that document's `fetch`, put there before the action (any engine's driver can; none
 * needs request interception). The record lives in that document's memory, never in a log.
 */
import { expect } from '@playwright/test';
import type { Tab } from '../drivers/driver.js';
import { walletScope } from './modes.js';

/** One request of the wallet to the proxy (`/api/…`), as recorded. */
export interface SentRequest {
  method: string;
  path: string;
  status: number;
  /** The recorded headers the request carried (lower-case names). */
  headers: Record<string, string>;
  /** The recorded top-level fields of its JSON body that were strings. */
  fields: Record<string, string>;
  /** The answer's text. */
  answer: string;
}

interface Wanted {
  headers: string[];
  fields: string[];
}

/**
 * In the page or frame: records each request to `/api/…` with the wanted headers and body fields
 * (once per document). Its first lines read a request as modes.ts's `recordLegs` does: both run in
 * the browser as self-contained sources (the driver's `evaluate`), so they cannot share a helper.
 */
function recordRequests(wanted: Wanted): boolean {
  const w = globalThis as { e2eRequests?: SentRequest[] };
  if (location.protocol === 'about:') return false;
  if (w.e2eRequests !== undefined) return true;
  const sent: SentRequest[] = [];
  w.e2eRequests = sent;
  const real = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const given = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const headers: Record<string, string> = {};
    for (const name of wanted.headers) if (given.has(name)) headers[name] = given.get(name)!;
    const fields: Record<string, string> = {};
    if (typeof init?.body === 'string') {
      try {
        const body = JSON.parse(init.body) as Record<string, unknown>;
        for (const name of wanted.fields) if (typeof body[name] === 'string') fields[name] = body[name];
      } catch {
        // not JSON: no fields
      }
    }
    const response = await real.call(globalThis, input, init);
    if (url.pathname.startsWith('/api/')) sent.push({ method, path: url.pathname, status: response.status, headers, fields, answer: await response.clone().text() });
    return response;
  };
  return true;
}

/** Starts recording the wallet's requests of this tab (call before the action that sends them). */
export async function recordWalletRequests(tab: Tab, wanted: Wanted): Promise<void> {
  const scope = await walletScope(tab);
  expect(await scope.evaluate(recordRequests, wanted)).toBe(true);
}

/** The wallet's recorded requests of `method` whose path matches `path` (a regular expression's source), oldest first. */
export async function walletRequests(tab: Tab, method: string, path: string): Promise<SentRequest[]> {
  const scope = await walletScope(tab);
  const sent = await scope.evaluate(() => (globalThis as { e2eRequests?: SentRequest[] }).e2eRequests ?? []);
  return sent.filter((r) => r.method === method && new RegExp(path).test(r.path));
}
