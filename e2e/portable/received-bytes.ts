/**
 * What the browser received and sent during a journey, in each engine, for journey 18 (a secret
 * must appear in none of it). Each engine's method, and what it does not see:
 *
 * - Chromium (Playwright, CDP): every response of the device's pages and frames (popups included),
 *   its headers and body as received (redirects: headers only), and every request sent with its
 *   headers and body. Kinds are Playwright's resource types.
 * - Firefox ESR (puppeteer-core over WebDriver BiDi): the same through BiDi's network events and
 *   its data collectors (`network.addDataCollector`, puppeteer's `response.buffer()` and
 *   `request.fetchPostData()`), for the tab and each window opened in its profile (a window is
 *   watched from when puppeteer reports it: a request it made before is missed). Kinds are the
 *   request's `Sec-Fetch-Dest`.
 * - WebKitGTK (W3C WebDriver classic: no network events): the pages' own records. A recorder
 *   (the device's init script, which the demo stack puts first into every document it serves: the
 *   app's, and in frame mode the signer frame's and its approval window's) keeps each `fetch` of
 *   the document, its request (URL, headers, body) and its answer (status, the headers a script
 *   can read, body), and the Resource Timing entries of everything else it loaded; it saves them
 *   in the origin's localStorage as they come (a load replaces the document, not its origin's
 *   storage). Documents and resources loaded by URL (GET) are fetched again here by URL, from the
 *   same server, and searched: the same bytes only where the server answers a URL always alike
 *   (the demo's static files and modules, the sandbox's sign-in page). A page the stack does not
 *   serve (the sandbox's sign-in page) is read when shown ({@link ReceivedWatch.readShownPage}):
 *   its URL, its DOM and its resources. Not seen in WebKit: a redirect's answer (the sign-in
 *   form's POST and its 302: only where it led), `Set-Cookie` and the other headers a script cannot
 *   read (of a cross-origin answer, all but the CORS-safelisted and exposed ones: in frame mode a
 *   header added to the proxy's answers to the signer frame went unseen, tried), the headers the browser itself adds (cookies among them), requests not made with `fetch`
 *   (XMLHttpRequest, beacons, WebSockets: the wallet and the demo use `fetch`), and what a document
 *   not served by the stack fetched.
 */
import { expect } from '@playwright/test';
import type { HTTPRequest, HTTPResponse, Page as PuppeteerPage, Target } from 'puppeteer-core';
import type { Request as PlaywrightRequest, Response as PlaywrightResponse } from '@playwright/test';
import { INIT_JS_ROUTE } from '../../demo/server/init-scripts.js';
import type { Scope, Tab } from '../drivers/driver.js';

/** What an answer was for: a document (page or frame), a script, a `fetch`, or anything else. */
export type Kind = 'document' | 'script' | 'fetch' | 'other';

/** One answer the browser received, its headers and body as text. */
export interface Received {
  kind: Kind;
  url: string;
  /** The answer's status (WebKit: of the URL fetched again; a shown page or a recorded fetch: as received). */
  status: number;
  /** Its headers and body. */
  text: string;
  /** The body's length in characters (0: none, or none read). */
  body: number;
}

/** Everything observed: the answers received, the requests sent (headers and body as text), and the answers whose body could not be read. */
export interface Observed {
  received: Received[];
  sent: Array<{ method: string; url: string; text: string; authorization: string }>;
  unread: string[];
}

export interface ReceivedWatch {
  /** WebKit: reads the page shown now (one the demo stack does not serve); elsewhere nothing to do. */
  readShownPage(): Promise<void>;
  /** Everything observed since {@link watchReceived}, once every body was read. */
  collect(): Promise<Observed>;
}

const BODY_WAIT = 10_000;

/** `body()`, or a rejection after BODY_WAIT (a body the page never finished reading would wait forever). */
async function bodyOf(read: () => Promise<Buffer>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`body not received in ${BODY_WAIT / 1000} s`)), BODY_WAIT)));
  try {
    return (await Promise.race([read(), late])).toString('utf8');
  } finally {
    clearTimeout(timer);
  }
}

/** Collects the engine's events: each answer and request is read as it comes (a load drops the previous document's bodies). */
class EventLog {
  readonly observed: Observed = { received: [], sent: [], unread: [] };
  private readonly reads: Promise<void>[] = [];

  answer(kind: Kind, status: number, method: string, url: string, headers: Promise<Record<string, string>> | Record<string, string>, body: () => Promise<Buffer>): void {
    this.reads.push(
      (async () => {
        let text = '';
        if (status < 300 || status >= 400) {
          try {
            text = await bodyOf(body);
          } catch (e) {
            this.observed.unread.push(`${status} ${method} ${url}: ${String(e)}`);
          }
        }
        this.observed.received.push({ kind, url, status, text: JSON.stringify(await headers) + text, body: text.length });
      })(),
    );
  }

  request(method: string, url: string, headers: Record<string, string>, body: Promise<string | undefined> | string | undefined): void {
    this.reads.push(
      (async () => {
        const sent = JSON.stringify(headers) + ((await body) ?? '');
        this.observed.sent.push({ method, url, text: sent, authorization: headers['authorization'] ?? '' });
      })(),
    );
  }

  async collect(): Promise<Observed> {
    await Promise.all(this.reads);
    return this.observed;
  }
}

/** Firefox: the kind of a request by its `Sec-Fetch-Dest` (BiDi has no resource type). */
function kindOfDestination(destination: string | undefined): Kind {
  if (destination === 'document' || destination === 'iframe') return 'document';
  if (destination === 'script') return 'script';
  return destination === 'empty' ? 'fetch' : 'other';
}

function watchPuppeteerPage(page: PuppeteerPage, log: EventLog): void {
  page.on('request', (r: HTTPRequest) => log.request(r.method(), r.url(), r.headers(), r.hasPostData() ? r.fetchPostData() : undefined));
  page.on('response', (r: HTTPResponse) => log.answer(kindOfDestination(r.request().headers()['sec-fetch-dest']), r.status(), r.request().method(), r.url(), r.headers(), () => r.buffer()));
}

/** Chromium and Firefox: the engine's network events of the tab's profile. */
function watchEvents(tab: Tab): ReceivedWatch | null {
  const native = tab.native?.();
  if (native === undefined) return null;
  const log = new EventLog();
  if (native.engine === 'chromium') {
    const context = native.page.context();
    context.on('request', (r: PlaywrightRequest) => log.request(r.method(), r.url(), r.headers(), r.postData() ?? undefined));
    context.on('response', (r: PlaywrightResponse) => log.answer(r.request().resourceType() as Kind, r.status(), r.request().method(), r.url(), r.allHeaders(), () => r.body()));
  } else {
    watchPuppeteerPage(native.page, log);
    native.page.browserContext().on('targetcreated', (target: Target) => {
      void target.page().then((page) => {
        if (page !== null && page !== native.page) watchPuppeteerPage(page, log);
      });
    });
  }
  return { readShownPage: async () => undefined, collect: () => log.collect() };
}

/** One document's records (WebKit), as its recorder saved them. */
interface DocumentRecord {
  document: string;
  fetches: Array<{ method: string; url: string; requestHeaders: Record<string, string>; requestBody: string; status: number; headers: Record<string, string>; body: string }>;
  resources: Array<{ name: string; type: string }>;
}

/**
 * The init script (WebKit): records this document's fetches and Resource Timing entries under a
 * key of its own in the origin's localStorage (saved at each change, so a load loses nothing).
 */
function receivedRecorder(): void {
  type Record = DocumentRecord;
  const w = globalThis as { e2eReceived?: Record };
  if (location.protocol === 'about:' || w.e2eReceived !== undefined) return;
  const key = `e2e-received:${Date.now()}:${Math.random().toString(36).slice(2)}`;
  const record: Record = { document: location.href, fetches: [], resources: [] };
  w.e2eReceived = record;
  const save = () => localStorage.setItem(key, JSON.stringify(record));
  save();
  performance.setResourceTimingBufferSize(100_000);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) record.resources.push({ name: entry.name, type: entry.initiatorType });
    save();
  }).observe({ type: 'resource', buffered: true });
  const real = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href).href;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const requestHeaders = Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).entries());
    const given = init?.body;
    const requestBody = typeof given === 'string' ? given : given == null ? (input instanceof Request ? await input.clone().text() : '') : `[a ${Object.prototype.toString.call(given)} body]`;
    const response = await real.call(globalThis, input, init);
    const body = await response.clone().text();
    record.fetches.push({ method, url, requestHeaders, requestBody, status: response.status, headers: Object.fromEntries(response.headers.entries()), body });
    save();
    return response;
  };
}

/** In a document: the records its origin's localStorage holds (WebKit). */
function savedRecords(): DocumentRecord[] {
  const records: DocumentRecord[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i)!;
    if (key.startsWith('e2e-received:')) records.push(JSON.parse(localStorage.getItem(key)!) as DocumentRecord);
  }
  return records;
}

/** In the page shown: its URL, its DOM and its resources (a page the stack does not serve). */
function shownPage(): { record: DocumentRecord; html: string } {
  const resources = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({ name: e.name, type: e.initiatorType }));
  return { record: { document: location.href, fetches: [], resources }, html: document.documentElement.outerHTML };
}

/** WebKit: the pages' own records (see the header), read from each origin the journey's documents had. */
async function watchRecords(tab: Tab, origins: () => Promise<Scope[]>): Promise<ReceivedWatch> {
  await tab.addInitScript(receivedRecorder, undefined);
  const shown: Array<{ record: DocumentRecord; html: string }> = [];
  return {
    readShownPage: async () => {
      shown.push(await tab.evaluate(shownPage));
    },
    collect: async () => {
      const observed: Observed = { received: [], sent: [], unread: [] };
      const records = [...(await Promise.all((await origins()).map((o) => o.evaluate(savedRecords)))).flat(), ...shown.map((s) => s.record)];
      for (const s of shown) observed.received.push({ kind: 'document', url: s.record.document, status: 200, text: s.html, body: s.html.length });
      // Each URL loaded (GET) is fetched again once, here, from the same server.
      const fetched = new Map<string, Promise<{ status: number; type: string; text: string; body: number }>>();
      const again = (url: string) => {
        if (!fetched.has(url))
          fetched.set(
            url,
            fetch(url).then(async (r) => {
              const body = await r.text();
              return { status: r.status, type: r.headers.get('content-type') ?? '', text: JSON.stringify(Object.fromEntries(r.headers.entries())) + body, body: body.length };
            }),
          );
        return fetched.get(url)!;
      };
      for (const record of records) {
        const page = await again(record.document).catch((e: unknown) => (observed.unread.push(`GET ${record.document}: ${String(e)}`), null));
        if (page !== null) observed.received.push({ kind: 'document', url: record.document, status: page.status, text: record.document + page.text, body: page.body });
        for (const f of record.fetches) {
          observed.sent.push({ method: f.method, url: f.url, text: f.url + JSON.stringify(f.requestHeaders) + f.requestBody, authorization: f.requestHeaders['authorization'] ?? '' });
          observed.received.push({ kind: 'fetch', url: f.url, status: f.status, text: JSON.stringify(f.headers) + f.body, body: f.body.length });
        }
        for (const r of record.resources) {
          if (r.type === 'fetch' || r.type === 'xmlhttprequest') continue; // the recorder's fetches above (or not a GET of a URL)
          if (new URL(r.name).pathname === INIT_JS_ROUTE) continue; // the test's own init script (this recorder), served to this device only
          const got = await again(r.name).catch((e: unknown) => (observed.unread.push(`GET ${r.name}: ${String(e)}`), null));
          if (got === null) continue;
          const kind: Kind = /javascript|typescript/.test(got.type) ? 'script' : r.type === 'iframe' ? 'document' : 'other';
          observed.received.push({ kind, url: r.name, status: got.status, text: r.name + got.text, body: got.body });
        }
      }
      return observed;
    },
  };
}

/**
 * Starts watching what the tab's browser receives and sends (before its first load). `origins`:
 * WebKit reads its records from a document of each origin the journey's documents had (the app's
 * page, and in frame mode the signer frame), at the end.
 */
export async function watchReceived(tab: Tab, origins: () => Promise<Scope[]>): Promise<ReceivedWatch> {
  return watchEvents(tab) ?? watchRecords(tab, origins);
}

/** The answers and requests in which one of `needles` appears, and requests with Basic authorization. */
export function leaksIn(observed: Observed, needles: readonly string[]): string[] {
  expect(needles.every((n) => n.length >= 8)).toBe(true);
  return [
    ...observed.received.filter((r) => needles.some((n) => r.text.includes(n))).map((r) => `received ${r.kind} ${r.url}`),
    ...observed.sent.filter((s) => needles.some((n) => s.text.includes(n)) || /basic /i.test(s.authorization)).map((s) => `sent ${s.method} ${s.url}`),
  ];
}
