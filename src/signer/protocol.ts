/**
 * The protocol between an app (the parent) and the signer frame, shared by both sides. Nothing here
 * touches a key, a session or the DOM: the parent bundles it, and so does the frame.
 *
 * - The handshake: the parent posts {@link Hello} to the frame's window with one transferred
 *   `MessagePort`; everything after goes over that port. The frame answers `ready` or `refused`.
 * - Parent → frame: `call` (a request id, a method the frame declares, its arguments) and `cancel`.
 * - Frame → parent: `result` / `error` (by request id), `state` (the sessions, public facts only),
 *   `event` (the wallet's events) and `ui` (show or hide the frame).
 * Every message either side receives is checked by {@link parseParentMessage} /
 * {@link parseFrameMessage}: plain JSON data only, at most {@link MAX_MESSAGE_BYTES}, the exact
 * shape of its type. Anything else is dropped.
 */

/** The protocol's name and version, in every hello. */
export const SIGNER_PROTOCOL = 'embedded-wallet-signer.frame/1';

/** The largest message either side accepts, counted as its JSON text (bytes of UTF-16 code units). */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** The deepest nesting of arrays and objects accepted. */
const MAX_DEPTH = 12;

/** The first message, posted to the frame's window with one MessagePort. */
export interface Hello {
  readonly protocol: typeof SIGNER_PROTOCOL;
  readonly type: 'hello';
}

/** A call of the parent: `method` is one of the frame's {@link FRAME_METHODS}. */
export interface CallMessage {
  readonly type: 'call';
  readonly id: number;
  readonly method: FrameMethod;
  readonly args: readonly unknown[];
}

/** The parent stops waiting for call `id`: the frame closes its prompt and gives up the call. */
export interface CancelMessage {
  readonly type: 'cancel';
  readonly id: number;
}

export type ParentMessage = CallMessage | CancelMessage;

/** An error as it crosses to the parent: no cause, no stack; `details` only if plain data. */
export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly status?: number;
  readonly details?: Record<string, unknown>;
}

/** Why the frame refused a hello (the parent maps them to WalletError codes of the same name). */
export type RefusalCode = 'SIGNER_ORIGIN_NOT_ALLOWED' | 'SIGNER_STORAGE_UNAVAILABLE' | 'SIGNER_FRAME_UNREACHABLE';

export type FrameMessage =
  | { readonly type: 'ready'; readonly protocol: typeof SIGNER_PROTOCOL }
  | { readonly type: 'refused'; readonly code: RefusalCode }
  | { readonly type: 'result'; readonly id: number; readonly value: unknown }
  | { readonly type: 'error'; readonly id: number; readonly error: WireError }
  | { readonly type: 'state'; readonly snapshot: Record<string, unknown>; readonly sessions: readonly Record<string, unknown>[]; readonly serverOffsetMs: number }
  | { readonly type: 'event'; readonly name: string; readonly payload: unknown }
  | { readonly type: 'ui'; readonly visible: boolean; readonly height?: number };

/**
 * The heights the parent sizes the frame to (CSS px): what the frame's screen asks for (`ui`'s
 * `height`), no less than {@link FRAME_HEIGHT.min} (the frame's size before it asked) and no more
 * than {@link FRAME_HEIGHT.max}; the parent's viewport bounds it too. The frame's layout keeps
 * "Approve" in view at any height (signer.css), so a parent that sizes it otherwise only
 * makes the words scroll, or, below the words' minimum, keeps "Approve" disarmed.
 */
export const FRAME_HEIGHT = { min: 480, max: 960 } as const;

/**
 * The methods the frame answers, each with how long the parent waits for it. `interactive` ones
 * wait on the user in the frame (an approval, a code to type): the parent waits longer for them.
 */
export const FRAME_METHODS = {
  restore: 'plain',
  refresh: 'plain',
  logout: 'plain',
  listSessions: 'plain',
  listCredentials: 'plain',
  listDelegatedKeys: 'plain',
  getDelegatedKey: 'plain',
  createQuote: 'plain',
  startOtpLogin: 'plain',
  'otp.resend': 'plain',
  'otp.verify': 'interactive',
  addSmsOtp: 'interactive',
  addEmailOtp: 'interactive',
  signOutOtherDevices: 'interactive',
  deleteCredential: 'interactive',
  createDelegatedKey: 'interactive',
  revokeDelegatedKey: 'interactive',
  updateAccount: 'interactive',
  executeQuote: 'interactive',
  changeContact: 'interactive',
  preparePasskeyLogin: 'plain',
  preparePasskeyRegistration: 'plain',
  'passkey.login': 'interactive',
  registerPasskey: 'interactive',
  prepareOAuth: 'plain',
  completeOAuth: 'plain',
  addOAuthCredential: 'interactive',
  exportWallet: 'interactive',
} as const;

export type FrameMethod = keyof typeof FRAME_METHODS;

/**
 * What an app learns of a wallet export in frame mode: that the recovery phrase was shown in the
 * signer frame (and its screen is gone), nothing of the phrase.
 */
export interface ExportShown {
  /** Always true: the phrase was shown in the frame. */
  readonly shown: true;
}

/** How long the parent waits for a plain call, and for one that waits on the user. */
export const CALL_TIMEOUT_MS = { plain: 60_000, interactive: 300_000 } as const;

export function isFrameMethod(value: unknown): value is FrameMethod {
  return typeof value === 'string' && Object.hasOwn(FRAME_METHODS, value);
}

/**
 * The size of `value` as JSON text when it is plain JSON data (null, booleans, finite numbers,
 * strings, arrays, objects whose prototype is Object.prototype or null) no deeper than MAX_DEPTH
 * and within `limit`; -1 otherwise. Stops as soon as the limit is passed.
 */
export function plainSize(value: unknown, limit = MAX_MESSAGE_BYTES): number {
  let total = 0;
  const visit = (v: unknown, depth: number): boolean => {
    if (total > limit || depth > MAX_DEPTH) return false;
    if (v === null || typeof v === 'boolean') total += 5;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
      total += 24;
    } else if (typeof v === 'string') total += v.length + 2;
    else if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return false;
      total += 2 + v.length;
      for (let i = 0; i < v.length; i++) if (!(i in v) || !visit(v[i], depth + 1)) return false;
    } else if (typeof v === 'object') {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      if (Object.getOwnPropertySymbols(v).length > 0) return false;
      for (const [key, item] of Object.entries(v)) {
        total += key.length + 4;
        if (!visit(item, depth + 1)) return false;
      }
      total += 2;
    } else return false;
    return total <= limit;
  };
  return visit(value, 0) ? total : -1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Exactly these keys (no more, no fewer). */
function hasKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.hasOwn(value, k));
}

function isRequestId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function isHello(data: unknown): data is Hello {
  return isObject(data) && plainSize(data, 256) !== -1 && hasKeys(data, ['protocol', 'type']) && data.protocol === SIGNER_PROTOCOL && data.type === 'hello';
}

/** A parent's message as the frame accepts it, or undefined (dropped). */
export function parseParentMessage(data: unknown): ParentMessage | undefined {
  if (!isObject(data) || plainSize(data) === -1) return undefined;
  if (data.type === 'cancel' && hasKeys(data, ['type', 'id']) && isRequestId(data.id)) return { type: 'cancel', id: data.id };
  if (data.type === 'call' && hasKeys(data, ['type', 'id', 'method', 'args']) && isRequestId(data.id) && isFrameMethod(data.method) && Array.isArray(data.args) && data.args.length <= 4) {
    return { type: 'call', id: data.id, method: data.method, args: data.args };
  }
  return undefined;
}

function isWireError(value: unknown): value is WireError {
  if (!isObject(value) || typeof value.code !== 'string' || typeof value.message !== 'string') return false;
  if (value.status !== undefined && typeof value.status !== 'number') return false;
  return value.details === undefined || isObject(value.details);
}

/** A frame's message as the parent accepts it, or undefined (dropped). */
export function parseFrameMessage(data: unknown): FrameMessage | undefined {
  if (!isObject(data) || plainSize(data, 4 * MAX_MESSAGE_BYTES) === -1) return undefined;
  switch (data.type) {
    case 'ready':
      return data.protocol === SIGNER_PROTOCOL ? { type: 'ready', protocol: SIGNER_PROTOCOL } : undefined;
    case 'refused':
      return data.code === 'SIGNER_ORIGIN_NOT_ALLOWED' || data.code === 'SIGNER_STORAGE_UNAVAILABLE' || data.code === 'SIGNER_FRAME_UNREACHABLE' ? { type: 'refused', code: data.code } : undefined;
    case 'result':
      return isRequestId(data.id) && 'value' in data ? { type: 'result', id: data.id, value: data.value } : undefined;
    case 'error':
      return isRequestId(data.id) && isWireError(data.error) ? { type: 'error', id: data.id, error: data.error } : undefined;
    case 'state':
      return isObject(data.snapshot) && Array.isArray(data.sessions) && data.sessions.every(isObject) && typeof data.serverOffsetMs === 'number'
        ? { type: 'state', snapshot: data.snapshot, sessions: data.sessions, serverOffsetMs: data.serverOffsetMs }
        : undefined;
    case 'event':
      return typeof data.name === 'string' ? { type: 'event', name: data.name, payload: data.payload } : undefined;
    case 'ui':
      if (typeof data.visible !== 'boolean') return undefined;
      // A height the frame asks for: a finite number, clamped to FRAME_HEIGHT (else the message is dropped).
      // plainSize above already refuses non-finite numbers; this check keeps the rule where it is read
      // (StrykerJS on protocol.ts: its two mutants survive for that reason).
      if (data.height === undefined) return { type: 'ui', visible: data.visible };
      if (typeof data.height !== 'number' || !Number.isFinite(data.height)) return undefined;
      return { type: 'ui', visible: data.visible, height: Math.round(Math.min(FRAME_HEIGHT.max, Math.max(FRAME_HEIGHT.min, data.height))) };
    default:
      return undefined;
  }
}
