/**
 * The approval screen's "Approve" button under its guard (approve-guard.ts): what the browser
 * reports goes to the guard, and the button shows the guard's state — disabled until armed,
 * `data-seen` ("fully" or "not") as the browser last reported it, `data-pointer="rested"` once a
 * resting pointer counts — so that a person (and a test) sees when a
 * click will count. A trusted click that comes too soon on an armed button (the pointer had not
 * rested) is not lost in silence: the screen says "Click again to approve".
 */
import { createApproveGuard, type PointerKind } from './approve-guard.js';

/** IntersectionObserver v2's options and entry field, not yet in TypeScript's DOM library. */
interface VisibilityInit extends IntersectionObserverInit {
  trackVisibility?: boolean;
  delay?: number;
}

/** Whether this browser tracks visibility (occlusion, opacity, transforms): Chromium does today. */
export function tracksVisibility(): boolean {
  return typeof IntersectionObserverEntry !== 'undefined' && 'isVisible' in IntersectionObserverEntry.prototype;
}

/** Keys that do not cancel a keyboard approval: moving the focus, and the button's own keys. */
const KEYS_THAT_KEEP_FOCUS = new Set(['Tab', 'Shift', 'Enter', ' ']);
/** Said when a key's click did not count (the focus was not brought to the button by Tab, or not held). */
const KEYBOARD_HINT = 'To approve with the keyboard, move to Approve with Tab, then press Enter.';

function pointerKind(event: PointerEvent): PointerKind {
  return event.pointerType === 'touch' || event.pointerType === 'pen' ? event.pointerType : 'mouse';
}

/**
 * Guards `button` (already in the document); `hint` is where a too-early
 * click is answered. Returns whether a click approves, and the function that stops the guard.
 */
export function guardApproveButton(button: HTMLButtonElement, hint: HTMLElement): { approves(event: MouseEvent): boolean; stop(): void } {
  const guard = createApproveGuard(() => performance.now());
  const v2 = tracksVisibility();
  let fully = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (at: number | undefined) => {
    if (at === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      show();
    }, Math.max(0, at - performance.now()) + 5);
    timers.add(timer);
  };
  const show = () => {
    const t = performance.now();
    const armsAt = guard.armsAt();
    const armed = armsAt !== undefined && armsAt <= t;
    // Never focused from here: a keyboard approval needs the focus the user brought (approve-guard.ts).
    button.disabled = !armed;
    const restsAt = guard.restsAt();
    if (restsAt !== undefined && restsAt <= t) button.dataset.pointer = 'rested';
    else delete button.dataset.pointer;
    if (!armed) later(armsAt);
    if (restsAt !== undefined && restsAt > t) later(restsAt);
  };
  const visibleNow = () => {
    const seen = fully && document.visibilityState === 'visible';
    guard.seen(seen);
    // What the browser last reported, for people and tests alike ("the frame is not fully visible").
    button.dataset.seen = seen ? 'fully' : 'not';
    show();
  };

  const init: VisibilityInit = v2 ? { threshold: [0, 1], trackVisibility: true, delay: 100 } : { threshold: [0, 1] };
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) fully = entry.intersectionRatio >= 0.999 && (!v2 || (entry as IntersectionObserverEntry & { isVisible?: boolean }).isVisible === true);
    visibleNow();
  }, init);
  observer.observe(button);

  const inside = (event: PointerEvent) => {
    const box = button.getBoundingClientRect();
    return event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
  };
  // Pointer events are watched on the document: a disabled button gets none of its own.
  const onMove = (event: PointerEvent) => {
    if (!event.isTrusted) return;
    if (inside(event)) guard.pointerEntered();
    else guard.pointerLeft();
    show();
  };
  const onOut = (event: PointerEvent) => {
    if (event.relatedTarget === null) {
      guard.pointerLeft();
      show();
    }
  };
  const onDown = (event: PointerEvent) => {
    if (event.isTrusted && inside(event)) guard.pressed(pointerKind(event));
  };
  const onResize = () => {
    guard.disturbed();
    show();
  };
  // Whether a trusted Tab is down: the focus it moves (during its keydown) was brought by the user.
  let tabbing = false;
  const onKeyDown = (event: KeyboardEvent) => {
    if (!event.isTrusted) return;
    if (event.key === 'Tab') tabbing = true;
    else if (!KEYS_THAT_KEEP_FOCUS.has(event.key)) guard.keyed();
  };
  const onKeyUp = () => {
    tabbing = false;
  };
  const onFocus = () => guard.focused(tabbing);
  const onBlur = () => guard.blurred();
  document.addEventListener('pointermove', onMove, true);
  document.addEventListener('pointerover', onMove, true);
  document.addEventListener('pointerout', onOut, true);
  document.addEventListener('pointerdown', onDown, true);
  document.addEventListener('keydown', onKeyDown, true);
  document.addEventListener('keyup', onKeyUp, true);
  document.addEventListener('visibilitychange', visibleNow);
  window.addEventListener('resize', onResize);
  window.addEventListener('blur', onBlur);
  button.addEventListener('focus', onFocus);
  button.addEventListener('blur', onBlur);
  show();

  return {
    approves(event) {
      const keyboard = event.detail === 0;
      const ok = guard.click(event.isTrusted, keyboard);
      hint.textContent = !ok && event.isTrusted && !button.disabled ? (keyboard ? KEYBOARD_HINT : 'Click again to approve.') : '';
      show();
      return ok;
    },
    stop() {
      observer.disconnect();
      for (const timer of timers) clearTimeout(timer);
      document.removeEventListener('pointermove', onMove, true);
      document.removeEventListener('pointerover', onMove, true);
      document.removeEventListener('pointerout', onOut, true);
      document.removeEventListener('pointerdown', onDown, true);
      document.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('keyup', onKeyUp, true);
      document.removeEventListener('visibilitychange', visibleNow);
      window.removeEventListener('resize', onResize);
      window.removeEventListener('blur', onBlur);
    },
  };
}
