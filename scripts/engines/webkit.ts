/**
 * WebKitGTK for tests: a private Xvfb display, Debian's WebKitWebDriver on a free port, and one
 * W3C WebDriver session driving MiniBrowser. Only the handful of WebDriver commands the Vitest
 * provider and the journey driver use are here (https://www.w3.org/TR/webdriver2/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { assertInstalled, MINIBROWSER_PATH, WEBKIT_DRIVER_PATH, XVFB_PATH } from './engines.js';

/** The W3C "web element identifier" key of an element reference. */
export const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

export class WebDriverError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(`WebDriver ${error}: ${message}`);
  }
}

/** One WebDriver session: the commands as methods, each one HTTP request to the driver. */
export class WebDriverSession {
  constructor(
    private readonly base: string,
    readonly id: string,
  ) {}

  async command<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const answer = await fetch(`${this.base}/session/${this.id}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
    });
    const json = (await answer.json()) as { value: unknown };
    const value = json.value as { error?: string; message?: string } | null;
    if (!answer.ok) throw new WebDriverError(value?.error ?? String(answer.status), value?.message ?? '');
    return json.value as T;
  }

  navigate(url: string): Promise<unknown> {
    return this.command('POST', '/url', { url });
  }

  refresh(): Promise<unknown> {
    return this.command('POST', '/refresh');
  }

  /** Runs `body` (a function body; `arguments` are `args`) in the page and returns its value. */
  execute<T>(body: string, args: unknown[] = []): Promise<T> {
    return this.command<T>('POST', '/execute/sync', { script: body, args });
  }

  /**
   * Runs `body` as an async script: it gets `args` as `arguments`, plus a last argument, the
   * callback to call with the result.
   */
  executeAsync<T>(body: string, args: unknown[] = []): Promise<T> {
    return this.command<T>('POST', '/execute/async', { script: body, args });
  }

  windowHandles(): Promise<string[]> {
    return this.command<string[]>('GET', '/window/handles');
  }

  currentWindow(): Promise<string> {
    return this.command<string>('GET', '/window');
  }

  /** Opens a new top-level browsing context of the session's profile: a tab (hidden until selected), or a window of its own. */
  async newWindow(type: 'tab' | 'window' = 'tab'): Promise<string> {
    return (await this.command<{ handle: string }>('POST', '/window/new', { type })).handle;
  }

  switchTo(handle: string): Promise<unknown> {
    return this.command('POST', '/window', { handle });
  }

  /** Presses and releases each character's key, in order, on the focused element (the Actions API). */
  async pressKeys(text: string): Promise<void> {
    const actions = [...text].flatMap((value) => [
      { type: 'keyDown', value },
      { type: 'keyUp', value },
    ]);
    await this.command('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
    await this.command('DELETE', '/actions');
  }

  /**
   * Moves the mouse onto the middle of the element and leaves it there (the Actions API): 2 px left
   * of the middle first, so the page sees a move even where the pointer already stood at the middle
   * (a second approval window opens where the first one was, its button under the resting pointer).
   */
  async hover(element: string): Promise<void> {
    const move = (x: number) => ({ type: 'pointerMove', duration: 0, origin: { [ELEMENT]: element }, x, y: 0 });
    await this.command('POST', '/actions', { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [move(-2), move(0)] }] });
  }

  /** Makes the frame shown by this iframe element the current browsing context; `null`: the top one. */
  switchToFrame(element: string | null): Promise<unknown> {
    return this.command('POST', '/frame', { id: element === null ? null : { [ELEMENT]: element } });
  }

  closeWindow(): Promise<unknown> {
    return this.command('DELETE', '/window');
  }

  /** The first element matching a CSS selector (throws `no such element`). */
  async find(css: string): Promise<string> {
    const ref = await this.command<Record<string, string>>('POST', '/element', { using: 'css selector', value: css });
    const id = ref[ELEMENT];
    if (id === undefined) throw new WebDriverError('no such element', css);
    return id;
  }

  click(element: string): Promise<unknown> {
    return this.command('POST', `/element/${element}/click`);
  }

  clear(element: string): Promise<unknown> {
    return this.command('POST', `/element/${element}/clear`);
  }

  type(element: string, text: string): Promise<unknown> {
    return this.command('POST', `/element/${element}/value`, { text });
  }
}

export interface WebKit {
  session: WebDriverSession;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Last lines a child wrote on stderr (for the error message when it fails to start). */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text = (text + chunk.toString('utf8')).slice(-2000)));
  return () => text.trim();
}

/** A private X display (`-displayfd`: Xvfb picks a free display number and tells it). */
async function startXvfb(): Promise<{ display: string; stop(): void }> {
  const xvfb = spawn(XVFB_PATH, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const stderr = tail(xvfb);
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    xvfb.stdio[3]?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before opening a display: ${stderr()}`)));
  });
  return { display, stop: () => void xvfb.kill() };
}

async function waitForDriver(base: string, driver: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${stderr()}`);
    try {
      if ((await fetch(`${base}/status`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`WebKitWebDriver did not answer on ${base} within 20 s: ${stderr()}`);
}

/**
 * Starts MiniBrowser under WebKitWebDriver. `headless` (the default) runs it in a private Xvfb
 * display; otherwise in $DISPLAY. `close()` ends the session and stops every process it started.
 */
export async function startWebKit(options: { headless?: boolean } = {}): Promise<WebKit> {
  assertInstalled('webkit');
  const useOwnDisplay = options.headless !== false || process.env.DISPLAY === undefined;
  if (useOwnDisplay && !existsSync(XVFB_PATH)) throw new Error('webkit: Xvfb not found; install with: apt-get install -y xvfb');
  const xvfb = useOwnDisplay ? await startXvfb() : undefined;
  const stopAll: Array<() => void> = [() => xvfb?.stop()];
  const onExit = (): void => stopAll.forEach((stop) => stop());
  process.once('exit', onExit);
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const driver = spawn(WEBKIT_DRIVER_PATH, [`--port=${port}`, '--host=127.0.0.1'], {
      env: { ...process.env, DISPLAY: xvfb?.display ?? process.env.DISPLAY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    stopAll.unshift(() => void driver.kill());
    const stderr = tail(driver);
    await waitForDriver(base, driver, stderr);
    const created = await fetch(`${base}/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] } } },
      }),
    });
    const answer = (await created.json()) as { value: { sessionId?: string; message?: string } };
    if (!created.ok || answer.value.sessionId === undefined) throw new Error(`WebKitWebDriver: no session: ${answer.value.message ?? created.status} ${stderr()}`);
    const session = new WebDriverSession(base, answer.value.sessionId);
    return {
      session,
      async close() {
        try {
          await fetch(`${base}/session/${session.id}`, { method: 'DELETE' });
        } finally {
          onExit();
          process.off('exit', onExit);
        }
      },
    };
  } catch (e) {
    onExit();
    process.off('exit', onExit);
    throw e;
  }
}
