/**
 * The few things a journey does with a browser, behind one interface, so that one journey file runs
 * in every engine: Playwright for Chromium, puppeteer-core (WebDriver BiDi) for Firefox ESR, W3C
 * WebDriver for WebKitGTK. Elements are found by `data-testid`; anything else a journey wants to
 * know it reads in the page with `evaluate` (a self-contained function and one JSON argument).
 */
/** Where a journey acts: a tab's page, or a frame in it (of any origin). */
export interface Scope {
  /** Clicks the element with this test id once it is visible (real input events). */
  click(testId: string): Promise<void>;
  /** Moves the mouse onto the element with this test id once it is visible, and leaves it there. */
  hover(testId: string): Promise<void>;
  /** Focuses the element with this test id (once it is visible) and presses `key` (real input events). */
  press(testId: string, key: 'Enter'): Promise<void>;
  /** Replaces the value of the input with this test id by typing `value`. */
  fill(testId: string, value: string): Promise<void>;
  /** Runs `fn(arg)` in the page or frame (awaited) and returns its JSON result. */
  evaluate<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T>;
  /** A PNG of the element with this test id once it is visible, as the engine paints it. */
  screenshot(testId: string): Promise<Buffer>;
}

/** A top-level window that a page opened (e.g. the signer's approval window, on a click in its frame). */
export interface Popup extends Scope {
  /** Closes the window, as the user's close button does. */
  close(): Promise<void>;
  /** Whether the window is gone (closed by the user or by a script of its opener). */
  closed(): Promise<boolean>;
}

export interface Tab extends Scope {
  /** Opens `path` (relative to the demo's URL) and waits for the load. */
  goto(path: string): Promise<void>;
  reload(): Promise<void>;
  /** The frame shown by the iframe this CSS selector finds in the page (looked up at each action). */
  frame(selector: string): Scope;
  /**
   * Runs `fn(arg)` in each document this tab loads from now on, before the document's own scripts
   * (an init script). W3C WebDriver classic (WebKitGTK's) has no such hook: there the demo stack's
   * test switch adds the script to the documents it serves, to the whole device (e2e/drivers/webdriver.ts).
   */
  addInitScript<A>(fn: (arg: A) => void, arg: A): Promise<void>;
  /**
   * Runs `open` (an action in this tab or its frames that opens a window) and resolves to the new
   * top-level window, once the browser reports it (up to 15 s).
   */
  popup(open: () => Promise<void>): Promise<Popup>;
  /** Uncaught errors the page has thrown so far (engines that cannot report them: always []). */
  errors(): string[];
  /** Closes the tab as the user's close button does (its page is unloaded); its device stays open. */
  close(): Promise<void>;
  /**
   * What the engine reported of this tab and its frames since it opened: console messages at warning
   * or error level, and the requests sent. Missing where the driver hears no such events (W3C
   * WebDriver classic, WebKitGTK's).
   */
  reports?(): Reports;
  /**
   * The engine's own page object, for an observation beyond this interface that only some engines
   * offer (e2e/portable/received-bytes.ts: every byte received). Missing in W3C WebDriver classic.
   */
  native?(): NativePage;
  /**
   * Adds a virtual platform authenticator (CTAP2, internal, resident keys, user verified, presence
   * simulated) that answers this tab's WebAuthn ceremonies: Chromium's over CDP (this tab's, and one
   * holding the same credentials in each window it opens: cdp-passkeys.ts), Firefox's
   * over Marionette (the browser process's: every tab and window of the worker's Firefox; its device
   * removes it when it closes). Missing where the engine has none: WebKitGTK has no WebAuthn at all.
   */
  addVirtualPasskey?(): Promise<VirtualPasskey>;
}

/** A virtual authenticator a driver added ({@link Tab.addVirtualPasskey}). */
export interface VirtualPasskey {
  /** The credentials it holds: id (base64url, as the credential's `id`), relying party and signature counter. */
  credentials(): Promise<Array<{ credentialId: string; rpId: string; signCount: number }>>;
  /** Removes it: a ceremony after this finds no authenticator (another device's is added anew). */
  remove(): Promise<void>;
}

/** A tab's page in its engine's own library: see {@link Tab.native}. */
export type NativePage = { engine: 'chromium'; page: import('@playwright/test').Page } | { engine: 'firefox'; page: import('puppeteer-core').Page };

/** What an engine's driver heard of a tab: see {@link Tab.reports}. */
export interface Reports {
  /** Console messages at warning or error level, as `level: text (url)`. */
  console: string[];
  /** Each request sent, in order. */
  requests: Array<{ method: string; url: string }>;
}

/** One browser profile (its own cookies, localStorage and IndexedDB): a device of the person. */
export interface Device {
  newTab(): Promise<Tab>;
  close(): Promise<void>;
}

/** A window's scope (a tab of the driver) with how to close it and tell it closed. */
export function asPopup(tab: Scope, close: () => Promise<void>, closed: () => Promise<boolean>): Popup {
  return {
    click: (id) => tab.click(id),
    hover: (id) => tab.hover(id),
    fill: (id, value) => tab.fill(id, value),
    press: (id, key) => tab.press(id, key),
    evaluate: (fn, arg) => tab.evaluate(fn, arg),
    screenshot: (id) => tab.screenshot(id),
    close,
    closed,
  };
}

/** Puts `fn(arg)` into a script body for engines that take source text (WebDriver). */
export function callSource(fn: (arg: never) => unknown): string {
  return `(${fn.toString()})`;
}
