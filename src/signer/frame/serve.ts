/**
 * The frame's end of the accepted parent's MessagePort: each `call` runs its handler (methods.ts)
 * with an AbortSignal its `cancel` fires, and is answered by request id; the wallet's state and
 * events go up as they change, and so does the server-clock estimate (`Served.answerSeen`). Whatever goes up is plain data checked by the protocol's size rule;
 * an error goes up as code, message, status and plain details only (no cause, no stack).
 * Dropped: a message that is not exactly a call or a cancel, a call whose id is in flight, a
 * message carrying ports, and calls beyond {@link MAX_IN_FLIGHT}.
 */
import { isWalletError } from '../../errors.js';
import type { SessionEvents } from '../../session/types.js';
import type { Wallet } from '../../wallet-api.js';
import { MAX_MESSAGE_BYTES, SIGNER_PROTOCOL, parseParentMessage, plainSize, type WireError } from '../protocol.js';
import type { FrameContext } from './methods.js';
import { HANDLERS } from './methods.js';

/** Calls running at once, at most; more are dropped. */
export const MAX_IN_FLIGHT = 32;

// 'end-refused': the app's backend refused to end a session still to end (e.g. its sign-in expired):
// the app says so (sign in again to finish the logout); its payload is public facts and an error's code.
const EVENTS: readonly (keyof SessionEvents)[] = ['session', 'expiring', 'expired', 'refreshed', 'refresh-failed', 'end-refused', 'logged-out', 'key-evicted', 'storage-fallback', 'refreshing', 'changed'];

/** An error as it goes up: nothing but its code, message, status and plain details. */
export function toWire(error: unknown): WireError {
  if (!isWalletError(error)) return { code: 'SIGNER_FRAME_FAILED', message: 'the signer frame failed (its console says why)' };
  const wire: { code: string; message: string; status?: number; details?: Record<string, unknown> } = { code: error.code, message: error.message };
  if (error.status !== undefined) wire.status = error.status;
  if (error.details !== undefined && plainSize(error.details, 8 * 1024) !== -1) wire.details = error.details;
  return wire;
}

/** `payload` with any WalletError in it replaced by its wire form (refresh-failed and end-refused carry one). */
function wireEvent(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null) return payload;
  const error = (payload as { error?: unknown }).error;
  return error === undefined ? payload : { ...payload, error: toWire(error) };
}

/**
 * How far the frame's server-clock estimate (`serverNow() - Date.now()`) must move from the one the
 * parent last got before the state goes up again: the server clock's own step (server-clock.ts
 * reports a move of a second or more).
 */
export const CLOCK_STEP_MS = 1_000;

/** The frame serving its parent. */
export interface Served {
  /** Stops serving: listeners removed, calls in flight aborted, the port closed. */
  stop(): void;
  /**
   * The frame's wallet has read an answer of the service (main.ts calls it after each of its
   * fetches): when the server-clock estimate moved by {@link CLOCK_STEP_MS} or more since the last
   * state, the state goes up again with it. Why: the parent's `serverNow()` carries the frame's last
   * estimate (parent/frame-wallet.ts), and the first sample after a load — a local clock an hour
   * off, say — changes no session and fires no event, so without this the app kept judging expiry
   * on the unsampled clock (its countdown read "expired" for a session the frame keeps live:
   * INVARIANTS.md I6, journey 29b in frame mode).
   */
  answerSeen(): void;
}

export function serveParent(port: MessagePort, ctx: FrameContext): Served {
  const inFlight = new Map<number, AbortController>();
  const post = (message: Record<string, unknown>) => {
    if (plainSize(message, 4 * MAX_MESSAGE_BYTES) === -1) {
      if (typeof message.id === 'number') port.postMessage({ type: 'error', id: message.id, error: { code: 'SIGNER_FRAME_FAILED', message: 'the answer is too large for the signer protocol' } });
      return;
    }
    port.postMessage(message);
  };
  const wallet: Wallet = ctx.wallet;
  const offset = () => wallet.serverNow() - Date.now();
  /** The estimate the parent got with the last state. */
  let sentOffset = 0;
  const state = () => {
    sentOffset = offset();
    post({ type: 'state', snapshot: wallet.getSnapshot(), sessions: wallet.sessions(), serverOffsetMs: sentOffset });
  };
  const stops = [wallet.subscribe(state), ...EVENTS.map((name) => wallet.on(name, (payload) => {
    state();
    post({ type: 'event', name, payload: wireEvent(payload) });
  }))];

  port.onmessage = (event: MessageEvent) => {
    if (event.ports.length > 0) return;
    const message = parseParentMessage(event.data);
    if (message === undefined) return;
    if (message.type === 'cancel') {
      inFlight.get(message.id)?.abort();
      return;
    }
    if (inFlight.has(message.id) || inFlight.size >= MAX_IN_FLIGHT) return;
    const controller = new AbortController();
    inFlight.set(message.id, controller);
    const { id } = message;
    HANDLERS[message.method](ctx, message.args, controller.signal)
      .then(
        (value) => post({ type: 'result', id, value: value === undefined ? null : value }),
        (error: unknown) => {
          if (!isWalletError(error)) console.error('signer frame:', error);
          post({ type: 'error', id, error: toWire(error) });
        },
      )
      .finally(() => inFlight.delete(id));
  };
  port.start();
  port.postMessage({ type: 'ready', protocol: SIGNER_PROTOCOL });
  state();
  return {
    stop() {
      for (const stop of stops) stop();
      for (const controller of inFlight.values()) controller.abort();
      port.close();
    },
    answerSeen() {
      if (Math.abs(offset() - sentOffset) >= CLOCK_STEP_MS) state();
    },
  };
}
