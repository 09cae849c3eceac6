/**
 * When a press on a guarded button counts: the approval screen's "Approve" (issue 33, "a button no
 * overlay can steal"; THREAT-MODEL.md P1) and the phrase screen's "Reveal" and "Copy" (P2). The
 * page's script (approve-button.ts, `guardButton`) feeds this state machine what the browser
 * reports; the machine alone decides, from its clock, so that its rule is tested with generated
 * event sequences against an oracle (test/signer/approve-guard.test.ts).
 *
 * The rule: a press counts only if it is trusted and the button is **armed** — the button has been
 * fully visible, without interruption, for {@link ARM_MS} (visible as the browser reports it: where
 * it tracks visibility, IntersectionObserver v2's `isVisible`, which is false under any overlay, any
 * opacity below 1, a transform or a filter; elsewhere only "entirely inside the viewport"); a change
 * of the frame's size or of its position, the page hidden, or the button no longer fully visible
 * disarms it, and it arms again only after another {@link ARM_MS}.
 * - A mouse or pen click also needs the pointer to have rested on the button for {@link REST_MS}
 *   before it was pressed, and not to have left it since (a frame moved under a resting pointer just
 *   before a click gets a press with no rest: it does not count, and the next one does). A change of
 *   the frame's size or position restarts that rest too.
 * - A touch counts only as a **held press**: the finger put on the armed button and kept there,
 *   with nothing disarming it, for {@link HOLD_MS}; lifting it then approves (`released`), lifting it
 *   sooner does nothing, and a touch's click never approves. Why a hold and not the approval window:
 *   a touch has no hover, so there is no "rest" before the press to check, and a tap is a moment the
 *   attacker can predict and put the button under (a frame moved just before it); a hold makes the
 *   button stay where it is, armed and fully visible, under the finger for 0.7 s while it shows its
 *   progress, which a move or an overlay during the hold cancels. The window would also do, at the
 *   cost of a new tab on a phone for every touch approval; the frame keeps it for what the host marks
 *   high-value and for engines without visibility tracking (approval-route.ts).
 * - A click from the keyboard (Enter or Space on the focused button) needs the focus to have been
 *   brought to the button by the user (a trusted Tab in the frame: never a focus the frame, the
 *   parent or a script gave it) and held there for {@link REST_MS} with no other key pressed since
 *   (so an Enter or a Space meant for something else — a code being typed, a page being scrolled —
 *   approves nothing).
 */

/** How long the button must have been fully visible, unchanged, before a click counts. */
export const ARM_MS = 700;
/** How long the pointer (or the focus, for a key) must have rested on the button before it counts. */
export const REST_MS = 300;
/** How long a touch must hold the armed button before lifting it counts: the guard's own duration. */
export const HOLD_MS = ARM_MS;

export type PointerKind = 'mouse' | 'pen' | 'touch';

export interface ApproveGuard {
  /** What the browser reports: the button is entirely visible (true) or not (false). */
  seen(fully: boolean): void;
  /** The frame's size changed, or the page was hidden: visible again only after a new {@link ARM_MS}. */
  disturbed(): void;
  /** The frame's position changed (approve-button.ts says how it can tell): as {@link ApproveGuard.disturbed}. */
  moved(): void;
  pointerEntered(): void;
  pointerLeft(): void;
  /** A trusted press on the button (pointerdown); a touch starts a hold. */
  pressed(kind: PointerKind): void;
  /** A trusted touch lifted (pointerup): whether it ends a hold of {@link HOLD_MS} that approves. */
  released(): boolean;
  /** The button got the focus: `byUser` when a trusted Tab in the frame brought it there. */
  focused(byUser: boolean): void;
  blurred(): void;
  /** A trusted key other than Tab, Shift, Enter or Space was pressed in the frame. */
  keyed(): void;
  /** Whether this click approves: `keyboard` when the browser made it from a key (`detail` 0). */
  click(trusted: boolean, keyboard: boolean): boolean;
  /** When the button arms (or armed) as things stand, or undefined while it is not fully visible. */
  armsAt(): number | undefined;
  /** When the resting pointer counts, or undefined while it is not on the button. */
  restsAt(): number | undefined;
  /** When the touch being held counts, or undefined while no hold that may approve is under way. */
  heldAt(): number | undefined;
}

export function createApproveGuard(now: () => number): ApproveGuard {
  /** Since when the button has been fully visible without interruption (undefined: it is not). */
  let visibleSince: number | undefined;
  let fully = false;
  let pointerSince: number | undefined;
  let focusSince: number | undefined;
  /** Whether the last press was one that may approve (decided when it happened). */
  let pressOk = false;
  /** Since when a touch has held the armed button (undefined: no hold that may approve). */
  let holdSince: number | undefined;

  const armed = (t: number) => visibleSince !== undefined && t - visibleSince >= ARM_MS;
  /** The frame resized or moved: disarmed, and the pointer's rest and any hold start over. */
  function disturb() {
    visibleSince = fully ? now() : undefined;
    pressOk = false;
    holdSince = undefined;
    pointerSince = undefined;
  }

  return {
    seen(isFully) {
      if (isFully && !fully) visibleSince = now();
      if (!isFully) {
        visibleSince = undefined;
        pressOk = false;
        holdSince = undefined;
      }
      fully = isFully;
    },
    disturbed: disturb,
    moved: disturb,
    pointerEntered() {
      pointerSince ??= now();
    },
    pointerLeft() {
      pointerSince = undefined;
      pressOk = false;
      holdSince = undefined;
    },
    pressed(kind) {
      const t = now();
      // A touch's click never approves: only its hold does (released).
      pressOk = kind !== 'touch' && armed(t) && pointerSince !== undefined && t - pointerSince >= REST_MS;
      holdSince = kind === 'touch' && armed(t) ? t : undefined;
      // The pointer is on the button now, whatever the browser reported before.
      pointerSince ??= t;
    },
    released() {
      const since = holdSince;
      holdSince = undefined;
      return since !== undefined && now() - since >= HOLD_MS;
    },
    focused(byUser) {
      focusSince = byUser ? now() : undefined;
    },
    blurred() {
      focusSince = undefined;
    },
    keyed() {
      focusSince = undefined;
    },
    click(trusted, keyboard) {
      const t = now();
      const press = pressOk;
      pressOk = false;
      if (!trusted || !armed(t)) return false;
      if (keyboard) return focusSince !== undefined && t - focusSince >= REST_MS;
      return press;
    },
    armsAt() {
      return visibleSince === undefined ? undefined : visibleSince + ARM_MS;
    },
    restsAt() {
      return pointerSince === undefined ? undefined : pointerSince + REST_MS;
    },
    heldAt() {
      return holdSince === undefined ? undefined : holdSince + HOLD_MS;
    },
  };
}
