/**
 * Driving refreshes: the explicit one (`refresh()`) and the automatic one the schedule asks for.
 * Both run `refreshSession` holding the account's refresh lock (its prompt and request outside the
 * section, its commit inside); the caller gets the new session as soon as it is committed, while the
 * lock is kept to end the session it replaced. The refresh
 * code (changes.ts) is loaded on first use, before the refresh enters the account's queue and lock;
 * a failed download fails that refresh (NETWORK_ERROR; an automatic one is retried with backoff).
 */
import { isWalletError } from '../errors.js';
import type { OpsContext } from './operations.js';
import { expiresAtMs } from './records.js';
import type { Schedule } from './schedule.js';
import type { Snapshot } from './state.js';
import type { KeyPlan, Session } from './types.js';

/** The session changes (changes.ts), as the manager gets them on first use. */
type Changes = typeof import('./changes.js');
type RefreshResult = import('./changes.js').RefreshResult;

const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** Errors after which an automatic refresh is not tried again for this session (no prompt loop). */
const TERMINAL = new Set(['SESSION_REVOKED', 'SESSION_EXPIRED', 'NOT_LOGGED_IN', 'KEY_EVICTED', 'SIGNING_REFUSED']);

export interface Refresher {
  /** Refreshes now; resolves once the new session is committed. */
  refresh(accountId: string, plan: KeyPlan | undefined, automatic: boolean): Promise<Session>;
  /** The schedule found `session` due: one automatic refresh per account at a time, with backoff. */
  auto(session: Session): void;
}

export function createRefresher(deps: {
  ctx: OpsContext;
  run: <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>) => Promise<T>;
  observe: (accountId: string) => Promise<Snapshot>;
  /** Holds the account's refresh lock (critical-section.ts). */
  refreshing: <T>(accountId: string, fn: () => Promise<T>) => Promise<T>;
  /** Runs `use` with changes.ts, loaded on first use (see manager.ts). */
  changes: <R>(use: (m: Changes) => Promise<R>) => Promise<R>;
  schedule: Schedule;
  disposed: () => boolean;
  /** Told when the account's first refresh under way here starts (true) and its last settles (false). */
  busy?: (accountId: string, refreshing: boolean) => void;
}): Refresher {
  const { ctx, run, schedule } = deps;
  const running = new Set<string>();
  const underWay = new Map<string, number>();

  function refresh(accountId: string, plan: KeyPlan | undefined, automatic: boolean): Promise<Session> {
    const count = underWay.get(accountId) ?? 0;
    underWay.set(accountId, count + 1);
    if (count === 0) deps.busy?.(accountId, true);
    const settled = (): void => {
      const left = (underWay.get(accountId) ?? 1) - 1;
      if (left > 0) underWay.set(accountId, left);
      else {
        underWay.delete(accountId);
        deps.busy?.(accountId, false);
      }
    };
    const done = deps.changes<Session>((m) => new Promise((resolve, reject) => {
      deps.refreshing(accountId, async () => {
        let result: RefreshResult;
        try {
          result = await m.refreshSession(ctx, { accountId, plan, automatic, dueAt: schedule.refreshAt, run, observe: deps.observe });
        } catch (error) {
          reject(error);
          return;
        }
        resolve(result.session);
        await result.retire?.().catch(() => undefined);
      }).catch(reject);
    }));
    done.then(settled, settled);
    return done;
  }

  return {
    refresh,
    auto(s) {
      if (running.has(s.accountId) || deps.disposed()) return;
      running.add(s.accountId);
      refresh(s.accountId, undefined, true)
        .catch((error: unknown) => {
          // A refused or hopeless refresh is not tried again automatically; others are retried after
          // a quarter of the time left, between 5 s and 60 s.
          const hopeless = isWalletError(error) && TERMINAL.has(error.code);
          const now = ctx.clock.now();
          const remaining = expiresAtMs(s) - now;
          schedule.holdRefresh(s.id, now + (hopeless ? remaining : Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, remaining / 4))));
        })
        .finally(() => {
          running.delete(s.accountId);
          schedule.plan(s.accountId);
        });
    },
  };
}
