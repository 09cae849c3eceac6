/** The journey driver over puppeteer-core (Firefox ESR over WebDriver BiDi). */
import type { Browser, Frame, Page } from 'puppeteer-core';
import { asPopup, type Device, type NativePage, type Popup, type Reports, type Scope, type Tab, type VirtualPasskey } from './driver.js';
import type { Marionette } from './marionette.js';

/**
 * How long an action waits for its element to show: a wait on the app's state, not a bound on its
 * speed. 10 s was outrun on a busy machine (WebKitGTK at load 14: journey 2's add-sms-code came after
 * a signed call); a test that fails there is a bug, so the wait is generous and a failure only slower.
 */
const TIMEOUT = 30_000;
const byTestId = (testId: string): string => `[data-testid="${testId}"]`;

/** A PNG of the visible element with this test id in `where` (a page or a frame). */
async function shoot(where: Page | Frame, testId: string): Promise<Buffer> {
  const element = await where.waitForSelector(byTestId(testId), { visible: true });
  if (element == null) throw new Error(`no ${testId}`);
  return Buffer.from(await element.screenshot({ type: 'png' }));
}

class PuppeteerTab implements Tab {
  private readonly pageErrors: string[] = [];
  private readonly heard: Reports = { console: [], requests: [] };

  constructor(
    private readonly page: Page,
    private readonly baseURL: string,
    /** Adds a virtual authenticator to the browser (Marionette's), when it was started with Marionette. */
    private readonly addPasskey?: () => Promise<VirtualPasskey>,
  ) {
    page.setDefaultTimeout(TIMEOUT);
    page.setDefaultNavigationTimeout(15_000);
    page.on('pageerror', (e) => this.pageErrors.push(e instanceof Error ? e.message : String(e)));
    // WebDriver BiDi's log.entryAdded and network.beforeRequestSent, for the tab's frames too.
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') this.heard.console.push(`${m.type()}: ${m.text()} (${m.location().url ?? ''})`);
    });
    page.on('request', (r) => this.heard.requests.push({ method: r.method(), url: r.url() }));
  }

  addVirtualPasskey(): Promise<VirtualPasskey> {
    if (this.addPasskey === undefined) throw new Error('this Firefox was started without Marionette (e2e/drivers/marionette.ts MARIONETTE_LAUNCH)');
    return this.addPasskey();
  }

  reports(): Reports {
    return { console: [...this.heard.console], requests: [...this.heard.requests] };
  }

  native(): NativePage {
    return { engine: 'firefox', page: this.page };
  }

  async goto(path: string): Promise<void> {
    await this.page.goto(new URL(path, this.baseURL).href);
  }

  async reload(): Promise<void> {
    await this.page.reload();
  }

  // Puppeteer's locators wait for animation frames, which Firefox does not run in a background
  // tab: the tab acted on comes to the front first, as a user's would.
  async click(testId: string): Promise<void> {
    await this.page.bringToFront();
    await this.page.locator(byTestId(testId)).click();
  }

  async hover(testId: string): Promise<void> {
    await this.page.bringToFront();
    await this.page.locator(byTestId(testId)).hover();
  }

  async fill(testId: string, value: string): Promise<void> {
    await this.page.bringToFront();
    await this.page.locator(byTestId(testId)).fill(value);
  }

  async press(testId: string, key: 'Enter'): Promise<void> {
    await this.page.bringToFront();
    await (await this.page.waitForSelector(byTestId(testId), { visible: true }))?.press(key);
  }

  evaluate<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> {
    return this.page.evaluate(fn as (arg: unknown) => Promise<T>, arg) as Promise<T>;
  }

  async screenshot(testId: string): Promise<Buffer> {
    await this.page.bringToFront();
    return shoot(this.page, testId);
  }

  async addInitScript<A>(fn: (arg: A) => void, arg: A): Promise<void> {
    await this.page.evaluateOnNewDocument(fn, arg);
  }

  frame(selector: string): Scope {
    const content = async (): Promise<Frame> => {
      await this.page.bringToFront();
      const found = await (await this.page.waitForSelector(selector))?.contentFrame();
      if (found == null) throw new Error(`no frame in ${selector}`);
      return found;
    };
    return {
      click: async (testId) => (await content()).locator(byTestId(testId)).click(),
      hover: async (testId) => (await content()).locator(byTestId(testId)).hover(),
      fill: async (testId, value) => (await content()).locator(byTestId(testId)).fill(value),
      press: async (testId, key) => (await (await content()).waitForSelector(byTestId(testId), { visible: true }))?.press(key),
      evaluate: async <T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A) => (await content()).evaluate(fn as (arg: unknown) => Promise<T>, arg) as Promise<T>,
      screenshot: async (testId) => shoot(await content(), testId),
    };
  }

  /** The new window: a page of this tab's browser context that was not there before `open`. */
  async popup(open: () => Promise<void>): Promise<Popup> {
    const context = this.page.browserContext();
    const before = new Set(await context.pages());
    await open();
    const deadline = Date.now() + 15_000;
    let page: Page | undefined;
    while (page === undefined) {
      page = (await context.pages()).find((p) => !before.has(p));
      if (page !== undefined) break;
      if (Date.now() > deadline) throw new Error('no window opened');
      await new Promise((r) => setTimeout(r, 100));
    }
    const found = page;
    return asPopup(
      new PuppeteerTab(page, this.baseURL, this.addPasskey),
      () => found.close(),
      async () => found.isClosed() || !(await context.pages()).includes(found),
    );
  }

  errors(): string[] {
    return [...this.pageErrors];
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

/**
 * A fresh browser context (a BiDi user context: its own storage) of a launched Firefox. With
 * `marionette`, its tabs add virtual authenticators: the browser's, shared by every context, so the
 * device removes those it added when it closes.
 */
export async function puppeteerDevice(browser: Browser, baseURL: string, marionette?: Marionette): Promise<Device> {
  const context = await browser.createBrowserContext();
  const added: VirtualPasskey[] = [];
  const addVirtualPasskey =
    marionette &&
    (async (): Promise<VirtualPasskey> => {
      const passkey = await marionette.addVirtualPasskey();
      let removed = false;
      const once: VirtualPasskey = {
        credentials: () => passkey.credentials(),
        remove: async () => {
          if (removed) return;
          removed = true;
          await passkey.remove();
        },
      };
      added.push(once);
      return once;
    });
  return {
    newTab: async () => new PuppeteerTab(await context.newPage(), baseURL, addVirtualPasskey),
    close: async () => {
      await Promise.all(added.splice(0).map((p) => p.remove()));
      await context.close();
    },
  };
}
