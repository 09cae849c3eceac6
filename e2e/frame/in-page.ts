/**
 * What the frame tests run inside the pages, as self-contained functions of one JSON argument, so
 * that Playwright's `page.evaluate` (Chromium specs) and the portable driver's `tab.evaluate`
 * (e2e/frame/portable/, every engine) run the same code. The parent's are what an app's code, or an
 * attacker's script in the app's origin, would do; `window.t` keeps values between calls.
 */

type FrameWallet = ReturnType<typeof window.frameLib.createWallet>;

/** Signs up a demo customer (the demo's /demo/signup sets its cookie); resolves to its wallet account. */
export async function signUpInPage(email: string): Promise<string> {
  const res = await fetch('/demo/signup', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fullName: 'Frame Tester', email, phoneNumber: '+14155550123' }) });
  if (!res.ok) throw new Error(`signup ${res.status} ${await res.text()}`);
  return ((await res.json()) as { walletAccountId: string }).walletAccountId;
}

/** Makes `window.t.wallet` in frame mode and restores it. */
export async function makeFrameWallet(): Promise<void> {
  const { createWallet, signerFrame } = window.frameLib;
  const wallet = createWallet({ signer: signerFrame({ url: window.signerUrl }) });
  window.t.wallet = wallet;
  await wallet.restore();
}

/** Starts an email-code login; the verify's outcome waits in `window.t.verifying`. */
export async function startLoginInPage(accountId: string): Promise<void> {
  const wallet = window.t.wallet as FrameWallet;
  const login = await wallet.startOtpLogin({ accountId });
  window.t.verifying = login.verify().then(
    (session) => ({ ok: true as const, session }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code }),
  );
}

/** Starts `updateAccount(accountId, {privateEnabled})`; its outcome waits in `window.t.update`. */
export function startUpdateInPage([accountId, privateEnabled]: readonly [string, boolean]): void {
  const wallet = window.t.wallet as FrameWallet;
  window.t.update = wallet.updateAccount(accountId, { privateEnabled }).then(
    (account) => ({ ok: true as const, account }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code }),
  );
}

/** The wallet's status and its sessions' count. */
export function walletState(): { status: string; sessions: number } {
  const wallet = window.t.wallet as FrameWallet;
  return { status: wallet.getSnapshot().status, sessions: wallet.sessions().length };
}

/** Whether the account is private, as the service has it now (the demo backend reads it upstream). */
export async function accountPrivateInPage(accountId: string): Promise<boolean | undefined> {
  const me = (await (await fetch('/demo/me')).json()) as { accounts: { id: string; privateEnabled?: boolean }[] };
  return me.accounts.find((a) => a.id === accountId)?.privateEnabled;
}

/**
 * Records what the parent's script can see arriving: every message delivered to a port's
 * `onmessage` or to the window, and what is logged to its console; `window.__seen` holds them.
 * Install it in the parent before the wallet opens its channel.
 */
export function recordInPage(origin: string): void {
  if (location.origin !== origin) return;
  const seen: string[] = [];
  (window as unknown as { __seen: string[] }).__seen = seen;
  const record = (data: unknown) => {
    try {
      seen.push(JSON.stringify(data));
    } catch {
      seen.push(String(data));
    }
  };
  const descriptor = Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage');
  Object.defineProperty(MessagePort.prototype, 'onmessage', {
    configurable: true,
    get() {
      return descriptor?.get?.call(this);
    },
    set(listener: ((e: MessageEvent) => void) | null) {
      descriptor?.set?.call(
        this,
        listener === null
          ? null
          : (e: MessageEvent) => {
              record(e.data);
              listener(e);
            },
      );
    },
  });
  window.addEventListener('message', (e) => record(e.data), true);
  // The parent's own requests and answers, as its script sees them.
  const originalFetch = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    record({ request: String(input instanceof Request ? input.url : input), body: typeof init?.body === 'string' ? init.body : null });
    const response = await originalFetch(input, init);
    void response
      .clone()
      .text()
      .then((text) => record({ response: response.url, text }), () => undefined);
    return response;
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      record(args.map(String));
      original(...args);
    };
  }
}

/** What `recordInPage` recorded, and the parent's DOM, as one text to search. */
export function seenInPage(): string {
  return [...((window as unknown as { __seen?: string[] }).__seen ?? []), document.documentElement.outerHTML].join('\n');
}

/**
 * The attacker's own connection: it embeds the signer at `url` (sandboxed if `sandbox` is not '')
 * and says hello first (to any origin when sandboxed: the frame's origin is then opaque). With
 * `until` 'answer', resolves to the first answer that is not a state; with 'load', to 'loaded' once
 * the frame loaded and the hello is posted. Every message received is in `window.t.got`, the port
 * in `window.t.port`.
 */
export function connectAsAttacker([url, sandbox, until = 'answer']: readonly [string, string, ('answer' | 'load')?]): Promise<unknown> {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.dataset.attacker = 'true';
    if (sandbox !== '') frame.setAttribute('sandbox', sandbox);
    frame.src = url;
    const channel = new MessageChannel();
    const got: unknown[] = [];
    window.t.got = got;
    window.t.port = channel.port1;
    channel.port1.onmessage = (e) => {
      got.push(e.data);
      if ((e.data as { type?: string }).type !== 'state' && until === 'answer') resolve(e.data);
    };
    frame.addEventListener(
      'load',
      () => {
        frame.contentWindow?.postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, sandbox === '' ? new URL(url).origin : '*', [channel.port2]);
        if (until === 'load') resolve('loaded');
      },
      { once: true },
    );
    document.body.append(frame);
  });
}

/**
 * The parent embeds the signer at `url` (as `connectAsAttacker`'s frame); once it loaded, another
 * window of the app's own origin (an iframe of the app page, with a script of its own) says hello to
 * it first, its answers going to `window.t.otherGot`; then the parent says hello, its answers going
 * to `window.t.got` (port `window.t.port`). Resolves to the parent's first answer that is not a state.
 */
export function helloFromAnotherWindowFirst(url: string): Promise<unknown> {
  const loaded = (frame: HTMLIFrameElement) =>
    new Promise<Window>((resolve) => {
      frame.addEventListener('load', () => resolve(frame.contentWindow as Window), { once: true });
      document.body.append(frame);
    });
  const signer = document.createElement('iframe');
  signer.dataset.attacker = 'true';
  signer.src = url;
  const other = document.createElement('iframe');
  // The other window's own script makes the function, so the hello's source is that window.
  other.srcdoc = `<script>window.sayHello = function (target, origin, got) {
  var channel = new MessageChannel();
  channel.port1.onmessage = function (e) { got.push(e.data); };
  target.postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, origin, [channel.port2]);
};</script>`;
  return Promise.all([loaded(signer), loaded(other)]).then(
    ([signerWindow, otherWindow]) =>
      new Promise((resolve) => {
        const origin = new URL(url).origin;
        const otherGot: unknown[] = [];
        window.t.otherGot = otherGot;
        (otherWindow as unknown as { sayHello(target: Window, origin: string, got: unknown[]): void }).sayHello(signerWindow, origin, otherGot);
        const channel = new MessageChannel();
        const got: unknown[] = [];
        window.t.got = got;
        window.t.port = channel.port1;
        channel.port1.onmessage = (e) => {
          got.push(e.data);
          if ((e.data as { type?: string }).type !== 'state') resolve(e.data);
        };
        signerWindow.postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, origin, [channel.port2]);
      }),
  );
}

/** The parent says hello again to the frame it embedded (`connectAsAttacker`), on a new port; resolves to the answer. */
export function helloAgain(signerOrigin: string): Promise<unknown> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => resolve(e.data);
    const signer = (document.querySelector('iframe[data-attacker]') as HTMLIFrameElement).contentWindow as Window;
    signer.postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, signerOrigin, [channel.port2]);
  });
}

/**
 * Posts `encoded` messages (in the JSON form of e2e/frame/portable/tagged.ts, rebuilt here into
 * the values they stand for: BigInts, Dates, Maps, Sets, typed arrays, null-prototype objects,
 * undefined, NaN, -0), then every message the frame sent so far if `replay`, on the attacker's port
 * (`connectAsAttacker`), then a valid call; resolves to the answers received after, but states
 * and events.
 */
export function postThenCall([encoded, replay]: readonly [unknown[], boolean]): Promise<unknown[]> {
  type Tagged = { $: string; v?: unknown; k?: string; p?: boolean };
  const decode = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(decode);
    const t = value as Tagged;
    const items = () => (t.v as unknown[]).map(decode);
    switch (t.$) {
      case 'u':
        return undefined;
      case 'n':
        return Number(t.v);
      case 'b':
        return BigInt(t.v as string);
      case 'd':
        return new Date(decode(t.v) as number);
      case 'm':
        return new Map((t.v as [unknown, unknown][]).map(([k, v]) => [decode(k), decode(v)]));
      case 's':
        return new Set(items());
      case 't':
        return new (globalThis as unknown as Record<string, new (values: unknown[]) => unknown>)[t.k as string]!(items());
      default: {
        const object: Record<string, unknown> = t.p === true ? Object.create(null) : {};
        for (const [k, v] of t.v as [string, unknown][]) Object.defineProperty(object, k, { value: decode(v), enumerable: true, writable: true, configurable: true });
        return object;
      }
    }
  };
  return new Promise<unknown[]>((resolve) => {
    const port = window.t.port as MessagePort;
    const got = window.t.got as unknown[];
    const messages = [...encoded.map(decode), ...(replay ? [...got] : [])];
    const from = got.length;
    const probe = 1_000_000;
    port.onmessage = (e) => {
      got.push(e.data);
      if ((e.data as { id?: number }).id === probe) resolve(got.slice(from).filter((m) => (m as { type?: string }).type !== 'state' && (m as { type?: string }).type !== 'event'));
    };
    for (const m of messages) {
      try {
        port.postMessage(m);
      } catch {
        // not cloneable: the browser refuses it before the frame could
      }
    }
    port.postMessage({ type: 'call', id: probe, method: 'restore', args: [] });
  });
}

/** From now on every iframe this page creates carries `sandbox="<flags>"` (an app embedding the signer sandboxed). */
export function sandboxIframes(flags: string): void {
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
    const element = create.call(this, tag, options);
    if (tag.toLowerCase() === 'iframe') element.setAttribute('sandbox', flags);
    return element;
  } as typeof Document.prototype.createElement;
}

/** Through the library, from this page: how connecting to the signer at `url` ends ('connected' or the error's code). */
export function connectThroughLibrary([url, connectTimeoutMs]: readonly [string, number]): Promise<string | undefined> {
  const { createWallet, signerFrame } = window.frameLib;
  return createWallet({ signer: signerFrame({ url, connectTimeoutMs }) })
    .restore()
    .then(
      () => 'connected',
      (e: { code?: string }) => e.code,
    );
}

/** The parent's script fakes the user: clicks dispatched at the signer's iframe, and messages posted to its window. */
export function syntheticClicksFromParent(): void {
  const iframe = document.querySelector('iframe[title="Wallet signer"]') as HTMLIFrameElement;
  const box = iframe.getBoundingClientRect();
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']) {
    iframe.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 }));
  }
  iframe.contentWindow?.postMessage({ type: 'approve' }, '*');
  iframe.contentWindow?.postMessage({ type: 'call', id: 5, method: 'updateAccount', args: [] }, '*');
}

/** A click made by script inside the frame itself (as a bug or an injection there would): not trusted. */
export function scriptClickInFrame(): void {
  // "Approve", or, where the prompt is answered in the approval window, the button that opens it.
  for (const id of ['signer-approve', 'signer-open-popup']) {
    const button = document.querySelector(`[data-testid="${id}"]`) as HTMLButtonElement | null;
    button?.click();
    button?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  }
}

/** The partitioning canary's write: 'written', or why the frame's localStorage refused ('blocked: …'). */
export function writeCanary(marker: string): string {
  try {
    localStorage.setItem('partition-canary', marker);
    return 'written';
  } catch (e) {
    return `blocked: ${String(e)}`;
  }
}

/** The partitioning canary's read (null: this storage never saw the write). */
export function readCanary(): string | null {
  return localStorage.getItem('partition-canary');
}

/** Starts `exportWallet(accountId)`; its outcome waits in `window.t.export`. */
export function startExportInPage(accountId: string): void {
  const wallet = window.t.wallet as FrameWallet;
  window.t.export = wallet.exportWallet(accountId).then(
    (value) => ({ ok: true as const, value }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code }),
  );
}

/** In the signer frame: the words of the phrase screen as shown ([] while hidden or gone). */
export function phraseWordsInFrame(): string[] {
  const list = document.querySelector('[data-testid="signer-phrase-words"]') as HTMLElement | null;
  if (list === null || !list.checkVisibility()) return [];
  return [...list.querySelectorAll('li')].map((li) => li.textContent ?? '');
}

/** Everything the parent's origin keeps: localStorage, sessionStorage, cookies and every IndexedDB record, as text. */
export async function storageInPage(): Promise<string> {
  const out: string[] = [document.cookie];
  for (const store of [localStorage, sessionStorage]) for (let i = 0; i < store.length; i++) out.push(`${store.key(i)}=${store.getItem(store.key(i) ?? '')}`);
  const text = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (v instanceof CryptoKey ? `CryptoKey ${v.type}` : v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? Array.from(new Uint8Array(v instanceof ArrayBuffer ? v : v.buffer)) : v));
  for (const { name } of await indexedDB.databases()) {
    if (name === undefined) continue;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    for (const storeName of [...db.objectStoreNames]) {
      const all = await new Promise<unknown[]>((resolve, reject) => {
        const get = db.transaction(storeName, 'readonly').objectStore(storeName).getAll();
        get.onsuccess = () => resolve(get.result);
        get.onerror = () => reject(get.error);
      });
      out.push(`${name}/${storeName}: ${text(all)}`);
    }
    db.close();
  }
  return out.join('\n');
}
