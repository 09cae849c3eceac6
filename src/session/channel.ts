/**
 * Messages between tabs sharing one key store, coalesced.
 *
 * Decision: a message carries nothing trusted, only a hint of which account changed (`{from,
 * account}`); the receiver re-reads that account's state from storage, which is the truth (a message
 * may arrive late, twice, forged by another script of the origin, or never). Syncs are coalesced: per
 * account at most one runs and at most one more is pending, however many messages arrive, so a flood
 * costs at most two storage reads per account and never delays signing.
 *
 * One exception, a logout whose request storage refused (held.ts): its message carries the request
 * (`logout: {nonce, generation}`), which the receiver records as if it had read it (state.ts
 * `adoptLogout`: unless a state newer than what that logout saw holds sessions, so a late message
 * never undoes a later login). A forged one can only log the account out, which any script
 * of the origin can do anyway.
 *
 * Decision (issue 31, I1): a tab whose key store fell back to memory (IndexedDB could not be opened)
 * shares no storage, so it has nothing to re-read; it listens for one thing only, a logout its user
 * asked for in another tab (`loggedOut: true`), and logs the account out itself (its own sessions, in
 * memory and on the service). A shared tab does the same for a logout a memory tab announces
 * (`memory: true`); between shared tabs such a message is a sync like any other (storage, or the
 * request it carries, has the nonce). Trusted to ask for a logout only, as above.
 */
import { randomId, type ChannelLike, type SessionHost } from './host.js';

export interface TabChannel {
  /** Starts listening (idempotent; a no-op without a channel). */
  start(): void;
  /**
   * Tells the other tabs that this account's stored state changed (`logout`: a logout request storage
   * refused; `loggedOut`: because this tab's user logged it out, which tabs on the memory store carry out).
   */
  post(accountId: string, logout?: LogoutRequest, loggedOut?: true): void;
  close(): void;
}

/** A logout request as stored (state.ts `logout:`): its nonce and the generation it saw. */
export interface LogoutRequest {
  nonce: string;
  generation: number;
}

interface Message {
  from: string;
  account?: string;
  logout?: LogoutRequest;
  /** A logout the sender's user asked for. */
  loggedOut?: true;
  /** The sender's key store is memory (it shares no storage). */
  memory?: true;
}

const isLogoutRequest = (v: unknown): v is LogoutRequest =>
  typeof v === 'object' && v !== null && typeof (v as LogoutRequest).nonce === 'string' && Number.isSafeInteger((v as LogoutRequest).generation);

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
  /** A logout request another tab could not store: recorded here before the account is re-read. */
  onLogout?: (accountId: string, logout: LogoutRequest) => Promise<void>;
  /** Whether this tab's storage is shared with the others (default: yes); false: a memory store. */
  shared?: () => boolean;
  /** A logout another tab's user asked for, which this tab must carry out itself (see above). */
  onLoggedOut?: (accountId: string) => void;
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
      const account = typeof data.account === 'string' && data.account !== '' ? data.account : ALL;
      const loggedOut = data.loggedOut === true && account !== ALL;
      if (!shared()) {
        if (loggedOut) options.onLoggedOut?.(account);
        return;
      }
      if (loggedOut && data.memory === true) return options.onLoggedOut?.(account);
      if (account === ALL || !options.onLogout || !isLogoutRequest(data.logout)) return schedule(account);
      void options.onLogout(account, data.logout).catch(() => undefined).then(() => schedule(account));
    };
    channel.unref?.();
    return channel;
  }

  return {
    start() {
      open();
    },
    post(accountId, logout, loggedOut) {
      const here = shared();
      // A memory tab's changes are its own: only its user's logouts concern the other tabs.
      if (!here && loggedOut === undefined) return;
      try {
        open()?.postMessage({ from: id, account: accountId, ...(logout && { logout }), ...(loggedOut && { loggedOut }), ...(!here && { memory: true }) } satisfies Message);
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
