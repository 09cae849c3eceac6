// The approve button's guard (src/signer/frame/approve-guard.ts, THREAT-MODEL.md P1): fast-check
// draws timed sequences of what the browser reports (visibility, size changes, moves of the frame,
// the pointer, presses, touches lifted, focus) and clicks; an oracle written over the whole timeline
// (not the guard's running state) says which clicks and which lifted touches approve:
// - armed at t: the button was fully visible at every instant of [t − ARM_MS, t] and neither a
//   resize nor a move disturbed it in (t − ARM_MS, t];
// - a pointer click: trusted, armed, after a press (the last since the previous click) made while
//   armed by a mouse or a pen on the button since at least REST_MS before the press (since: its
//   first enter, or the press, after the last leave, resize or move); neither the pointer leaving, a
//   resize, a move nor a loss of visibility between the press and the click. A touch's click: never;
// - a lifted touch: the last press before it (none lifted since) was a touch made while armed, at
//   least HOLD_MS before, with no leave, resize, move or loss of visibility since;
// - a key's click: trusted, armed, the focus brought to the button by the user (the last focus, by a
//   Tab) for REST_MS, with no blur and no other key since.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ARM_MS, createApproveGuard, HOLD_MS, REST_MS, type PointerKind } from '../../src/signer/frame/approve-guard.js';

type Ev =
  | { kind: 'seen'; fully: boolean }
  | { kind: 'disturbed' }
  | { kind: 'move' }
  | { kind: 'enter' }
  | { kind: 'leave' }
  | { kind: 'press'; pointer: PointerKind }
  | { kind: 'release' }
  | { kind: 'focus'; byUser: boolean }
  | { kind: 'blur' }
  | { kind: 'key' }
  | { kind: 'click'; trusted: boolean; keyboard: boolean };

interface Timed {
  readonly t: number;
  readonly ev: Ev;
}

const event: fc.Arbitrary<Ev> = fc.oneof(
  { arbitrary: fc.boolean().map((fully) => ({ kind: 'seen' as const, fully })), weight: 3 },
  { arbitrary: fc.constant({ kind: 'disturbed' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'move' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'enter' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'leave' as const }), weight: 1 },
  { arbitrary: fc.constantFrom<PointerKind>('mouse', 'pen', 'touch').map((pointer) => ({ kind: 'press' as const, pointer })), weight: 3 },
  { arbitrary: fc.constant({ kind: 'release' as const }), weight: 2 },
  { arbitrary: fc.boolean().map((byUser) => ({ kind: 'focus' as const, byUser })), weight: 2 },
  { arbitrary: fc.constant({ kind: 'key' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'blur' as const }), weight: 1 },
  { arbitrary: fc.record({ trusted: fc.boolean(), keyboard: fc.boolean() }).map((c) => ({ kind: 'click' as const, ...c })), weight: 4 },
);

/** Steps apart by 0 ms, just under or over the thresholds, or anything up to 1.5 s. */
const gap = fc.oneof(fc.constant(0), fc.constantFrom(REST_MS - 1, REST_MS, ARM_MS - 1, ARM_MS, ARM_MS - REST_MS, HOLD_MS - 1, HOLD_MS), fc.integer({ min: 0, max: 1500 }));

/** What disturbs the frame: a resize or a move. */
const disturbs = (ev: Ev) => ev.kind === 'disturbed' || ev.kind === 'move';
/** What ends a press's chance: the pointer leaving, a resize, a move, a loss of visibility. */
const breaks = (ev: Ev) => ev.kind === 'leave' || disturbs(ev) || (ev.kind === 'seen' && !ev.fully);

const timeline: fc.Arbitrary<Timed[]> = fc.array(fc.tuple(gap, event), { minLength: 1, maxLength: 40 }).map((steps) => {
  let t = 0;
  return steps.map(([dt, ev]) => ({ t: (t += dt), ev }));
});

/** Whether the button is fully visible just after every event at or before time `s`. */
function fullyAt(events: readonly Timed[], s: number): boolean {
  let fully = false;
  for (const { t, ev } of events) if (t <= s && ev.kind === 'seen') fully = ev.fully;
  return fully;
}

/** The oracle's "armed" at index `i` (time t): fully visible at every change point of [t − ARM_MS, t], no disturbance in (t − ARM_MS, t]. */
function armedAt(events: readonly Timed[], i: number): boolean {
  const t = (events[i] as Timed).t;
  const before = events.slice(0, i + 1);
  const from = t - ARM_MS;
  if (from < 0) return false;
  if (!fullyAt(before, from)) return false;
  return before.every(({ t: s, ev }) => s <= from || s > t || ((ev.kind !== 'seen' || ev.fully) && !disturbs(ev)));
}

function expected(events: readonly Timed[], i: number): boolean {
  const { t, ev } = events[i] as Timed;
  const earlier = events.slice(0, i);
  const kinds = earlier.map((e) => e.ev.kind);
  if (ev.kind === 'release') {
    const p = kinds.lastIndexOf('press');
    if (p === -1 || p < kinds.lastIndexOf('release')) return false;
    const press = earlier[p] as Timed & { ev: { kind: 'press'; pointer: PointerKind } };
    if (press.ev.pointer !== 'touch' || !armedAt(events, p)) return false;
    if (earlier.slice(p + 1).some((e) => breaks(e.ev))) return false;
    return t - press.t >= HOLD_MS;
  }
  if (ev.kind !== 'click' || !ev.trusted || !armedAt(events, i)) return false;
  if (ev.keyboard) {
    const f = kinds.lastIndexOf('focus');
    if (f === -1) return false;
    const focus = earlier[f] as Timed & { ev: { kind: 'focus'; byUser: boolean } };
    if (!focus.ev.byUser) return false;
    if (earlier.slice(f + 1).some((e) => e.ev.kind === 'blur' || e.ev.kind === 'key')) return false;
    return t - focus.t >= REST_MS;
  }
  const p = kinds.lastIndexOf('press');
  if (p === -1 || p < kinds.lastIndexOf('click')) return false;
  const press = earlier[p] as Timed & { ev: { kind: 'press'; pointer: PointerKind } };
  if (press.ev.pointer === 'touch') return false;
  if (earlier.slice(p + 1).some((e) => breaks(e.ev))) return false;
  if (!armedAt(events, p)) return false;
  // The pointer on the button since: the first enter (or press) after the last leave, resize or move before the press.
  const lastBreak = earlier.slice(0, p).map((e) => e.ev.kind === 'leave' || disturbs(e.ev)).lastIndexOf(true);
  const on = earlier.slice(lastBreak + 1, p).find((e) => e.ev.kind === 'enter' || e.ev.kind === 'press');
  return on !== undefined && press.t - on.t >= REST_MS;
}

function run(events: readonly Timed[]): boolean[] {
  let now = 0;
  const guard = createApproveGuard(() => now);
  return events.map(({ t, ev }) => {
    now = t;
    switch (ev.kind) {
      case 'seen':
        guard.seen(ev.fully);
        return false;
      case 'disturbed':
        guard.disturbed();
        return false;
      case 'move':
        guard.moved();
        return false;
      case 'enter':
        guard.pointerEntered();
        return false;
      case 'leave':
        guard.pointerLeft();
        return false;
      case 'press':
        guard.pressed(ev.pointer);
        return false;
      case 'release':
        return guard.released();
      case 'focus':
        guard.focused(ev.byUser);
        return false;
      case 'key':
        guard.keyed();
        return false;
      case 'blur':
        guard.blurred();
        return false;
      case 'click':
        return guard.click(ev.trusted, ev.keyboard);
    }
  });
}

describe('the approve button guard', () => {
  it('a click or a lifted touch approves exactly when the oracle over the whole timeline says so', () => {
    fc.assert(
      fc.property(timeline, (events) => {
        expect(run(events)).toEqual(events.map((_, i) => expected(events, i)));
      }),
      { numRuns: 5000 },
    );
  });

  it('says when it arms, when the pointer counts and when a hold counts (what the button shows)', () => {
    let now = 100;
    const guard = createApproveGuard(() => now);
    expect([guard.armsAt(), guard.restsAt(), guard.heldAt()]).toEqual([undefined, undefined, undefined]);
    guard.seen(true);
    guard.pointerEntered();
    expect([guard.armsAt(), guard.restsAt()]).toEqual([100 + ARM_MS, 100 + REST_MS]);
    now = 1000;
    guard.pressed('touch');
    expect(guard.heldAt()).toBe(1000 + HOLD_MS);
    now = 1100;
    guard.moved();
    expect([guard.armsAt(), guard.restsAt(), guard.heldAt()]).toEqual([1100 + ARM_MS, undefined, undefined]);
    guard.seen(false);
    expect(guard.armsAt()).toBeUndefined();
  });

  it('the attacks of issue 33, each alone: none approves', () => {
    const visible = (t: number): Timed => ({ t, ev: { kind: 'seen', fully: true } });
    const click = (t: number): Timed => ({ t, ev: { kind: 'click', trusted: true, keyboard: false } });
    const press = (t: number): Timed => ({ t, ev: { kind: 'press', pointer: 'mouse' } });
    const enter = (t: number): Timed => ({ t, ev: { kind: 'enter' } });
    const touch = (t: number): Timed => ({ t, ev: { kind: 'press', pointer: 'touch' } });
    const lift = (t: number): Timed => ({ t, ev: { kind: 'release' } });
    const move = (t: number): Timed => ({ t, ev: { kind: 'move' } });
    const cases: Record<string, Timed[]> = {
      // The control: shown, visible for ARM_MS, the pointer rested, pressed, clicked.
      'a person (control)': [visible(0), enter(100), press(ARM_MS + 50), click(ARM_MS + 60)],
      'a person with the keyboard (control)': [visible(0), { t: 800, ev: { kind: 'focus', byUser: true } }, { t: 1200, ev: { kind: 'click', trusted: true, keyboard: true } }],
      'a person holding Approve on a touch screen (control)': [visible(0), touch(800), lift(800 + HOLD_MS), click(800 + HOLD_MS)],
      'a touch tap on the armed button': [visible(0), touch(1000), lift(1060), click(1060)],
      'a touch lifted 1 ms before the hold was long enough': [visible(0), touch(1000), lift(1000 + HOLD_MS - 1), click(1000 + HOLD_MS - 1)],
      'a touch held from before the button armed': [visible(0), touch(100), lift(100 + 2 * HOLD_MS), click(100 + 2 * HOLD_MS)],
      'the frame moved just before a touch held long enough': [visible(0), move(1000), touch(1000), lift(1000 + HOLD_MS), click(1000 + HOLD_MS)],
      'the frame moved during a touch held long enough': [visible(0), touch(1000), move(1000 + HOLD_MS / 2), lift(1000 + HOLD_MS), click(1000 + HOLD_MS)],
      'the frame moved under a rested pointer, the click after another rest': [visible(0), enter(100), move(1000), enter(1000), press(1000 + REST_MS), click(1000 + REST_MS)],
      // The rest's bound, both sides (the generated timelines seldom press within REST_MS of an enter
      // while armed: StrykerJS's `t - pointerSince >= REST_MS` → `true` survived them in one run of two).
      'a person pressing once the pointer rested exactly REST_MS (control)': [visible(0), enter(1000), press(1000 + REST_MS), click(1000 + REST_MS)],
      'a person pressing at exactly ARM_MS after the button showed (control)': [visible(0), enter(0), press(ARM_MS), click(ARM_MS)],
      'a person pressing Enter once the focus held exactly REST_MS (control)': [visible(0), { t: 800, ev: { kind: 'focus', byUser: true } }, { t: 800 + REST_MS, ev: { kind: 'click', trusted: true, keyboard: true } }],
      'a press 1 ms before the pointer had rested': [visible(0), enter(1000), press(1000 + REST_MS - 1), click(1000 + REST_MS - 1)],
      'a click 50 ms after the prompt appeared': [visible(0), enter(0), press(50), click(50)],
      'an overlay or opacity 0.01 (never fully visible)': [{ t: 0, ev: { kind: 'seen', fully: false } }, enter(10), press(2000), click(2000)],
      'the frame shrunk to 1×1 just before the click': [visible(0), enter(0), { t: 1000, ev: { kind: 'seen', fully: false } }, press(1010), click(1010)],
      'the frame resized just before the click': [visible(0), enter(0), { t: 1000, ev: { kind: 'disturbed' } }, press(1010), click(1010)],
      'the frame moved under a resting pointer': [visible(0), press(1000), click(1000)],
      'a synthetic click': [visible(0), enter(0), press(1000), { t: 1000, ev: { kind: 'click', trusted: false, keyboard: false } }],
      'focus moved into the frame during a key press': [visible(0), { t: 1000, ev: { kind: 'focus', byUser: true } }, { t: 1010, ev: { kind: 'click', trusted: true, keyboard: true } }],
      'the focus given by a script, held long enough': [visible(0), { t: 800, ev: { kind: 'focus', byUser: false } }, { t: 1500, ev: { kind: 'click', trusted: true, keyboard: true } }],
      'another key pressed after Tab brought the focus': [visible(0), { t: 800, ev: { kind: 'focus', byUser: true } }, { t: 1200, ev: { kind: 'key' } }, { t: 1500, ev: { kind: 'click', trusted: true, keyboard: true } }],
    };
    const outcomes = Object.fromEntries(Object.entries(cases).map(([name, events]) => [name, run(events).some(Boolean)]));
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(cases).map((name) => [name, name.startsWith('a person')])));
  });
});
