/**
 * Vitest browser providers for Firefox ESR and WebKitGTK. Vitest's browser mode serves the tests
 * itself and needs from a provider only a page opened on its URL (the tests talk back to Vitest
 * over its own WebSocket), so each provider here just launches the browser, opens that URL, and
 * closes everything at the end. No provider commands (userEvent, screenshots) are offered: the
 * browser tests use none.
 */
import { defineBrowserProvider } from '@vitest/browser';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { BrowserProvider, BrowserProviderOption, TestProject } from 'vitest/node';
import { assertInstalled, FIREFOX_PATH } from './engines.js';
import { startWebKit, type WebKit } from './webkit.js';

/** Firefox ESR over WebDriver BiDi (puppeteer-core), headless unless the config says otherwise. */
class FirefoxProvider implements BrowserProvider {
  readonly name = 'firefox-bidi';
  readonly supportsParallelism = false;
  private browser: Promise<Browser> | undefined;
  private readonly pages = new Map<string, Page>();

  constructor(private readonly project: TestProject) {}

  private launch(): Promise<Browser> {
    assertInstalled('firefox');
    this.browser ??= puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX_PATH, headless: this.project.config.browser.headless });
    return this.browser;
  }

  getCommandsContext(sessionId: string): Record<string, unknown> {
    return { page: this.pages.get(sessionId) };
  }

  async openPage(sessionId: string, url: string): Promise<void> {
    const browser = await this.launch();
    let page = this.pages.get(sessionId);
    if (page === undefined) {
      page = await browser.newPage();
      this.pages.set(sessionId, page);
    }
    await page.goto(url, { timeout: 0 });
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    this.pages.clear();
    await (await browser)?.close();
  }
}

/**
 * WebKitGTK's MiniBrowser over W3C WebDriver (scripts/engines/webkit.ts). One WebDriver session;
 * each Vitest session gets a window of its own (the first one the window MiniBrowser opened with).
 */
class WebKitProvider implements BrowserProvider {
  readonly name = 'webkit-webdriver';
  readonly supportsParallelism = false;
  private webkit: Promise<WebKit> | undefined;
  private readonly windows = new Map<string, string>();
  /** WebDriver commands act on "the current window": one opening at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly project: TestProject) {}

  private start(): Promise<WebKit> {
    this.webkit ??= startWebKit({ headless: this.project.config.browser.headless });
    return this.webkit;
  }

  getCommandsContext(sessionId: string): Record<string, unknown> {
    return { window: this.windows.get(sessionId) };
  }

  openPage(sessionId: string, url: string): Promise<void> {
    const opened = this.queue.then(async () => {
      const { session } = await this.start();
      let handle = this.windows.get(sessionId);
      if (handle === undefined) {
        handle = this.windows.size === 0 ? await session.currentWindow() : await session.newWindow();
        this.windows.set(sessionId, handle);
      }
      await session.switchTo(handle);
      await session.navigate(url);
    });
    this.queue = opened.catch(() => undefined);
    return opened;
  }

  async close(): Promise<void> {
    const webkit = this.webkit;
    this.webkit = undefined;
    this.windows.clear();
    await (await webkit)?.close();
  }
}

/** Provider option for `browser.instances: [{ browser: 'firefox', provider: firefoxBidi() }]`. */
export function firefoxBidi(): BrowserProviderOption {
  return defineBrowserProvider({ name: 'firefox-bidi', supportedBrowser: ['firefox'], providerFactory: (project) => new FirefoxProvider(project) });
}

/** Provider option for `browser.instances: [{ browser: 'webkit', provider: webkitWebDriver() }]`. */
export function webkitWebDriver(): BrowserProviderOption {
  return defineBrowserProvider({ name: 'webkit-webdriver', supportedBrowser: ['webkit'], providerFactory: (project) => new WebKitProvider(project) });
}
