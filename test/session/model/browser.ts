/**
 * The simulated browser of one run of the session model test (test/session/model.test.ts): 3–4 tabs
 * (session managers) over the harness's shared storage, locks, channel, clock and scripted service;
 * what storage holds, read synchronously; the operations each tab runs; letting the world run until
 * it waits on the test. The checks made after every step and after settling are in world.ts.
 */
import type { SessionKey } from '../../../src/crypto/index.js';
import { isWalletError, type WalletError } from '../../../src/errors.js';
import * as changes from '../../../src/session/changes.js';
import { createSessionManager, type ManagedSessions } from '../../../src/session/index.js';
import { changesChunk } from '../../../src/session/manager.js';
import { createClient } from '../../../src/transport/index.js';
import { Bus, Clock, LeaseBoard, Locks, countedKeyStore, logoutCall, openBackend, tabHost, type Coordination } from './harness.js';
import type { LogoutRun } from './logout-deletes.js';
import { ScriptedService } from './scripted-service.js';

export const ACCOUNTS = ['InternalAccount:model-a', 'InternalAccount:model-b'] as const;

/** A failed download of the session-changes chunk, as each tab's wallet reports it (load-on-first-use.ts). */
export const isChunkFailure = (error: unknown): error is WalletError => isWalletError(error, 'NETWORK_ERROR') && /could not load the session code/.test(error.message);
/** Operations that met a failed download, over all runs (printed: the draw reaches them). */
export const chunkFailuresMet = new Map<string, number>();

export interface Tab {
  id: number;
  manager: ManagedSessions;
  open: boolean;
  loaded: boolean;
  /** Its IndexedDB could not be opened: its keys and records in a memory store of its own (I1). */
  memory?: Map<string, unknown>;
}

interface Op {
  tab: number;
  what: string;
  settled: boolean;
}

/** The tabs and their surroundings; `World` (world.ts) adds the checks. */
export class Browser {
  readonly clock = new Clock();
  readonly locks = new Locks();
  readonly bus = new Bus();
  readonly board = new LeaseBoard();
  readonly backend = openBackend();
  readonly busy = { n: 0 };
  readonly wakes = new Map<number, () => void>();
  readonly service = new ScriptedService(this.clock);
  readonly tabs: Tab[] = [];
  readonly ops: Op[] = [];
  readonly violations: string[] = [];
  /** Local (wall) clock minus the true clock: the user set the computer's clock (I6). */
  jumpMs = 0;
  /** The next this-many downloads of the session-changes chunk fail (any tab that has not loaded it yet). */
  chunkFailures = 0;
  /** Accounts whose section the test holds (Web Locks only), with the release: commits wait meanwhile. */
  readonly heldSections = new Map<string, () => void>();

  /** Holds the account's section (as a busy tab would), so that a tab closed now leaves its commit undone. */
  holdSection(account: string): void {
    if (this.coordination.locks !== 'web' || this.heldSections.has(account)) return;
    // Released before the lock was granted (it waits behind another holder): let go at once then.
    let released = false;
    let release = (): void => void (released = true);
    this.heldSections.set(account, () => release());
    void this.locks.forTab(-1).request(`model:account:${account}`, { mode: 'exclusive' }, () => (released ? Promise.resolve() : new Promise<void>((r) => (release = r))));
  }

  releaseSections(): void {
    for (const release of this.heldSections.values()) release();
    this.heldSections.clear();
  }
  private keyIndex = 0;
  private readonly client = createClient({ baseUrl: 'http://127.0.0.1:9' });

  constructor(
    readonly coordination: Coordination,
    /** Session keys made before the runs (WebCrypto work stays out of the interleavings). */
    private readonly pool: readonly SessionKey[],
  ) {
    // Each tab downloads changes.ts on its first login, refresh, sign-out-others or refusal; the
    // module itself is the one this test imported (a resolved promise: flush() sees it through).
    changesChunk.load = () => {
      if (this.chunkFailures === 0) return Promise.resolve(changes);
      this.chunkFailures--;
      return Promise.reject(new TypeError('Failed to fetch dynamically imported module: changes.js'));
    };
    this.service.isStored = this.isStored;
    // S9 orders a logout by when its nonce was written (requested), not when logout() was called (a
    // tab still loading writes it later).
    const set = this.backend.set;
    this.backend.set = async (k, v) => {
      // S9: a logout is requested when its nonce is first written, or first tried (a refused write is
      // held in its tab's memory and written later: the logout was requested before that).
      const nonce = k.startsWith('meta:logout:') && typeof v === 'object' && v !== null ? String((v as { nonce?: unknown }).nonce) : undefined;
      if (nonce !== undefined && !this.nonceTried.has(nonce)) this.nonceTried.set(nonce, ++this.seq);
      // S14: a refused write may lose what an answer told the tab (its end is then sent again).
      await set(k, v).catch((error: unknown) => {
        this.service.writeRefused();
        throw error;
      });
      if (nonce !== undefined) this.nonceWrites.push({ account: k.slice('meta:logout:'.length), seq: ++this.seq, triedSeq: this.nonceTried.get(nonce)! });
    };
    // As the wallet does with every answer's Date header (wallet.ts): the tab learns the server's time.
    this.service.onAnswer = (tab) => void this.tabs[tab]?.manager.clock.observeServerTime(this.clock.now, this.clock.now + this.jumpMs);
  }

  /** Whether a session is stored in some account's state. */
  readonly isStored = (id: string): boolean => ACCOUNTS.some((a) => this.stored(a).sessions.some((s) => s.id === id));
  /** Orders events across tabs (S9): logout nonces written, logins started and resolved. */
  seq = 0;
  readonly nonceWrites: Array<{ account: string; seq: number; triedSeq: number }> = [];
  /** Each logout nonce → when a write of it was first tried (S9). */
  private readonly nonceTried = new Map<string, number>();

  nextKey = (): SessionKey => {
    const key = this.pool[this.keyIndex++];
    if (!key) throw new Error('key pool exhausted');
    return key;
  };

  openTab(memory = false): void {
    const id = this.tabs.length;
    const own = memory ? openBackend() : undefined;
    const store = countedKeyStore(own ?? this.backend, this.busy, () => this.clock.now + this.jumpMs);
    const manager = createSessionManager({
      client: this.client,
      // As createKeyStore falls back when IndexedDB cannot be opened: a store of its own, saying so.
      keyStore: own ? (new Proxy(store, { get: (t, prop, r) => (prop === 'fallbackReason' ? 'indexeddb-open-failed' : Reflect.get(t, prop, r)) }) as typeof store) : store,
      namespace: 'model',
      now: () => this.clock.now + this.jumpMs,
      host: tabHost(id, this, this.nextKey),
      service: this.service.forTab(id),
    });
    const tab: Tab = { id, manager, open: true, loaded: false, ...(own && { memory: own.map }) };
    this.tabs.push(tab);
    this.track(tab, 'restore', manager.restore().then(() => void (tab.loaded = true)));
  }

  track(tab: Tab, what: string, promise: Promise<unknown>, onResult?: (ok: boolean) => void): Promise<unknown> {
    const op: Op = { tab: tab.id, what, settled: false };
    this.ops.push(op);
    return promise.then(
      () => {
        op.settled = true;
        onResult?.(true);
      },
      (error: unknown) => {
        op.settled = true;
        // S7: every failure a caller meets is a WalletError with a code.
        if (!isWalletError(error)) this.violations.push(`S7: ${what}@${tab.id} failed with a non-WalletError: ${String(error)}`);
        if (isChunkFailure(error)) chunkFailuresMet.set(what, (chunkFailuresMet.get(what) ?? 0) + 1);
        onResult?.(false);
      },
    );
  }

  /** `logout()` calls, by number (S14 counts the DELETEs each sends). */
  readonly logoutRuns = new Map<number, LogoutRun>();

  /** Calls `logout(account)` in `tab`, its work named by the call's number (harness.ts `logoutCall`). */
  callLogout(tab: Tab, account: string): Promise<void> {
    const id = this.logoutRuns.size + 1;
    this.logoutRuns.set(id, { tab: tab.id, account, at: this.service.step });
    return logoutCall.run(id, () => tab.manager.logout(account));
  }

  closeTab(tab: Tab, arrived: boolean): void {
    tab.open = false;
    tab.manager.dispose();
    this.locks.close(tab.id);
    this.clock.closeTab(tab.id);
    this.board.closeTab(tab.id);
    this.wakes.delete(tab.id);
    if (this.storageFullTabs.has(tab.id)) this.heldLost = true;
    // Sessions the browser can still name: stored, pending ends, or (I8) a key stored for one whose
    // commit never came (the next logout, or the next tab that loads, ends it). The others are orphaned.
    const keyed = [...this.backend.map.values()].flatMap((v) => ((v as { purpose?: string } | undefined)?.purpose === 'session' && typeof (v as { sessionId?: unknown }).sessionId === 'string' ? [(v as { sessionId: string }).sessionId] : []));
    const held = new Set([...ACCOUNTS.flatMap((a) => [...this.stored(a).sessions.map((s) => s.id), ...this.ending(a).map((e) => e.id)]), ...keyed]);
    this.service.closeTab(tab.id, arrived, held);
    this.service.refreshesOver(tab.id, this.isStored);
  }

  /** What storage holds right now (read from the backend's Map, synchronously). */
  stored(account: string, map: Map<string, unknown> = this.backend.map): { generation: number; current: string | null; sessions: Array<{ id: string; publicKeyHex: string }>; change?: string } {
    const value = map.get(`meta:account:${account}`) as
      | { generation: number; current: string | null; sessions: Array<{ id: string; publicKeyHex: string }>; change: string }
      | undefined;
    return value ?? { generation: 0, current: null, sessions: [] };
  }

  /** The stored logout request of the account. */
  logoutRecord(account: string, map: Map<string, unknown> = this.backend.map): { nonce: string; generation: number } | undefined {
    return map.get(`meta:logout:${account}`) as { nonce: string; generation: number } | undefined;
  }

  /** Sessions a logout or refresh left to end (keys kept for that alone). */
  ending(account: string, map: Map<string, unknown> = this.backend.map): Array<{ id: string; publicKeyHex: string }> {
    return (map.get(`meta:ending:${account}`) as Array<{ id: string; publicKeyHex: string }> | undefined) ?? [];
  }

  storedKeys(account?: string): string[] {
    return [...this.backend.map.entries()]
      .filter(([, v]) => (v as { purpose?: string } | undefined)?.purpose === 'session' && (account === undefined || (v as { accountId?: string }).accountId === account))
      .map(([k]) => k)
      .sort();
  }

  /** Lets every microtask, message, storage write and key check run until the world waits on the test. */
  async flush(): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      const before = this.bus.sent + this.service.pending.length + this.busy.n;
      await new Promise((resolve) => setImmediate(resolve));
      // Key checks (WebCrypto, off the event loop) in flight: polled every ms until none is (a wait on state).
      if (this.busy.n > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      quiet = this.busy.n === 0 && before === this.bus.sent + this.service.pending.length + this.busy.n ? quiet + 1 : 0;
    }
  }

  /** Storage refuses every write until this step is checked (logoutStorageFull). */
  storageFullThisStep = false;
  /** Tabs that made a logout while storage refused writes (its records held in their memory: held.ts). */
  readonly storageFullTabs = new Set<number>();
  /** Such a tab closed: what it held may be lost with it (storage still names the sessions its logout ended). */
  heldLost = false;

  /** A storage write failed at some point: S2 is then only "no session without its key". */
  failedWrite = false;

  /** Delivers every request waiting on the service (prompts approved), oldest first, until none is left (at most `limit`). */
  async deliverAll(limit = 500): Promise<void> {
    for (let i = 0; i < limit && this.service.pending.length > 0; i++) {
      const next = this.service.pending.findIndex((p) => p.stage !== 'signing');
      if (next < 0) break;
      this.service.answer(next, 'deliver');
      await this.flush();
    }
  }

  /**
   * An open tab with an operation still running (a logout first: a logout whose tab closes while it
   * waits, I8), picked by `pick`; undefined when none is, or when it is the last open tab.
   */
  busyTab(pick: number): Tab | undefined {
    const open = this.tabs.filter((t) => t.open);
    if (open.length < 2) return undefined;
    const running = (t: Tab, what?: string): boolean => this.ops.some((o) => o.tab === t.id && !o.settled && (what === undefined || o.what === what));
    const loggingOut = open.filter((t) => running(t, 'logout'));
    const busy = loggingOut.length > 0 ? loggingOut : open.filter((t) => running(t));
    return busy[pick % Math.max(busy.length, 1)];
  }
}
