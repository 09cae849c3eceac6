/** The journey driver over W3C WebDriver (WebKitGTK's MiniBrowser, scripts/engines/webkit.ts). */
import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { INIT_SCRIPT_ROUTE } from '../../demo/server/init-scripts.js';
import { ELEMENT, startWebKit, WebDriverError, type WebDriverSession } from '../../scripts/engines/webkit.js';
import { asPopup, callSource, type Device, type Popup, type Scope, type Tab } from './driver.js';

/**
 * How long an action waits for its element to show: a wait on the app's state, not a bound on its
 * speed. 10 s was outrun on a busy machine (WebKitGTK at load 14: journey 2's add-sms-code came after
 * a signed call); a test that fails there is a bug, so the wait is generous and a failure only slower.
 */
const TIMEOUT = 30_000;
/** Errors worth another try while the app renders (the element is not there or not usable yet). */
const RETRY = new Set(['no such element', 'element not interactable', 'stale element reference', 'element click intercepted']);

/** WebDriver acts on one current window: the tabs of a session take turns, switching as needed. */
class Windows {
  private current: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly session: WebDriverSession) {}

  /** Forgets the current window (it was closed): the next action switches. */
  forget(handle: string): void {
    if (this.current === handle) this.current = undefined;
  }

  in<T>(handle: string, action: (session: WebDriverSession) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.current !== handle) {
        await this.session.switchTo(handle);
        this.current = handle;
      }
      return action(this.session);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * A device's init scripts: WebDriver classic has no hook to run a script before a document's own,
 * so they are the demo stack's test-only switch (demo/server/init-scripts.ts): registered there under
 * a random token of this device, which a cookie of its profile names. Unlike Playwright's and
 * puppeteer's (a tab's), they run in every document of the device the stack serves from then on
 * (its other tabs' and windows' too): the journeys that use them give them to a device's one tab,
 * or to a tab whose siblings load nothing after.
 */
class DeviceInitScripts {
  private readonly token = randomBytes(16).toString('hex');
  private named = false;

  constructor(private readonly baseURL: string) {}

  async add(source: string, windows: Windows, handle: string): Promise<void> {
    const registered = await fetch(new URL(INIT_SCRIPT_ROUTE, this.baseURL), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: this.token, source }) });
    if (!registered.ok) throw new Error(`the demo stack refused the init script (${registered.status}): started without testSwitches?`);
    if (this.named) return;
    await windows.in(handle, async (s) => {
      const at = new URL(await s.command<string>('GET', '/url'));
      // On a page of the stack's host the cookie is added to it; elsewhere (a new tab's about:blank) the stack sets it.
      if (at.hostname === new URL(this.baseURL).hostname) await s.command('POST', '/cookie', { cookie: { name: 'e2e-init', value: this.token, path: '/' } });
      else await s.navigate(new URL(`${INIT_SCRIPT_ROUTE}?token=${this.token}`, this.baseURL).href);
    });
    this.named = true;
  }
}

class WebDriverTab implements Tab {
  constructor(
    private readonly windows: Windows,
    private readonly handle: string,
    private readonly baseURL: string,
    private readonly initScripts: DeviceInitScripts,
    /** The iframe whose frame this scope acts in (none: the page). */
    private readonly frameSelector?: string,
  ) {}

  /** Runs `action` in this tab's window, inside the frame if this scope is one (back at the top after). */
  private run<T>(action: (session: WebDriverSession) => Promise<T>): Promise<T> {
    const selector = this.frameSelector;
    if (selector === undefined) return this.windows.in(this.handle, action);
    return this.windows.in(this.handle, async (s) => {
      await s.switchToFrame(await s.find(selector));
      try {
        return await action(s);
      } finally {
        await s.switchToFrame(null);
      }
    });
  }

  frame(selector: string): Scope {
    return new WebDriverTab(this.windows, this.handle, this.baseURL, this.initScripts, selector);
  }

  async goto(path: string): Promise<void> {
    await this.windows.in(this.handle, (s) => s.navigate(new URL(path, this.baseURL).href));
  }

  async reload(): Promise<void> {
    await this.windows.in(this.handle, (s) => s.refresh());
  }

  /** Finds the element and acts on it, trying again until it is there and usable (TIMEOUT). */
  private async onElement(testId: string, action: (s: WebDriverSession, element: string) => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      try {
        await this.run(async (s) => {
          const element = await s.find(`[data-testid="${testId}"]`);
          const visible = await s.execute<boolean>('return arguments[0].checkVisibility();', [{ [ELEMENT]: element }]);
          if (!visible) throw new WebDriverError('element not interactable', `${testId} is not visible`);
          await action(s, element);
        });
        return;
      } catch (e) {
        if (e instanceof WebDriverError && RETRY.has(e.error) && Date.now() > deadline) throw new WebDriverError(e.error, `${e.message} (data-testid="${testId}"${this.frameSelector ? ` in ${this.frameSelector}` : ''})`);
        if (!(e instanceof WebDriverError) || !RETRY.has(e.error)) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  click(testId: string): Promise<void> {
    return this.onElement(testId, (s, element) => s.click(element));
  }

  hover(testId: string): Promise<void> {
    return this.onElement(testId, (s, element) => s.hover(element));
  }

  fill(testId: string, value: string): Promise<void> {
    return this.onElement(testId, async (s, element) => {
      await s.clear(element);
      if (this.frameSelector === undefined) return void (await s.type(element, value));
      // WebKitWebDriver refuses "Element Send Keys" inside a frame (not focusable): a click
      // focuses the input, then the keys are pressed (both real input events).
      await s.click(element);
      await s.pressKeys(value);
    });
  }

  /** The element is focused by a click, then the key pressed (WebDriver's key for Enter is U+E007). */
  press(testId: string, key: 'Enter'): Promise<void> {
    const keys = { Enter: '\uE007' } as const;
    return this.onElement(testId, async (s, element) => {
      await s.click(element);
      await s.pressKeys(keys[key]);
    });
  }

  /**
   * A PNG of the element once it is visible: WebKitGTK's "Take Element Screenshot" answers a black
   * image (under Xvfb), so the window's "Take Screenshot" is cut to the element's box (in a frame:
   * plus the iframe's content box), in device pixels.
   */
  async screenshot(testId: string): Promise<Buffer> {
    await this.onElement(testId, async () => {});
    const box = (id: string) => {
      const r = document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect();
      return r === undefined ? null : { x: r.left, y: r.top, width: r.width, height: r.height, ratio: devicePixelRatio };
    };
    const inner = await this.evaluate(box, testId);
    if (inner === null) throw new Error(`no ${testId}`);
    let { x, y } = inner;
    if (this.frameSelector !== undefined) {
      const frame = await new WebDriverTab(this.windows, this.handle, this.baseURL, this.initScripts).evaluate((selector) => {
        const f = document.querySelector(selector) as HTMLIFrameElement;
        const r = f.getBoundingClientRect();
        return { x: r.left + f.clientLeft, y: r.top + f.clientTop };
      }, this.frameSelector);
      x += frame.x;
      y += frame.y;
    }
    const window = PNG.sync.read(Buffer.from(await this.windows.in(this.handle, (s) => s.command<string>('GET', '/screenshot')), 'base64'));
    const px = (v: number) => Math.round(v * inner.ratio);
    const [left, top] = [px(x), px(y)];
    const width = Math.min(px(inner.width), window.width - left);
    const height = Math.min(px(inner.height), window.height - top);
    const out = new PNG({ width, height });
    PNG.bitblt(window, out, left, top, width, height, 0, 0);
    return PNG.sync.write(out);
  }

  async evaluate<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> {
    const body = `const done = arguments[arguments.length - 1];
Promise.resolve(arguments[0]).then(${callSource(fn as (arg: never) => unknown)}).then(
  (value) => done({ value }),
  (error) => done({ error: String(error && error.stack || error) }));`;
    const result = await this.run((s) => s.executeAsync<{ value?: T; error?: string }>(body, [arg ?? null]));
    if (result.error !== undefined) throw new Error(`in the page: ${result.error}`);
    return result.value as T;
  }

  /** Runs `fn(arg)` before the own scripts of each document of this device the demo stack serves from now on (DeviceInitScripts). */
  addInitScript<A>(fn: (arg: A) => void, arg: A): Promise<void> {
    return this.initScripts.add(`${callSource(fn as (arg: never) => unknown)}(${JSON.stringify(arg ?? null)});`, this.windows, this.handle);
  }

  /** The new window: a window handle of the session that was not there before `open`. */
  async popup(open: () => Promise<void>): Promise<Popup> {
    const handles = () => this.windows.in(this.handle, (s) => s.windowHandles());
    const before = new Set(await handles());
    await open();
    const deadline = Date.now() + 15_000;
    let handle: string | undefined;
    while (handle === undefined) {
      handle = (await handles()).find((h) => !before.has(h));
      if (handle !== undefined) break;
      if (Date.now() > deadline) throw new Error('no window opened');
      await new Promise((r) => setTimeout(r, 100));
    }
    const opened = handle;
    return asPopup(
      new WebDriverTab(this.windows, handle, this.baseURL, this.initScripts),
      async () => {
        await this.windows.in(opened, (s) => s.closeWindow());
        this.windows.forget(opened);
      },
      async () => !(await handles()).includes(opened),
    );
  }

  errors(): string[] {
    return []; // WebDriver classic has no event for them
  }

  /** Closes this tab's window (the device's other windows stay; the next action switches to its own). */
  async close(): Promise<void> {
    await this.windows.in(this.handle, (s) => s.closeWindow());
    this.windows.forget(this.handle);
  }
}

/** A fresh MiniBrowser (its own ephemeral profile) under WebKitWebDriver. */
export async function webDriverDevice(baseURL: string): Promise<Device> {
  const webkit = await startWebKit();
  const windows = new Windows(webkit.session);
  const initScripts = new DeviceInitScripts(baseURL);
  let first = true;
  return {
    async newTab() {
      // A journey's second tab is a window of its own: MiniBrowser shows only its selected tab, and
      // WebDriver's "Switch To Window" does not select one, so an action "in tab B" would be in a
      // hidden page, where no person clicks (WebKit refuses a hidden page's window.open: journey 10's
      // approval window was SIGNER_POPUP_BLOCKED). Both windows show; they share the profile as tabs do.
      const handle = first ? await webkit.session.currentWindow() : await webkit.session.newWindow('window');
      first = false;
      return new WebDriverTab(windows, handle, baseURL, initScripts);
    },
    close: () => webkit.close(),
  };
}
