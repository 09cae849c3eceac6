/**
 * The approval screen (THREAT-MODEL.md P1): the description's title and lines, "Decline" and the
 * guarded "Approve" (approve-button.ts), Escape to decline. Drawn by the signing policy
 * (approval.ts) on the frame's own screen, and by the approval window (approval-popup.ts); loaded
 * with the first prompt (prompts.ts), not in the page's startup script.
 */
import type { ApprovalDescription, RenderApproval } from './approval.js';
import type { Strings } from '../words/strings.js';
import { guardButton } from './approve-button.js';
import { el, mount } from './views.js';

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
  const screen = el('section', { className: 'screen', testId: 'signer-approval' }, el('h1', { text: description.title }), list, el('div', { className: 'buttons' }, decline, approve), hint);
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', description.title);
  screen.tabIndex = -1;
  const remove = mount(screen);
  // Focus on the dialog: never on "Approve" (a keyboard approval needs the user's own Tab: approve-guard.ts).
  screen.focus();
  const stopGuard = guardButton(approve, hint, onApprove, strings);
  decline.addEventListener('click', onDecline);
  // Escape declines (a trusted key press in the frame, as a click on "Decline" would).
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') onDecline(event);
  };
  document.addEventListener('keydown', onKey);
  return () => {
    stopGuard();
    document.removeEventListener('keydown', onKey);
    remove();
  };
};
