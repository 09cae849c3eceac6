/**
 * The parent's end of the signer protocol: the iframe, the handshake, and calls by request id with
 * a timeout and a cancel. It holds nothing secret and imports no key or session code.
 */
import { WalletError } from '../../errors.js';
import { CALL_TIMEOUT_MS, FRAME_HEIGHT, FRAME_METHODS, SIGNER_PROTOCOL, parseFrameMessage, type FrameMessage, type FrameMethod, type WireError } from '../protocol.js';

/** Options of {@link signerFrame}. */
export interface SignerFrameOptions {
  /** The signer page's URL (its origin is the signer's origin), e.g. `https://signer.app.example/`. */
  url: string;
  /** Where the iframe goes; default `document.body`. It is shown only while the frame asks the user something. */
  container?: HTMLElement;
  /** Longest wait for the frame to load and accept this page, in ms; default 15 000 (then SIGNER_FRAME_UNREACHABLE). */
  connectTimeoutMs?: number;
  /**
   * The iframe's `title`: the name assistive technology gives the frame in your page. Default
   * `'Wallet signer'` (English): give it in your page's language. The frame's own screens take
   * their words from the signer host's table, never from this.
   */
  title?: string;
}

/**
 * The iframe's `title` when {@link SignerFrameOptions.title} is not given. Decision: an option of the
 * app, not a text of the signer's table. The attribute belongs to the app's page (it names the frame
 * among the app's own content, in the app's language), it is needed before the frame has loaded, and
 * the parent cannot read the host's table (another origin; the frame sends the parent no words).
 * Nothing the frame shows depends on it: the prompts' own names are the frame's, from its table.
 */
export const DEFAULT_FRAME_TITLE = 'Wallet signer';

/** A signer frame for `createWallet({ signer })` (made by {@link signerFrame}). */
export interface SignerFrame {
  /** The signer's origin. */
  readonly origin: string;
  /** Opens the frame and its channel (once; later calls share it). */
  connect(): Promise<FrameChannel>;
  /** Removes the frame; pending calls fail with SIGNER_FRAME_UNREACHABLE. */
  close(): void;
}

/** An open channel to the frame. */
export interface FrameChannel {
  /** Calls `method` in the frame; rejects with the frame's error, SIGNER_FRAME_TIMEOUT or SIGNER_FRAME_UNREACHABLE. */
  call(method: FrameMethod, args: readonly unknown[]): Promise<unknown>;
  /** Frame messages that are not answers (state, events, ui). */
  onMessage(listener: (message: FrameMessage) => void): () => void;
}

export function fromWire(error: WireError): WalletError {
  return new WalletError(error.code, error.message, {
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
  });
}

const REFUSED = {
  SIGNER_ORIGIN_NOT_ALLOWED: (origin: string) => `the signer at ${origin} does not accept this page's origin (${location.origin})`,
  SIGNER_STORAGE_UNAVAILABLE: (origin: string) => `the signer frame at ${origin} cannot store keys in this browser's partition`,
  SIGNER_FRAME_UNREACHABLE: (origin: string) => `the signer frame at ${origin} is already connected to another channel (one per load)`,
} as const;

/**
 * The iframe's look: centred in the viewport, out of sight and out of reach (`visibility: hidden`)
 * until the frame asks to be shown. Its height is what the frame's screen asks for as it is shown
 * (`ui`'s `height`, clamped by the protocol to FRAME_HEIGHT; 480 px until it asks), never more than
 * the viewport: a long prompt (a payment with many lines) gets a taller frame, so its words and
 * "Approve" show whole. Decision (issue 32): the frame says how tall it needs to be, once per screen
 * shown, and the parent sizes the iframe before it becomes visible — nothing moves under the user's
 * pointer while a screen is up (a resize disarms "Approve": approve-guard.ts). Nothing here is
 * trusted by the frame: its layout keeps "Approve" in view whatever the height, the words scroll
 * above it, and the guard checks what is really visible (THREAT-MODEL.md P1).
 */
function place(iframe: HTMLIFrameElement, visible: boolean, height: number): void {
  iframe.style.cssText =
    `position:fixed;inset:0;margin:auto;width:min(420px,100vw);height:min(${height}px,100vh);border:0;border-radius:12px;box-shadow:0 10px 40px rgba(0,0,0,.3);background:#fff;z-index:2147483647;` +
    (visible ? 'visibility:visible' : 'visibility:hidden');
}

/**
 * The signer frame at `url`, for `createWallet({ signer: signerFrame({ url }) })`. Nothing is
 * created until the wallet's first call (or `connect()`).
 */
export function signerFrame(options: SignerFrameOptions): SignerFrame {
  if (typeof options !== 'object' || options === null || typeof options.url !== 'string') throw new WalletError('INVALID_ARGUMENT', 'signerFrame needs { url }');
  let origin: string;
  try {
    origin = new URL(options.url).origin;
  } catch {
    throw new WalletError('INVALID_ARGUMENT', 'signerFrame url must be an absolute URL');
  }
  if (origin === 'null') throw new WalletError('INVALID_ARGUMENT', 'signerFrame url must have an http(s) origin');
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const title = options.title ?? DEFAULT_FRAME_TITLE;
  if (typeof title !== 'string' || title.trim() === '') throw new WalletError('INVALID_ARGUMENT', 'signerFrame title must be a non-empty string');
  let connecting: Promise<FrameChannel> | undefined;
  let iframe: HTMLIFrameElement | undefined;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: WalletError) => void }>();
  const failAll = (error: WalletError) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };

  const open = (): Promise<FrameChannel> =>
    new Promise<FrameChannel>((resolve, reject) => {
      const frame = document.createElement('iframe');
      iframe = frame;
      frame.src = options.url;
      frame.title = title;
      frame.allow = 'publickey-credentials-get; publickey-credentials-create; clipboard-write';
      frame.referrerPolicy = 'origin';
      // The height the frame's screen asked for last (FRAME_HEIGHT.min until it asks).
      let height: number = FRAME_HEIGHT.min;
      place(frame, false, height);
      const channel = new MessageChannel();
      const port = channel.port1;
      const listeners = new Set<(message: FrameMessage) => void>();
      let nextId = 1;
      const timer = setTimeout(() => {
        port.close();
        reject(new WalletError('SIGNER_FRAME_UNREACHABLE', `the signer frame at ${origin} did not answer within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const ready: FrameChannel = {
        call(method, args) {
          const id = nextId++;
          return new Promise((res, rej) => {
            const limit = CALL_TIMEOUT_MS[FRAME_METHODS[method]];
            const timeout = setTimeout(() => {
              pending.delete(id);
              port.postMessage({ type: 'cancel', id });
              rej(new WalletError('SIGNER_FRAME_TIMEOUT', `the signer frame did not answer ${method} within ${limit} ms`));
            }, limit);
            pending.set(id, {
              resolve: (v) => {
                clearTimeout(timeout);
                res(v);
              },
              reject: (e) => {
                clearTimeout(timeout);
                rej(e);
              },
            });
            port.postMessage({ type: 'call', id, method, args });
          });
        },
        onMessage(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      };
      port.onmessage = (event: MessageEvent) => {
        const message = parseFrameMessage(event.data);
        if (message === undefined) return;
        switch (message.type) {
          case 'ready':
            clearTimeout(timer);
            return resolve(ready);
          case 'refused':
            clearTimeout(timer);
            port.close();
            return reject(new WalletError(message.code, REFUSED[message.code](origin)));
          case 'result':
          case 'error': {
            const waiting = pending.get(message.id);
            if (waiting === undefined) return;
            pending.delete(message.id);
            if (message.type === 'result') waiting.resolve(message.value);
            else waiting.reject(fromWire(message.error));
            return;
          }
          case 'ui':
            if (message.height !== undefined) height = message.height;
            place(frame, message.visible, height);
            return;
          default:
            for (const listener of [...listeners]) listener(message);
        }
      };
      frame.addEventListener(
        'load',
        () => {
          // The frame's origin, not '*': the hello and its port go to the signer or nowhere.
          frame.contentWindow?.postMessage({ protocol: SIGNER_PROTOCOL, type: 'hello' }, origin, [channel.port2]);
        },
        { once: true },
      );
      const container = options.container ?? document.body;
      // The frame removed (by the app, or by a script of its page): every call waiting on it fails now.
      const watcher = new MutationObserver(() => {
        if (frame.isConnected) return;
        watcher.disconnect();
        clearTimeout(timer);
        port.close();
        if (iframe === frame) {
          iframe = undefined;
          connecting = undefined;
        }
        reject(new WalletError('SIGNER_FRAME_UNREACHABLE', 'the signer frame was removed from the page'));
        failAll(new WalletError('SIGNER_FRAME_UNREACHABLE', 'the signer frame was removed from the page'));
      });
      container.append(frame);
      watcher.observe(document.documentElement, { childList: true, subtree: true });
    });

  return {
    origin,
    connect() {
      connecting ??= open().catch((error: unknown) => {
        connecting = undefined;
        iframe?.remove();
        throw error;
      });
      return connecting;
    },
    close() {
      iframe?.remove();
      iframe = undefined;
      connecting = undefined;
      failAll(new WalletError('SIGNER_FRAME_UNREACHABLE', 'the signer frame was closed'));
    },
  };
}
