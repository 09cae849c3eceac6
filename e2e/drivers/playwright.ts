/** The journey driver over Playwright (Chromium). */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { CdpPasskeys } from './cdp-passkeys.js';
import { asPopup, type Device, type NativePage, type Popup, type Reports, type Scope, type Tab, type VirtualPasskey } from './driver.js';

class PlaywrightTab implements Tab {
  private readonly pageErrors: string[] = [];
  private readonly heard: Reports = { console: [], requests: [] };
  /** The tab's virtual authenticators, once added: the windows it opens get one too. */
  private passkeys: CdpPasskeys | undefined;

  constructor(private readonly page: Page) {
    page.setDefaultTimeout(10_000);
    // A load is the dev server transforming the app's modules: 10 s failed page.goto of the demo at
    // load 20 on this machine (2 shared cores), as e2e/fixtures.ts saw; puppeteer waits 30 s too.
    page.setDefaultNavigationTimeout(30_000);
    page.on('pageerror', (e) => this.pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') this.heard.console.push(`${m.type()}: ${m.text()} (${m.location().url})`);
    });
    page.on('request', (r) => this.heard.requests.push({ method: r.method(), url: r.url() }));
  }

  reports(): Reports {
    return { console: [...this.heard.console], requests: [...this.heard.requests] };
  }

  native(): NativePage {
    return { engine: 'chromium', page: this.page };
  }

  /** A CDP authenticator on this tab, and on each window it opens from now on (cdp-passkeys.ts). */
  async addVirtualPasskey(): Promise<VirtualPasskey> {
    const passkeys = new CdpPasskeys(this.page.context());
    await passkeys.attach(this.page);
    this.passkeys = passkeys;
    return passkeys;
  }

  async goto(path: string): Promise<void> {
    await this.page.goto(path);
  }

  async reload(): Promise<void> {
    await this.page.reload();
  }

  async click(testId: string): Promise<void> {
    await this.page.getByTestId(testId).click();
  }

  async hover(testId: string): Promise<void> {
    await this.page.getByTestId(testId).hover();
  }

  async fill(testId: string, value: string): Promise<void> {
    await this.page.getByTestId(testId).fill(value);
  }

  async press(testId: string, key: 'Enter'): Promise<void> {
    await this.page.getByTestId(testId).press(key);
  }

  evaluate<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> {
    return this.page.evaluate(fn as (arg: unknown) => Promise<T>, arg) as Promise<T>;
  }

  screenshot(testId: string): Promise<Buffer> {
    return this.page.getByTestId(testId).screenshot({ animations: 'disabled', caret: 'hide' });
  }

  async addInitScript<A>(fn: (arg: A) => void, arg: A): Promise<void> {
    await this.page.addInitScript(fn as (arg: unknown) => void, arg);
  }

  frame(selector: string): Scope {
    const frame = this.page.frameLocator(selector);
    const content = async () => {
      const found = await (await this.page.locator(selector).elementHandle())?.contentFrame();
      if (found == null) throw new Error(`no frame in ${selector}`);
      return found;
    };
    return {
      click: (testId) => frame.getByTestId(testId).click(),
      hover: (testId) => frame.getByTestId(testId).hover(),
      fill: (testId, value) => frame.getByTestId(testId).fill(value),
      press: (testId, key) => frame.getByTestId(testId).press(key),
      screenshot: (testId) => frame.getByTestId(testId).screenshot({ animations: 'disabled', caret: 'hide' }),
      evaluate: async <T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A) => (await content()).evaluate(fn as (arg: unknown) => Promise<T>, arg) as Promise<T>,
    };
  }

  async popup(open: () => Promise<void>): Promise<Popup> {
    const opened = this.page.context().waitForEvent('page', { timeout: 15_000 });
    await open();
    const page = await opened;
    await this.passkeys?.attach(page);
    return asPopup(
      new PlaywrightTab(page),
      () => page.close(),
      async () => page.isClosed(),
    );
  }

  errors(): string[] {
    return [...this.pageErrors];
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

/** A fresh browser context of `browser`; `prepare` sets it up (e.g. the dev-server isolation). */
export async function playwrightDevice(browser: Browser, baseURL: string, prepare: (context: BrowserContext) => Promise<void>): Promise<Device> {
  const context = await browser.newContext({ baseURL });
  await prepare(context);
  return {
    newTab: async () => new PlaywrightTab(await context.newPage()),
    close: () => context.close(),
  };
}
