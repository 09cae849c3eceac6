/**
 * Coordination between tabs (and between wallet instances of one page) sharing one key store:
 * Web Locks so that one of them refreshes a session, BroadcastChannel so that the others adopt the
 * result, log out together and see each other's logins.
 *
 * Degrades without the APIs: without `navigator.locks` a lock only serialises callers in this
 * JavaScript realm (tabs then rely on re-reading storage inside the lock, so a duplicate refresh is
 * possible but harmless: the service keeps the older session valid until it expires); without
 * `BroadcastChannel` other tabs catch up when they re-read storage (on visibilitychange, online, and
 * before each refresh). Nothing is touched until first use.
 */

/**
 * What goes over the channel: only who changed the shared storage. Decision: a message carries no
 * session data; a tab that receives one re-reads storage, which is the truth (a message may arrive
 * before or after others, or never), so there is nothing in it to trust or keep in step.
 */
interface CrossTabMessage {
  from: string;
}

export interface CrossTab {
  /** This instance's id (messages carry it so an instance can ignore its own). */
  readonly id: string;
  /** Runs `fn` holding the named exclusive lock. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Starts listening to other tabs (idempotent; a no-op where BroadcastChannel is missing). */
  start(): void;
  /** Tells the other tabs that this one changed the shared storage. */
  post(): void;
  close(): void;
}

interface LockManagerLike {
  request<T>(name: string, options: { mode: 'exclusive' }, callback: () => Promise<T>): Promise<T>;
}

interface ChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  unref?: () => void;
}

/** Locks of this realm, for when Web Locks are missing (or cross-tab coordination is off). */
const localLocks = new Map<string, Promise<unknown>>();

async function withLocalLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const previous = localLocks.get(name) ?? Promise.resolve();
  let release: () => void = () => undefined;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  localLocks.set(name, tail);
  try {
    await previous.catch(() => undefined);
    return await fn();
  } finally {
    release();
    if (localLocks.get(name) === tail) localLocks.delete(name);
  }
}

function lockManager(): LockManagerLike | undefined {
  const locks = (globalThis as { navigator?: { locks?: unknown } }).navigator?.locks;
  return typeof locks === 'object' && locks !== null && typeof (locks as LockManagerLike).request === 'function' ? (locks as LockManagerLike) : undefined;
}

function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * `namespace` separates wallets that use different key stores (lock and channel names derive from
 * it). With `enabled` false everything stays within this instance's realm and nothing is posted.
 */
export function createCrossTab(options: { namespace: string; enabled: () => boolean; onMessage: () => void }): CrossTab {
  const id = randomId();
  let channel: ChannelLike | undefined;
  let closed = false;

  function open(): ChannelLike | undefined {
    if (closed || !options.enabled()) return undefined;
    if (channel) return channel;
    const Ctor = (globalThis as { BroadcastChannel?: new (name: string) => ChannelLike }).BroadcastChannel;
    if (typeof Ctor !== 'function') return undefined;
    try {
      channel = new Ctor(`${options.namespace}:sessions`);
    } catch {
      return undefined;
    }
    channel.onmessage = (event) => {
      const from = (event.data as Partial<CrossTabMessage> | null)?.from;
      if (typeof from === 'string' && from !== id) options.onMessage();
    };
    // Node: a channel must not keep the process alive.
    channel.unref?.();
    return channel;
  }

  return {
    id,
    async withLock(name, fn) {
      const full = `${options.namespace}:${name}`;
      const locks = options.enabled() ? lockManager() : undefined;
      if (!locks) return withLocalLock(full, fn);
      return locks.request(full, { mode: 'exclusive' }, fn);
    },
    start() {
      open();
    },
    post() {
      try {
        open()?.postMessage({ from: id } satisfies CrossTabMessage);
      } catch {
        // A closed channel: other tabs catch up from storage.
      }
    },
    close() {
      closed = true;
      if (channel) {
        channel.onmessage = null;
        channel.close();
        channel = undefined;
      }
    },
  };
}
