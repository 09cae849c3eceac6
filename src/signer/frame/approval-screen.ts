/**
 * The approval screen (THREAT-MODEL.md P1): the description's title and lines, "Decline" and the
 * guarded "Approve" (approve-button.ts), Escape to decline. Drawn by the signing policy
 * (approval.ts) on the frame's own screen, and by the approval window (approval-popup.ts); loaded
 * with the first prompt (prompts.ts), not in the page's startup script.
 */
import type { ApprovalDescription, RenderApproval } from './approval.js';
import type { Strings } from '../words/strings.js';
import { guardButton } from './approve-button.js';
import { el, mount, wordsChanged } from './views.js';

/**
 * The least height (CSS px) of the approval screen's words above "Approve": the words scroll in
 * their box when the frame is shorter than the screen, but the box is never shorter than this (or
 * than the words): in a frame too short for it, "Approve" goes below the fold and stays disarmed.
 */
const WORDS_MIN_PX = 120;

/** The approval screen with its buttons and hints in `strings` (the host's table). */
export const approvalRenderer = (strings: Strings): RenderApproval => (description: ApprovalDescription, onApprove, onDecline) => {
  const list = el('dl', { className: 'lines' });
  for (const [label, value] of description.lines) list.append(el('dt', { text: label }), el('dd', { text: value }));
  const approve = el('button', { text: strings.approve, className: 'primary', testId: 'signer-approve' });
  const decline = el('button', { text: strings.decline, testId: 'signer-decline' });
  approve.type = 'button';
  decline.type = 'button';
  // Under the buttons: its words change as the user presses, and must not move "Approve" (a moved button disarms).
  const hint = el('p', { className: 'hint', testId: 'signer-approve-hint' });
  hint.setAttribute('aria-live', 'polite');
  // The words in a box of their own that scrolls when the frame is shorter than the screen, so that
  // the buttons under it stay in view at any height (signer.css, `.approval`; issue 32: a payment's
  // words were taller than the frame, and "Approve" stayed below its fold, never armed).
  const words = el('div', { className: 'words', testId: 'signer-approval-words' }, list);
  // Reachable by keyboard, to scroll it (it comes before the buttons in Tab's order).
  words.tabIndex = 0;
  words.setAttribute('role', 'group');
  words.setAttribute('aria-label', description.title);
  const screen = el('section', { className: 'screen approval', testId: 'signer-approval' }, el('h1', { text: description.title }), words, el('div', { className: 'buttons' }, decline, approve), hint);
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', description.title);
  screen.tabIndex = -1;
  const remove = mount(screen);
  // The words' box never shorter than WORDS_MIN_PX or the words (a custom property: CSSOM, which
  // the page's CSP allows, unlike a style attribute).
  words.style.setProperty('--words-min', `${Math.min(WORDS_MIN_PX, words.scrollHeight)}px`);
  // Focus on the dialog: never on "Approve" (a keyboard approval needs the user's own Tab: approve-guard.ts).
  screen.focus();
  // "Approve" counts only while the whole screen — title, the words' box, the buttons — is fully visible too.
  const stopGuard = guardButton(approve, hint, onApprove, strings, { alsoSeen: [screen] });
  // Words whose size changes once shown (a font arriving late, a test's stand-ins) ask for the
  // frame's height again. The approval's words only: they are no secret (the phrase screen's never
  // ask: neededHeight). An unchanged height changes nothing in the parent (no resize, no disarm).
  let lastSize: number | undefined;
  const sized = new ResizeObserver(() => {
    const size = list.getBoundingClientRect().height;
    if (lastSize !== undefined && size !== lastSize) wordsChanged();
    lastSize = size;
  });
  sized.observe(list);
  decline.addEventListener('click', onDecline);
  // Escape declines (a trusted key press in the frame, as a click on "Decline" would).
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') onDecline(event);
  };
  document.addEventListener('keydown', onKey);
  return () => {
    sized.disconnect();
    stopGuard();
    document.removeEventListener('keydown', onKey);
    remove();
  };
};
