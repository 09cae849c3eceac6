/**
 * Journey 23, in every engine and both modes: a first visit and a login leave a clean console, and
 * the credentials are listed once. From a fresh browser (no demo customer, no session): the start
 * screen, the demo's sign-up (its own login), then the wallet login by email code to the wallet
 * home, all in the first visit's document. No console message at warning or error level and no
 * uncaught error on the way (a first visit used to log the 401 of `GET /demo/me`); exactly one
 * `GET /api/auth/credentials` (the login screen used to fetch the passkey challenge on opening,
 * which lists the credentials too, before the code login listed them again). The credentials
 * screen then lists them once more (its passkey preparation reuses that list).
 *
 * What each engine's driver observes:
 * - Chromium (Playwright) and Firefox ESR (puppeteer-core over WebDriver BiDi: log.entryAdded,
 *   network.beforeRequestSent): every console message and every request of the tab and its frames,
 *   the browser's own messages included (a failed resource's 4xx), from the tab's opening
 *   (`Tab.reports`), and uncaught errors (`Tab.errors`, checked by the fixture).
 * - WebKitGTK (W3C WebDriver classic: no log or network events, no init script; MiniBrowser's
 *   `--enable-write-console-messages-to-stdout` writes nothing under WebKitWebDriver, tried): the
 *   page's own records, read in each document: its console.warn/error calls, error and
 *   unhandledrejection events (`consoleRecorder`, from the moment it is put in: after the first
 *   visit's load in the app, once loaded in the signer frame), and its Resource Timing entries for
 *   the requests (`credentialListings`, with the entries buffered since the document's start). Not
 *   seen there: what the document logs during its own load before the recorder is in, and the
 *   browser's own messages (a 4xx resource is not a console call).
 */
import type { Reports, Scope, Tab } from '../drivers/driver.js';
import { uniqueContact } from '../fixtures.js';
import { locksIdle } from '../settled.js';
import { inFrameMode, walletScope } from './modes.js';
import { attributeOf, expect, isVisible, loginWithEmailCode, test, visible } from './fixtures.js';

const LISTING = '/api/auth/credentials';

// A login and more on a machine shared by several runs: three times the default timeout (WebKit's
// journey 8 ran out of 45 s at load 20; Firefox's 30 took 43 s).
test.slow();

/**
 * In a document: records its console.warn/error calls and uncaught errors in `globalThis.e2eConsole`,
 * its fetches in flight in `globalThis.e2eInFlight`, and its Resource Timing entries of `listing` (as
 * they end, and those buffered since its start) in `globalThis.e2eListings`. Returns false when the
 * document is not ready for it (about:blank); once per document.
 */
function consoleRecorder(listing: string): boolean {
  const w = globalThis as { e2eConsole?: string[]; e2eInFlight?: number; e2eListings?: string[]; e2eDropped?: boolean };
  if (location.protocol === 'about:') return false;
  if (w.e2eConsole !== undefined) return true;
  const heard: string[] = [];
  w.e2eConsole = heard;
  for (const level of ['warn', 'error'] as const) {
    const real = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      heard.push(`${level}: ${args.map(String).join(' ')} (${location.href})`);
      real(...args);
    };
  }
  addEventListener('error', (e) => heard.push(`pageerror: ${e.message}`));
  addEventListener('unhandledrejection', (e) => heard.push(`unhandledrejection: ${String(e.reason)}`));
  w.e2eInFlight = 0;
  const fetch = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
    w.e2eInFlight!++;
    try {
      return await fetch(...args);
    } finally {
      w.e2eInFlight!--;
    }
  };
  // An entry the buffer had no room for is lost: none can be (the buffer never filled before now, and grows).
  w.e2eDropped = performance.getEntriesByType('resource').length >= 250;
  performance.setResourceTimingBufferSize(100_000);
  const listings: string[] = [];
  w.e2eListings = listings;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (new URL(entry.name).pathname === listing) listings.push(entry.name);
  }).observe({ type: 'resource', buffered: true });
  return true;
}

/** In a document: what `consoleRecorder` holds (null: not put in this document, e.g. it was replaced). */
function recorded(): { console: string[]; inFlight: number; listings: string[]; dropped: boolean } | null {
  const w = globalThis as { e2eConsole?: string[]; e2eInFlight?: number; e2eListings?: string[]; e2eDropped?: boolean };
  return w.e2eConsole === undefined ? null : { console: w.e2eConsole, inFlight: w.e2eInFlight!, listings: w.e2eListings!, dropped: w.e2eDropped! };
}

/** What the journey observes of a tab: the engine's reports, or the page's own records (WebKit). */
class Observed {
  private readonly documents: Scope[];

  constructor(
    private readonly tab: Tab,
    wallet: Scope | null,
  ) {
    this.documents = wallet === null || wallet === tab ? [tab] : [tab, wallet];
  }

  /** The page's records in each document (fails if a document was replaced since they were put in). */
  private async records() {
    const all = await Promise.all(this.documents.map((d) => d.evaluate(recorded)));
    if (all.some((r) => r === null)) throw new Error('a document observed was replaced: its records are gone');
    return all.map((r) => r!);
  }

  async listings(): Promise<number> {
    if (this.tab.reports) return this.tab.reports().requests.filter((r) => r.method === 'GET' && new URL(r.url).pathname === LISTING).length;
    // Resource Timing has no method: the only request to this very path in the journey is the listing (no credential is added).
    return (await this.records()).reduce((n, r) => n + r.listings.length, 0);
  }

  async console(): Promise<string[]> {
    const records = this.tab.reports ? [] : await this.records();
    expect(records.filter((r) => r.dropped), 'Resource Timing entries dropped').toEqual([]);
    return this.tab.reports ? (this.tab.reports() as Reports).console : records.flatMap((r) => r.console);
  }

  /** No fetch of the observed documents under way (the engines with reports: every request answered). */
  async idle(): Promise<boolean> {
    return (await this.records()).every((r) => r.inFlight === 0);
  }
}

/**
 * Settled: no fetch of the wallet's documents under way, and no wallet work in a section of the
 * wallet's origin (the app's in-origin, the signer frame's in frame mode): what the screen started
 * on render has been answered.
 */
async function settled(observed: Observed, wallet: Scope): Promise<void> {
  await expect.poll(async () => (await observed.idle()) && (await wallet.evaluate(locksIdle, ':account:')) && (await wallet.evaluate(locksIdle, ':logins:'))).toBe(true);
}

test('23 · a first visit and a login: a clean console, one GET /auth/credentials', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  // The first visit: the start screen, then the demo's sign-up, in one document.
  await tab.goto('/');
  // The first render of the dev server's app: WebKit took over 10 s at load 37.
  await expect.poll(() => isVisible(tab, 'signup-email'), { timeout: 60_000 }).toBe(true);
  await expect.poll(() => tab.evaluate(consoleRecorder, LISTING)).toBe(true);
  // In-origin the login's signature is approved by the demo's "Auto-approve signing", ticked as a
  // user does (read at load from storage otherwise: a second document); frame mode signs it in the frame.
  if (!inFrameMode(tab)) {
    await tab.click('auto-approve');
    expect(await tab.evaluate(() => (document.querySelector('[data-testid="auto-approve"]') as HTMLInputElement | null)?.checked)).toBe(true);
  }
  const contact = uniqueContact();
  await tab.fill('signup-email', contact.email);
  await tab.fill('signup-phone', contact.phone);
  await tab.click('signup-submit');
  await visible(tab, 'screen-login');
  await loginWithEmailCode(tab);
  const wallet = await walletScope(tab);
  // Frame mode: the signer frame's own records (its console and its requests, the listing among them).
  if (inFrameMode(tab)) await expect.poll(() => wallet.evaluate(consoleRecorder, LISTING).catch(() => false)).toBe(true);
  const observed = new Observed(tab, wallet);
  await settled(observed, wallet); // whatever the home screen loads after the login
  expect(await observed.listings()).toBe(1);

  // The credentials screen lists them once more, and prepares the passkey registration from that
  // list (excludeCredentials) without a second GET.
  await tab.click('nav-credentials');
  await visible(tab, 'cred-list');
  await expect.poll(() => attributeOf(tab, 'cred-list', 'aria-busy')).not.toBe('true');
  await settled(observed, wallet);
  expect(await observed.listings()).toBe(2);
  expect(await observed.console()).toEqual([]);
});
