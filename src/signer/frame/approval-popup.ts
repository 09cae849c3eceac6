/**
 * The approval popup (issue 33; THREAT-MODEL.md P1): a prompt answered in a top-level window of the
 * signer's own origin, which no page can cover, where the frame cannot tell whether it is covered
 * (no IntersectionObserver v2) and for what the host marks high-value (approval-route.ts).
 *
 * The frame shows the same words with "Open the approval window" and "Decline"; the window opens
 * only from a trusted click there (a blocked window is SIGNER_POPUP_BLOCKED: nothing approved, and
 * the app calls again so that the user opens it by another click in the frame). The window shows
 * the same words and the same guarded "Approve" (approval-screen.ts `approvalRenderer`) and answers for this
 * one prompt, named by a random id the frame made for it; the frame still signs, itself, only after
 * that answer. Closing the window declines. Both ends accept messages only from each other (the
 * window the frame opened; the window's opener) and only from the signer's own origin
 * (`event.source`, `event.origin`, set by the browser); they post only to that origin.
 */
import { WalletError } from '../../errors.js';
import { userApproved, type ApprovalDescription, type PopupApproval, type RenderApproval } from './approval.js';
import { fill, type Strings } from '../words/strings.js';
import { el, mount } from './views.js';
import { openSignerWindow } from './open-window.js';
import { APPROVAL_HASH } from './page-modes.js';


function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The description as it crosses to the window, checked there (strings only). */
function descriptionOf(value: unknown): ApprovalDescription | undefined {
  if (!isObject(value) || typeof value.title !== 'string' || !Array.isArray(value.lines)) return undefined;
  const lines: (readonly [string, string])[] = [];
  for (const l of value.lines as unknown[]) {
    if (!Array.isArray(l) || l.length !== 2 || typeof l[0] !== 'string' || typeof l[1] !== 'string') return undefined;
    lines.push([l[0], l[1]]);
  }
  return { title: value.title, lines };
}

function blocked(): WalletError {
  return new WalletError('SIGNER_POPUP_BLOCKED', 'the browser blocked the approval window of the signer: nothing was signed; allow popups for this site, then try again (the user opens the window by a click in the frame)', {
    details: { retry: 'call again; the user opens the window by a click in the signer frame' },
  });
}

/** The frame's side in `strings` (the host's table): its screen, the window it opens on a trusted click, the answer for this prompt only. */
export const popupApprovalIn = (strings: Strings): PopupApproval => (description, answers, onDecline, deadline) => {
  const id = crypto.randomUUID();
  let popup: Window | null = null;
  let watch: ReturnType<typeof setInterval> | undefined;
  const list = el('dl', { className: 'lines' });
  for (const [label, value] of description.lines) list.append(el('dt', { text: label }), el('dd', { text: value }));
  const status = el('p', { className: 'hint', testId: 'signer-popup-status', text: fill(strings.popupWhere, { host: location.host }) });
  status.setAttribute('aria-live', 'polite');
  const open = el('button', { text: strings.popupOpen, className: 'primary', testId: 'signer-open-popup' });
  const decline = el('button', { text: strings.decline, testId: 'signer-decline' });
  open.type = 'button';
  decline.type = 'button';
  const screen = el('section', { className: 'screen', testId: 'signer-approval' }, el('h1', { text: description.title }), list, status, el('div', { className: 'buttons' }, decline, open));
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', description.title);
  const remove = mount(screen);
  open.focus();

  const onMessage = (event: MessageEvent) => {
    if (popup === null || event.source !== popup || event.origin !== location.origin || !isObject(event.data)) return;
    const data = event.data;
    if (data.type === 'approval-popup-ready') popup.postMessage({ type: 'approval-popup-show', id, description: { title: description.title, lines: description.lines.map((l) => [l[0], l[1]]) }, deadline }, location.origin);
    else if (data.type === 'approval-popup-answer' && data.id === id) {
      if (data.approved === true) answers.approved();
      else answers.declined();
    }
  };
  open.addEventListener('click', (event) => {
    if (!event.isTrusted) return;
    if (popup !== null && !popup.closed) return popup.focus();
    const url = new URL(location.href);
    url.hash = APPROVAL_HASH;
    popup = openSignerWindow(url.href);
    if (popup === null) return answers.failed(blocked());
    open.textContent = strings.popupShow;
    status.textContent = strings.popupWaiting;
    // The window's own close button: nothing posted, so watch it.
    watch = setInterval(() => {
      if (popup?.closed === true) answers.declined();
    }, 250);
  });
  decline.addEventListener('click', onDecline);
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') onDecline(event);
  };
  document.addEventListener('keydown', onKey);
  window.addEventListener('message', onMessage);
  return () => {
    clearInterval(watch);
    window.removeEventListener('message', onMessage);
    document.removeEventListener('keydown', onKey);
    popup?.close();
    remove();
  };
};

/** The signer page as the approval window: shows one prompt for its opener (a frame of the same origin) and answers it, drawn by `render`, its other words in `strings` (the host's table). */
export function runApprovalWindow(render: RenderApproval, strings: Strings): void {
  const opener = window.opener as Window | null;
  if (opener === null) {
    mount(el('section', { className: 'screen' }, el('h1', { text: strings.windowIdleTitle }), el('p', { text: strings.approvalWindowIdle })));
    return;
  }
  const post = (message: Record<string, unknown>) => opener.postMessage(message, location.origin);
  let shownId: string | undefined;
  window.addEventListener('message', (event: MessageEvent) => {
    if (shownId !== undefined || event.source !== opener || event.origin !== location.origin || !isObject(event.data)) return;
    const { type, id, description, deadline } = event.data;
    const words = descriptionOf(description);
    if (type !== 'approval-popup-show' || typeof id !== 'string' || words === undefined || typeof deadline !== 'number') return;
    shownId = id;
    let answered = false;
    const answer = (approved: boolean) => {
      if (answered) return;
      answered = true;
      post({ type: 'approval-popup-answer', id, approved });
    };
    const remove = render(
      words,
      (event) => {
        // The same rule as in the frame: only the user's press (the guard already judged it).
        if (userApproved(event)) answer(true);
      },
      (event) => {
        if (event.isTrusted) answer(false);
      },
    );
    // Past the deadline nothing here can approve (the frame refuses a late answer too, and closes this window).
    setTimeout(() => {
      answered = true;
      remove();
      mount(el('section', { className: 'screen', testId: 'signer-popup-expired' }, el('h1', { text: strings.approvalExpiredTitle }), el('p', { text: strings.approvalExpired })));
    }, Math.max(0, deadline - Date.now()));
  });
  post({ type: 'approval-popup-ready' });
}
