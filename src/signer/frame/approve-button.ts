/**
 * A button under the guard (approve-guard.ts): the approval screen's "Approve", the phrase screen's
 * "Reveal" and "Copy". What the browser reports goes to the guard, and the button shows the
 * guard's state — disabled until armed, `data-seen` ("fully" or "not") as the browser last reported
 * it, `data-pointer="rested"` once a resting pointer counts, `data-hold` ("holding", then "held")
 * while a touch holds it, drawn as the button filling (signer.css) — so that a person (and a test)
 * sees when a press will count. A trusted press that does not count is not lost in silence: the
 * hint says what to do (the words: src/signer/words/strings.ts, `guard*`).
 *
 * What the frame can see of its own place (THREAT-MODEL.md P1, "a button no overlay can steal"):
 * - its size (`resize`), the page hidden (`visibilitychange`), and, through IntersectionObserver,
 *   whether the button is inside the viewport (v2, Chromium: and not covered, transformed, filtered
 *   or transparent);
 * - **not** its position in the parent's page as such: the observer reports only when the button
 *   crosses a threshold or its `isVisible` changes, never for a move alone, and its entries are in
 *   the frame's own coordinates (`boundingClientRect` does not change when the iframe moves;
 *   `rootBounds` is null in a cross-origin frame). A move is seen through the pointer: every trusted
 *   pointer event carries both screen and frame coordinates, and their difference is where the
 *   frame's viewport is on the screen; when it differs from the last one seen, the frame moved
 *   (or the browser window did) and the guard disarms. A mouse left resting while the frame moves
 *   under it gets a pointer event from the browser at its new place, so the move is seen before the
 *   press; a first touch brings no earlier place to compare with, which is why a touch counts only
 *   after a hold on the armed button (approve-guard.ts), and a move during the hold is seen by any
 *   movement of the finger.
 */
import { createApproveGuard, type PointerKind } from './approve-guard.js';
import { fill, type Strings } from '../words/strings.js';
import { tracksVisibility } from './tracks-visibility.js';

/** IntersectionObserver v2's options and entry field, not yet in TypeScript's DOM library. */
interface VisibilityInit extends IntersectionObserverInit {
  trackVisibility?: boolean;
  delay?: number;
}


/** Keys that do not cancel a keyboard press: moving the focus, and the button's own keys. */
const KEYS_THAT_KEEP_FOCUS = new Set(['Tab', 'Shift', 'Enter', ' ']);

function pointerKind(event: PointerEvent): PointerKind {
  return event.pointerType === 'touch' || event.pointerType === 'pen' ? event.pointerType : 'mouse';
}

export interface GuardOptions {
  /** Whether a trusted click counts now without the guard (the phrase screen's "Hide": it reveals nothing). */
  readonly free?: () => boolean;
  /**
   * Elements that must be fully visible too for the button to count as seen (the approval screen
   * passes itself: its title and words as well as its buttons, none covered, none beyond the fold).
   */
  readonly alsoSeen?: readonly Element[];
}

/**
 * Guards `button` (already in the document): `press` gets the trusted click, or the lifted touch
 * (`pointerup`) that ended a hold, that the guard let through; `hint` is where a press that did
 * not count is answered, in `strings` (the host's table). Returns the function that stops the guard.
 */
export function guardButton(button: HTMLButtonElement, hint: HTMLElement, press: (event: Event) => void, strings: Pick<Strings, 'guardClickAgain' | 'guardKeyboard' | 'guardHold' | 'guardHolding' | 'guardHeld'>, options: GuardOptions = {}): () => void {
  const guard = createApproveGuard(() => performance.now());
  button.classList.add('guarded');
  const v2 = tracksVisibility();
  const s = strings;
  const say = (words: string) => {
    hint.textContent = fill(words, { button: button.textContent ?? '' });
  };
  let fully = false;
  let lastKind: PointerKind = 'mouse';
  /** A hold just pressed the button: the click the browser may send after that touch is not another press. */
  let heldPress = false;
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
    // Never focused from here: a keyboard press needs the focus the user brought (approve-guard.ts).
    button.disabled = !armed;
    const restsAt = guard.restsAt();
    if (restsAt !== undefined && restsAt <= t) button.dataset.pointer = 'rested';
    else delete button.dataset.pointer;
    const heldAt = guard.heldAt();
    if (heldAt === undefined) delete button.dataset.hold;
    else button.dataset.hold = heldAt <= t ? 'held' : 'holding';
    if (heldAt !== undefined) say(heldAt <= t ? s.guardHeld : s.guardHolding);
    if (!armed) later(armsAt);
    if (restsAt !== undefined && restsAt > t) later(restsAt);
    if (heldAt !== undefined && heldAt > t) later(heldAt);
  };
  const visibleNow = () => {
    const seen = fully && document.visibilityState === 'visible';
    guard.seen(seen);
    // What the browser last reported, for people and tests alike ("the frame is not fully visible").
    button.dataset.seen = seen ? 'fully' : 'not';
    show();
  };

  const init: VisibilityInit = v2 ? { threshold: [0, 1], trackVisibility: true, delay: 100 } : { threshold: [0, 1] };
  // Each watched element as the browser last reported it: the button is seen when all are fully visible.
  const watched = new Map<Element, boolean>([button, ...(options.alsoSeen ?? [])].map((element) => [element, false]));
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) watched.set(entry.target, entry.intersectionRatio >= 0.999 && (!v2 || (entry as IntersectionObserverEntry & { isVisible?: boolean }).isVisible === true));
    fully = [...watched.values()].every(Boolean);
    visibleNow();
  }, init);
  for (const element of watched.keys()) observer.observe(element);

  /** Where the frame's viewport was on the screen at the last trusted pointer event (module comment). */
  let place: { x: number; y: number } | undefined;
  const placed = (event: PointerEvent) => {
    const at = { x: event.screenX - event.clientX, y: event.screenY - event.clientY };
    // More than a pixel: the browser rounds some events' coordinates and not others.
    if (place !== undefined && (Math.abs(at.x - place.x) > 1 || Math.abs(at.y - place.y) > 1)) guard.moved();
    place = at;
  };
  const inside = (event: PointerEvent) => {
    const box = button.getBoundingClientRect();
    return event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
  };
  /** The touch holding the button: while it holds, another pointer (a mouse too) coming or going does not break its hold. */
  let holding: number | undefined;
  const other = (event: PointerEvent) => holding !== undefined && event.pointerId !== holding;
  // Pointer events are watched on the document: a disabled button gets none of its own.
  const onMove = (event: PointerEvent) => {
    if (!event.isTrusted) return;
    placed(event);
    if (other(event)) return;
    if (inside(event)) guard.pointerEntered();
    else guard.pointerLeft();
    show();
  };
  const onOut = (event: PointerEvent) => {
    if (event.relatedTarget === null && !other(event)) {
      if (event.type === 'pointercancel') holding = undefined;
      guard.pointerLeft();
      show();
    }
  };
  const onDown = (event: PointerEvent) => {
    if (!event.isTrusted) return;
    placed(event);
    if (!inside(event)) return;
    lastKind = pointerKind(event);
    heldPress = false;
    guard.pressed(lastKind);
    holding = lastKind === 'touch' ? event.pointerId : undefined;
    show();
  };
  const onUp = (event: PointerEvent) => {
    if (!event.isTrusted || pointerKind(event) !== 'touch' || other(event)) return;
    holding = undefined;
    placed(event);
    const held = guard.heldAt() !== undefined;
    const ok = guard.released();
    // Lifted too soon (or the hold was broken): say how a touch approves.
    if (!ok && !button.disabled && inside(event)) say(s.guardHold);
    else if (held) hint.textContent = '';
    show();
    heldPress = ok;
    if (ok) press(event);
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
  const onClick = (event: MouseEvent) => {
    if (heldPress) {
      heldPress = false;
      return;
    }
    if (event.isTrusted && options.free?.() === true) return press(event);
    const keyboard = event.detail === 0;
    const ok = guard.click(event.isTrusted, keyboard);
    // A touch's own click never counts: its hold does (onUp has said so).
    if (!ok && event.isTrusted && !button.disabled && (keyboard || lastKind !== 'touch')) say(keyboard ? s.guardKeyboard : s.guardClickAgain);
    else if (ok) hint.textContent = '';
    show();
    if (ok) press(event);
  };
  // A long touch must not open the browser's menu or select text: the hold is the press.
  const onMenu = (event: Event) => event.preventDefault();
  const onDocument: [string, (event: never) => void][] = [
    ['pointermove', onMove],
    ['pointerover', onMove],
    ['pointerout', onOut],
    ['pointercancel', onOut],
    ['pointerdown', onDown],
    ['pointerup', onUp],
    ['keydown', onKeyDown],
    ['keyup', onKeyUp],
  ];
  for (const [type, listener] of onDocument) document.addEventListener(type, listener as EventListener, true);
  document.addEventListener('visibilitychange', visibleNow);
  window.addEventListener('resize', onResize);
  window.addEventListener('blur', onBlur);
  button.addEventListener('focus', onFocus);
  button.addEventListener('blur', onBlur);
  button.addEventListener('click', onClick);
  button.addEventListener('contextmenu', onMenu);
  show();

  return () => {
    observer.disconnect();
    for (const timer of timers) clearTimeout(timer);
    for (const [type, listener] of onDocument) document.removeEventListener(type, listener as EventListener, true);
    document.removeEventListener('visibilitychange', visibleNow);
    window.removeEventListener('resize', onResize);
    window.removeEventListener('blur', onBlur);
    button.removeEventListener('click', onClick);
  };
}
