/**
 * The frame's side of the handshake (THREAT-MODEL.md P4). A parent is accepted only when:
 * - its hello comes from the window that embeds this page (`event.source === window.parent`, and
 *   this page is embedded at all), not from another window of any origin;
 * - the hello's origin is one of the host configuration's `allowedParentOrigins` (the parent's word
 *   plays no part: `event.origin` is set by the browser);
 * - the hello is exactly {@link Hello} with exactly one transferred MessagePort;
 * - no parent was accepted before in this page's life: once per load.
 * A hello that fails any of these is dropped; one from an origin that is not allowed, or one that
 * comes after a parent was accepted, is told so on its own port (`refused`; nothing else is ever
 * sent on it) so the app can show a clear error. Hellos are judged one at a time in the order they
 * came; those that arrive before the configuration is read wait for it (a few at most: more are
 * dropped).
 */
import { isHello, type RefusalCode } from '../protocol.js';

export interface HandshakeOptions {
  /** Resolves to the allowed origins (the host configuration), or rejects: then no parent is accepted. */
  readonly allowedOrigins: Promise<readonly string[]>;
  /** Refuses a hello from an allowed origin when this page cannot work (e.g. no storage); undefined: fine. */
  readonly check: () => Promise<RefusalCode | undefined>;
  /** Called once, with the accepted parent's port and origin. */
  readonly accepted: (port: MessagePort, origin: string) => void;
  /** The window to listen on; default `window`. */
  readonly window?: Window;
}

/** Hellos held while the configuration loads, at most. */
const MAX_WAITING = 4;

/** Starts listening for the parent's hello; returns the function that stops listening. */
export function listenForParent(options: HandshakeOptions): () => void {
  const win = options.window ?? window;
  let done = false;
  let waiting = 0;
  const refuse = (port: MessagePort, code: RefusalCode) => {
    port.postMessage({ type: 'refused', code });
    port.close();
  };
  // Hellos are judged one at a time, in the order they came (one chain: `done` changes only
  // inside it), so the first allowed hello wins and every later one is told it came too late.
  let judged: Promise<void> = Promise.resolve();
  const judge = async (port: MessagePort, origin: string) => {
    const allowed = await options.allowedOrigins;
    if (done) return refuse(port, 'SIGNER_FRAME_UNREACHABLE');
    if (!allowed.includes(origin)) return refuse(port, 'SIGNER_ORIGIN_NOT_ALLOWED');
    const problem = await options.check();
    if (problem !== undefined) return refuse(port, problem);
    done = true;
    options.accepted(port, origin);
  };
  const onMessage = (event: MessageEvent) => {
    // Only the embedding window, and only when this page is embedded.
    if (win.parent === win || event.source !== win.parent) return;
    if (!isHello(event.data) || event.ports.length !== 1) return;
    const port = event.ports[0] as MessagePort;
    // Once per load: a later hello gets nothing but its refusal.
    if (done) return refuse(port, 'SIGNER_FRAME_UNREACHABLE');
    if (waiting >= MAX_WAITING) return;
    const origin = event.origin;
    waiting++;
    judged = judged
      .then(() => judge(port, origin))
      .catch(() => undefined)
      .finally(() => {
        waiting--;
      });
  };
  win.addEventListener('message', onMessage);
  return () => win.removeEventListener('message', onMessage);
}
