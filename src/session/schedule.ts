/**
 * When to look at an account again: one timer per account, set for the next of its sessions'
 * expiries and its current session's refresh point (a third of the lifetime left by default), on the
 * server's clock. At that point the manager is told (`expire`, `refreshDue`); what happens is decided
 * inside the account's critical section. Background tabs' timers are throttled: the manager also
 * re-plans when the page comes back and whenever the server clock estimate moves.
 */
import type { SessionHost } from './host.js';
import { expiresAtMs, lifetimeMs } from './records.js';
import type { Session } from './types.js';
import { currentOf, type View } from './view.js';

const MAX_TIMER_MS = 60 * 60 * 1000;

export interface Schedule {
  /** Looks at the account now: acts on what is due, sets the timer for what comes next. */
  plan(accountId: string): void;
  planAll(): void;
  /** No automatic refresh of this session before `serverMs` (a failed refresh backs off). */
  holdRefresh(sessionId: string, serverMs: number): void;
  /** Server time at which the session enters its refresh window. */
  refreshAt(session: Session): number;
  dispose(): void;
}

export interface ScheduleOptions {
  host: SessionHost;
  view: View;
  serverNow: () => number;
  fraction: number;
  autoRefresh: boolean;
  /** Some session of the account passed its expiry. */
  expire(accountId: string): void;
  /** The current session is in its refresh window (called once per look; the manager de-duplicates). */
  refreshDue(session: Session): void;
  /** The current session entered its refresh window (once per session). */
  expiring(session: Session): void;
}

export function createSchedule(options: ScheduleOptions): Schedule {
  const { host, view, serverNow, fraction } = options;
  const timers = new Map<string, unknown>();
  const warned = new Set<string>();
  const holds = new Map<string, number>();
  let disposed = false;

  const refreshAt = (s: Session): number => expiresAtMs(s) - lifetimeMs(s) * fraction;

  function clear(accountId: string): void {
    const t = timers.get(accountId);
    if (t !== undefined) host.clearTimer(t);
    timers.delete(accountId);
  }

  function plan(accountId: string): void {
    clear(accountId);
    if (disposed) return;
    const state = view.get(accountId);
    const now = serverNow();
    if (state.sessions.some((s) => now >= expiresAtMs(s))) {
      options.expire(accountId);
      return;
    }
    const points = state.sessions.map(expiresAtMs);
    const cur = currentOf(state);
    if (cur) {
      const at = refreshAt(cur);
      if (now < at) points.push(at);
      else {
        if (!warned.has(cur.id)) {
          warned.add(cur.id);
          options.expiring(cur);
        }
        const hold = holds.get(cur.id);
        if (hold !== undefined && hold > now) points.push(hold);
        else if (options.autoRefresh) options.refreshDue(cur);
      }
    }
    if (points.length === 0) return;
    const delay = Math.max(0, Math.min(Math.min(...points) - now, MAX_TIMER_MS));
    timers.set(accountId, host.setTimer(() => {
      timers.delete(accountId);
      plan(accountId);
    }, delay));
  }

  return {
    plan,
    planAll() {
      for (const state of view.accounts()) plan(state.accountId);
    },
    holdRefresh(sessionId, serverMs) {
      holds.set(sessionId, serverMs);
    },
    refreshAt,
    dispose() {
      disposed = true;
      for (const accountId of [...timers.keys()]) clear(accountId);
    },
  };
}
