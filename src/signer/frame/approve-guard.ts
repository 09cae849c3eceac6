/**
 * When a click on the approval screen's "Approve" counts (issue 33, "a button no overlay can steal";
 * THREAT-MODEL.md P1). The page's script (views.ts, `guardApproveButton`) feeds this state machine
 * what the browser reports; the machine alone decides, from its clock, so that its rule is tested
 * with generated event sequences against an oracle (test/signer/approve-guard.test.ts).
 *
 * The rule, in one paragraph: a click approves only if it is trusted and the button is **armed** —
 * the button has been fully visible, without interruption, for {@link ARM_MS} (visible as the
 * browser reports it: where it tracks visibility, IntersectionObserver v2's `isVisible`, which is
 * false under any overlay, any opacity below 1, a transform or a filter; elsewhere only "entirely
 * inside the viewport"); a change of the frame's size, the page hidden, or the button no longer fully
 * visible disarms it, and it arms again only after another {@link ARM_MS}. A mouse or pen click also
 * needs the pointer to have rested on the button for {@link REST_MS} before it was pressed, and not
 * to have left it since (a frame moved under a resting pointer just before a click gets a press with
 * no rest: it does not count, and the next one does). A click from the keyboard (Enter or Space on
 * the focused button) needs the focus to have been brought to the button by the user (a trusted Tab
 * in the frame: never a focus the frame, the parent or a script gave it) and held there for
 * {@link REST_MS} with no other key pressed since (so an Enter or a Space meant for something else —
 * a code being typed, a page being scrolled — approves nothing). A touch needs only the armed button.
 */

/** How long the button must have been fully visible, unchanged, before a click counts. */
export const ARM_MS = 700;
/** How long the pointer (or the focus, for a key) must have rested on the button before it counts. */
export const REST_MS = 300;

export type PointerKind = 'mouse' | 'pen' | 'touch';

export interface ApproveGuard {
  /** What the browser reports: the button is entirely visible (true) or not (false). */
  seen(fully: boolean): void;
  /** The frame's size changed, or the page was hidden: visible again only after a new {@link ARM_MS}. */
  disturbed(): void;
  pointerEntered(): void;
  pointerLeft(): void;
  /** A trusted press on the button (pointerdown). */
  pressed(kind: PointerKind): void;
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
}

export function createApproveGuard(now: () => number): ApproveGuard {
  /** Since when the button has been fully visible without interruption (undefined: it is not). */
  let visibleSince: number | undefined;
  let fully = false;
  let pointerSince: number | undefined;
  let focusSince: number | undefined;
  /** Whether the last press was one that may approve (decided when it happened). */
  let pressOk = false;

  const armed = (t: number) => visibleSince !== undefined && t - visibleSince >= ARM_MS;

  return {
    seen(isFully) {
      if (isFully && !fully) visibleSince = now();
      if (!isFully) {
        visibleSince = undefined;
        pressOk = false;
      }
      fully = isFully;
    },
    disturbed() {
      visibleSince = fully ? now() : undefined;
      pressOk = false;
    },
    pointerEntered() {
      pointerSince ??= now();
    },
    pointerLeft() {
      pointerSince = undefined;
      pressOk = false;
    },
    pressed(kind) {
      const t = now();
      const rested = kind === 'touch' || (pointerSince !== undefined && t - pointerSince >= REST_MS);
      pressOk = armed(t) && rested;
      // The pointer is on the button now, whatever the browser reported before.
      pointerSince ??= t;
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
  };
}
