// schedule.ts on its own, with a fake timer host and a real view: for generated sessions, clocks,
// fractions and refresh holds, one look (`plan`) acts exactly as its rule says (expire when some
// session is past its expiry; else `expiring` once per session and `refreshDue` in the refresh
// window unless held or automatic refresh is off) and sets one timer at the next point (the next
// expiry, the refresh point, or the hold), capped at an hour.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSchedule } from '../../src/session/schedule.js';
import { createView } from '../../src/session/view.js';
import { createEmitter } from '../../src/session/emitter.js';
import type { SessionHost } from '../../src/session/host.js';
import type { AccountState } from '../../src/session/state.js';
import type { Session, SessionEvents } from '../../src/session/types.js';

interface Timer { id: number; ms: number; callback: () => void; cleared: boolean }

function fakeHost() {
  const timers: Timer[] = [];
  const host = {
    setTimer(callback: () => void, ms: number) {
      const t: Timer = { id: timers.length + 1, ms, callback, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimer(handle: unknown) {
      (handle as Timer).cleared = true;
    },
  } as unknown as SessionHost;
  return { host, timers, live: () => timers.filter((t) => !t.cleared) };
}

const session = (id: string, createdMs: number, expiresMs: number, account = 'A'): Session => ({
  id, accountId: account, credentialId: `c-${id}`, credentialType: 'EMAIL_OTP', publicKeyHex: `02${'1'.repeat(64)}`,
  createdAt: new Date(createdMs).toISOString(), expiresAt: new Date(expiresMs).toISOString(),
});

function setup(opts: { now: number; fraction?: number; autoRefresh?: boolean }) {
  const h = fakeHost();
  const view = createView(createEmitter<SessionEvents>(), () => undefined);
  const calls: string[] = [];
  const clock = { now: opts.now };
  const schedule = createSchedule({
    host: h.host, view, serverNow: () => clock.now, fraction: opts.fraction ?? 1 / 3, autoRefresh: opts.autoRefresh ?? true,
    expire: (a) => calls.push(`expire ${a}`),
    refreshDue: (s) => calls.push(`refreshDue ${s.id}`),
    expiring: (s) => calls.push(`expiring ${s.id}`),
  });
  const put = (sessions: Session[], current: string | null, account = 'A', generation = 1) =>
    view.apply({ accountId: account, generation, current, sessions, change: 'login' } satisfies AccountState, { silent: true });
  return { ...h, view, calls, clock, schedule, put };
}

const HOUR = 3_600_000;

describe('schedule: one look', () => {
  it('acts and sets the timer exactly as the rule says (generated sessions, clocks, holds)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ created: fc.integer({ min: 0, max: 10 * HOUR }), span: fc.integer({ min: -HOUR, max: 3 * HOUR }) }), { maxLength: 4 }),
        fc.option(fc.nat(3), { nil: undefined }),
        fc.integer({ min: 0, max: 14 * HOUR }),
        fc.constantFrom(0, 0.25, 1 / 3, 0.5, 1),
        fc.boolean(),
        fc.option(fc.integer({ min: -HOUR, max: 3 * HOUR }), { nil: undefined }),
        (specs, curIndex, now, fraction, autoRefresh, holdDelta) => {
          const s = setup({ now, fraction, autoRefresh });
          const sessions = specs.map((x, i) => session(`s${i}`, x.created, x.created + x.span));
          const cur = curIndex !== undefined && curIndex < sessions.length ? sessions[curIndex]! : undefined;
          s.put(sessions, cur?.id ?? null);
          if (cur && holdDelta !== undefined) s.schedule.holdRefresh(cur.id, now + holdDelta);
          s.schedule.plan('A');

          // Oracle.
          const exp = (x: Session) => Date.parse(x.expiresAt);
          const expected: string[] = [];
          let next: number | undefined;
          if (sessions.some((x) => now >= exp(x))) expected.push('expire A');
          else {
            const points = sessions.map(exp);
            if (cur) {
              const life = exp(cur) - Date.parse(cur.createdAt) > 0 ? exp(cur) - Date.parse(cur.createdAt) : 900_000;
              const at = exp(cur) - life * fraction;
              if (now < at) points.push(at);
              else {
                expected.push(`expiring ${cur.id}`);
                if (holdDelta !== undefined && holdDelta > 0) points.push(now + holdDelta);
                else if (autoRefresh) expected.push(`refreshDue ${cur.id}`);
              }
            }
            if (points.length > 0) next = Math.min(Math.min(...points) - now, HOUR);
          }
          expect(s.calls).toEqual(expected);
          expect(s.live().map((t) => t.ms)).toEqual(next === undefined ? [] : [Math.max(0, next)]);
          expect(s.schedule.refreshAt(cur ?? session('x', 0, 3 * HOUR))).toBe(cur ? exp(cur) - (exp(cur) - Date.parse(cur.createdAt) > 0 ? exp(cur) - Date.parse(cur.createdAt) : 900_000) * fraction : 3 * HOUR - 3 * HOUR * fraction);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('expires when any one session (not all) is past its expiry', () => {
    const s = setup({ now: 2 * HOUR });
    s.put([session('old', 0, HOUR), session('new', HOUR, 4 * HOUR)], 'new');
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expire A']);
    expect(s.live()).toEqual([]);
  });

  it('boundaries: a session is expired at its expiry ms; a hold at exactly now no longer holds', () => {
    const s = setup({ now: HOUR });
    s.put([session('s', 0, HOUR)], 's');
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expire A']);
    const t = setup({ now: 50 * 60_000 });
    t.put([session('s', 0, HOUR)], 's');
    t.schedule.holdRefresh('s', 50 * 60_000);
    t.schedule.plan('A');
    expect(t.calls).toEqual(['expiring s', 'refreshDue s']);
    expect(t.live().map((x) => x.ms)).toEqual([10 * 60_000]);
  });

  it('without automatic refresh: `expiring` in the window, never `refreshDue`; the timer is the expiry', () => {
    const s = setup({ now: 50 * 60_000, autoRefresh: false });
    s.put([session('s', 0, HOUR)], 's');
    s.schedule.plan('A');
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expiring s']);
    expect(s.live().map((x) => x.ms)).toEqual([10 * 60_000]);
  });

  it('warns `expiring` once per session, asks `refreshDue` at every look in the window', () => {
    const s = setup({ now: 50 * 60_000 });
    s.put([session('s', 0, HOUR)], 's');
    s.schedule.plan('A');
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expiring s', 'refreshDue s', 'refreshDue s']);
  });

  it('a hold in the future defers the refresh to the hold; one in the past does not', () => {
    const s = setup({ now: 50 * 60_000 });
    s.put([session('s', 0, HOUR)], 's');
    s.schedule.holdRefresh('s', 52 * 60_000);
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expiring s']);
    expect(s.live().map((t) => t.ms)).toEqual([2 * 60_000]);
    s.schedule.holdRefresh('s', 49 * 60_000);
    s.schedule.plan('A');
    expect(s.calls).toEqual(['expiring s', 'refreshDue s']);
    expect(s.live().map((t) => t.ms)).toEqual([10 * 60_000]);
  });
});

describe('schedule: timers', () => {
  it('one timer per account: a new look clears the previous timer; firing re-plans', () => {
    const s = setup({ now: 0 });
    s.put([session('s', 0, HOUR)], 's');
    s.schedule.plan('A');
    expect(s.timers.map((t) => [t.ms, t.cleared])).toEqual([[40 * 60_000, false]]);
    s.schedule.plan('A');
    expect(s.timers.map((t) => [t.ms, t.cleared])).toEqual([[40 * 60_000, true], [40 * 60_000, false]]);
    s.clock.now = 40 * 60_000;
    s.timers[1]!.callback();
    expect(s.calls).toEqual(['expiring s', 'refreshDue s']);
    // The fired timer is not cleared again (it is gone from the table); the new one is set.
    expect(s.timers.map((t) => t.cleared)).toEqual([true, false, false]);
    expect(s.timers[2]!.ms).toBe(20 * 60_000);
  });

  it('caps a timer at an hour; planAll looks at every account; dispose clears all and stops planning', () => {
    const s = setup({ now: 0 });
    s.put([session('a', 0, 10 * HOUR, 'A')], 'a', 'A');
    s.put([session('b', 0, 30 * 60_000, 'B')], 'b', 'B');
    s.schedule.planAll();
    expect(s.live().map((t) => t.ms)).toEqual([HOUR, 20 * 60_000]);
    s.schedule.dispose();
    expect(s.live()).toEqual([]);
    s.schedule.plan('A');
    s.schedule.planAll();
    expect(s.live()).toEqual([]);
    expect(s.calls).toEqual([]);
  });

  it('no sessions, no timer; clearing an account without a timer calls nothing', () => {
    const s = setup({ now: 0 });
    let cleared = 0;
    const clearTimer = s.host.clearTimer.bind(s.host);
    s.host.clearTimer = (h) => {
      cleared++;
      clearTimer(h);
    };
    s.schedule.plan('A');
    expect(s.timers).toEqual([]);
    expect(cleared).toBe(0);
  });
});
