/**
 * How a tab's picture follows storage (manager.ts): reading an account's stored state (the view
 * follows, calls of an older logout nonce are cancelled, a logout another tab left unfinished is
 * finished here), reading every account, finishing pending ends in the background, and — while
 * calls are tracked — re-reading their accounts every second, so that a logout whose message never
 * comes (no BroadcastChannel, a lost message) still cancels them within that time (I2, I7).
 */
import type { SessionHost } from './host.js';
import { finishEnding, type Cancellers, type OpsContext } from './operations.js';
import { readAll, readSnapshot, type Snapshot } from './state.js';
import type { View } from './view.js';

const WATCH_MS = 1000;

export interface FollowDeps {
  ctx: OpsContext;
  host: SessionHost;
  view: View;
  cancellers: Cancellers;
  /** Runs `fn` in the account's critical section (manager.ts `run`). */
  run: <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>) => Promise<T>;
  disposed: () => boolean;
}

export interface Follower {
  observe(accountId: string): Promise<Snapshot>;
  syncAll(): Promise<void>;
  finishPending(accounts: readonly string[]): void;
  /** Starts the once-a-second re-read while calls are tracked (idempotent). */
  watch(): void;
  /** Stops it (dispose). */
  stop(): void;
}

export function createFollower({ ctx, host, view, cancellers, run, disposed }: FollowDeps): Follower {
  const meta = ctx.keyStore.meta;
  const finishing = new Set<string>();
  let watching: unknown;

  function watch(): void {
    if (watching !== undefined || disposed()) return;
    watching = host.setTimer(() => {
      watching = undefined;
      const accounts = cancellers.accounts();
      if (accounts.length === 0 || disposed()) return;
      void Promise.all(accounts.map((a) => observe(a).catch(() => undefined))).finally(watch);
    }, WATCH_MS);
  }

  /** Ends, in the background, the sessions logouts left to end (I8): at load, when the page comes back. */
  function finishPending(accounts: readonly string[]): void {
    for (const a of accounts) void run(a, () => finishEnding(ctx, a)).catch(() => undefined);
  }

  /** Reads the account's stored state: the picture follows, stale operations are cancelled. */
  async function observe(accountId: string): Promise<Snapshot> {
    const snap = await readSnapshot(meta, accountId);
    view.apply(snap.state, { absent: snap.state.generation === 0, local: ctx.loggingOut.has(accountId) });
    cancellers.check(accountId, snap.logoutNonce);
    // A logout another tab asked for: should that tab be gone before finishing it, this one does.
    if (snap.logoutPending && snap.state.sessions.length > 0 && !ctx.loggingOut.has(accountId) && !finishing.has(accountId) && !disposed()) {
      finishing.add(accountId);
      void run(accountId, async () => undefined)
        .catch(() => undefined)
        .finally(() => finishing.delete(accountId));
    }
    return snap;
  }

  async function syncAll(): Promise<void> {
    const { states, ending } = await readAll(meta);
    const accounts = new Set([...states.map((s) => s.accountId), ...view.accounts().map((s) => s.accountId)]);
    for (const accountId of accounts) await observe(accountId);
    finishPending(ending);
  }

  return {
    observe,
    syncAll,
    finishPending,
    watch,
    stop() {
      if (watching !== undefined) host.clearTimer(watching);
      watching = undefined;
    },
  };
}
