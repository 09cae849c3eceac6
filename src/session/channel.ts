/**
 * Messages between tabs sharing one key store, coalesced.
 *
 * Decision: a message carries nothing trusted, only a hint of which account changed (`{from,
 * account}`); the receiver re-reads that account's state from storage, which is the truth (a message
 * may arrive late, twice, forged by another script of the origin, or never). Syncs are coalesced: per
 * account at most one runs and at most one more is pending, however many messages arrive, so a flood
 * costs at most two storage reads per account and never delays signing.
 *
 * Decision (issue 31, I1): a tab whose key store fell back to memory (IndexedDB could not be opened)
 * shares no storage, so it has nothing to re-read; it listens for one thing only, a logout (`logout:
 * true`), and logs the account out itself (its own sessions, in memory and on the service). A shared
 * tab does the same for a logout a memory tab announces (`memory: true`); between shared tabs a
 * logout message is a sync like any other (storage has the nonce). Such a message is trusted to ask
 * for a logout only: a script of the origin that forges one can end the user's sessions, nothing
 * more, and it can do that already.
 */
import { randomId, type ChannelLike, type SessionHost } from './host.js';

export interface TabChannel {
  /** Starts listening (idempotent; a no-op without a channel). */
  start(): void;
  /**
   * Tells the other tabs that this account's stored state changed; `logout`: because this tab's user
   * logged it out (tabs on the memory store log it out too).
   */
  post(accountId: string, logout?: 'logout'): void;
  close(): void;
}

interface Message {
  from: string;
  account?: string;
  /** A logout asked for by the sender's user. */
  logout?: true;
  /** The sender's key store is memory (it shares no storage). */
  memory?: true;
}

/** Runs `sync(key)` for each key scheduled: at most one running and one pending per key. */
export function createCoalescer(sync: (key: string) => Promise<void>): (key: string) => void {
  const state = new Map<string, 'running' | 'again'>();
  const loop = async (key: string): Promise<void> => {
    do {
      state.set(key, 'running');
      await sync(key).catch(() => undefined);
    } while (state.get(key) === 'again');
    state.delete(key);
  };
  return (key) => {
    const now = state.get(key);
    if (now === undefined) void loop(key);
    else state.set(key, 'again');
  };
}

/** `ALL` as the key asks for a re-read of every account (a message without an account hint). */
export const ALL = '*';

export function createTabChannel(options: {
  name: string;
  host: SessionHost;
  enabled: () => boolean;
  onSync: (accountId: string) => Promise<void>;
  /** Whether this tab's storage is shared with the others (default: yes); false: a memory store. */
  shared?: () => boolean;
  /** A logout another tab's user asked for, which this tab must carry out itself (see above). */
  onLogout?: (accountId: string) => void;
}): TabChannel {
  const shared = (): boolean => options.shared?.() ?? true;
  const id = randomId();
  const schedule = createCoalescer(options.onSync);
  let channel: ChannelLike | undefined;
  let closed = false;

  function open(): ChannelLike | undefined {
    if (closed || !options.enabled()) return undefined;
    if (channel) return channel;
    channel = options.host.openChannel(options.name);
    if (!channel) return undefined;
    channel.onmessage = (event) => {
      const data = event.data as Partial<Message> | null;
      if (typeof data !== 'object' || data === null || typeof data.from !== 'string' || data.from === id) return;
      const account = typeof data.account === 'string' && data.account !== '' ? data.account : undefined;
      const logout = data.logout === true && account !== undefined;
      if (!shared()) {
        if (logout) options.onLogout?.(account);
        return;
      }
      if (logout && data.memory === true) options.onLogout?.(account);
      else schedule(account ?? ALL);
    };
    channel.unref?.();
    return channel;
  }

  return {
    start() {
      open();
    },
    post(accountId, logout) {
      const here = shared();
      // A memory tab's changes are its own: only its user's logouts concern the other tabs.
      if (!here && logout === undefined) return;
      try {
        open()?.postMessage({ from: id, account: accountId, ...(logout !== undefined && { logout: true }), ...(!here && { memory: true }) } satisfies Message);
      } catch {
        // A closed channel: the other tabs catch up from storage (on wake, before signing).
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
