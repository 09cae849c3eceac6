/**
 * The frame's screens, in plain DOM (no framework, no inline script or style attribute: the page
 * runs under a strict Content-Security-Policy). The approval screen is {@link renderApproval}, the
 * default {@link RenderApproval} (issue 33 brings the words); the code entry is
 * {@link renderCodeEntry}. Every screen is drawn into the page's `#signer` element.
 */
import type { ApprovalDescription, RenderApproval } from './approval.js';
import { fill, type Strings } from '../words/strings.js';
import { guardButton } from './approve-button.js';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: { text?: string; className?: string; testId?: string } = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.text !== undefined) node.textContent = props.text;
  if (props.className !== undefined) node.className = props.className;
  if (props.testId !== undefined) node.dataset.testid = props.testId;
  node.append(...children);
  return node;
}

function root(): HTMLElement {
  const found = document.getElementById('signer');
  if (found === null) throw new Error('the signer page has no #signer element');
  return found;
}

/** The screens open, the newest shown: a prompt over a code entry hides it until it is answered. */
const open: HTMLElement[] = [];

/** Shows `screen` over any other; returns the function that removes it (the one under it shows again). */
export function mount(screen: HTMLElement): () => void {
  const host = root();
  open.push(screen);
  host.replaceChildren(screen);
  return () => {
    const at = open.indexOf(screen);
    if (at === -1) return;
    open.splice(at, 1);
    const top = open[open.length - 1];
    host.replaceChildren(...(top === undefined ? [] : [top]));
  };
}

/** Whether any screen is open (the frame asks to be shown while one is). */
export function screensOpen(): boolean {
  return open.length > 0;
}

/**
 * The height (CSS px) the page needs to show the newest screen whole, nothing scrolled: what the
 * frame asks the parent for as the screen is shown (main.ts, `ui`; the parent bounds it, protocol.ts
 * `FRAME_HEIGHT`). Measured as the screen is shown, never after: the phrase screen is then still
 * hidden, so the height says nothing of a secret (P2) — only of words the parent asked for.
 * Undefined while no screen is open.
 */
export function neededHeight(): number | undefined {
  const top = open[open.length - 1];
  if (top === undefined) return undefined;
  // What the words' scroll box (.words) hides now counts too: the height that would show it all.
  let hidden = 0;
  for (const box of top.querySelectorAll<HTMLElement>('.words')) hidden += box.scrollHeight - box.clientHeight;
  const padding = Number.parseFloat(getComputedStyle(document.body).paddingBottom) || 0;
  return Math.ceil(top.getBoundingClientRect().bottom + window.scrollY + hidden + padding);
}

/** Told when an approval screen's words change size after it was shown (main.ts: the frame asks for its height again). */
let wordsResized: (() => void) | undefined;
export function onWordsResized(listener: () => void): void {
  wordsResized = listener;
}

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
    if (lastSize !== undefined && size !== lastSize) wordsResized?.();
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

export interface CodeEntry {
  /** Shows a message under the field (e.g. the code was wrong) and lets the user type again. */
  retry(message: string): void;
  /** Removes the screen. */
  close(): void;
}

/**
 * The one-time-code entry in `strings` (the host's table); `where` is the code's destination in
 * words (`otpWhereEmail`, `otpWherePhone`): `submit` gets what the user typed (never sent to the parent),
 * `cancel` the user's "Cancel". Not a `<form>`: a frame embedded with a `sandbox` attribute that
 * leaves out `allow-forms` never fires a form's submit event, and the login would wait forever.
 * "Continue" is a plain button, and Enter in the field does what it does, with or without forms.
 */
export function renderCodeEntry(strings: Strings, where: string, submit: (code: string) => void, cancel: () => void): CodeEntry {
  const input = el('input', { testId: 'signer-otp-input' });
  input.autocomplete = 'one-time-code';
  input.inputMode = 'numeric';
  input.required = true;
  input.setAttribute('aria-label', strings.otpCode);
  const error = el('p', { className: 'error', testId: 'signer-otp-error' });
  error.setAttribute('role', 'alert');
  const ok = el('button', { text: strings.continue, className: 'primary', testId: 'signer-otp-submit' });
  ok.type = 'button';
  const back = el('button', { text: strings.cancel, testId: 'signer-otp-cancel' });
  back.type = 'button';
  const form = el('section', { className: 'screen', testId: 'signer-otp' }, el('h1', { text: strings.otpTitle }), el('p', { text: fill(strings.otpSentTo, { where }) }), input, error, el('div', { className: 'buttons' }, back, ok));
  form.setAttribute('role', 'form');
  form.setAttribute('aria-label', strings.otpTitle);
  let busy = false;
  const send = () => {
    if (busy || input.value.trim() === '') return;
    busy = true;
    ok.disabled = true;
    error.textContent = '';
    submit(input.value);
  };
  ok.addEventListener('click', send);
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    send();
  });
  back.addEventListener('click', () => cancel());
  const remove = mount(form);
  input.focus();
  return {
    retry(message) {
      busy = false;
      ok.disabled = false;
      input.value = '';
      error.textContent = message;
      input.focus();
    },
    close() {
      input.value = '';
      remove();
    },
  };
}

/** The page's host configuration applied: name, logo, colours (CSS custom properties). */
export function applyBranding(config: { name: string; logoUrl?: string; colors?: { accent?: string; background?: string; text?: string } }): void {
  document.title = config.name;
  const header = document.getElementById('signer-brand');
  if (header !== null) {
    const name = el('span', { text: config.name });
    if (config.logoUrl !== undefined) {
      const logo = el('img');
      logo.src = config.logoUrl;
      logo.alt = '';
      header.replaceChildren(logo, name);
    } else header.replaceChildren(name);
  }
  const style = document.documentElement.style;
  if (config.colors?.accent !== undefined) style.setProperty('--accent', config.colors.accent);
  if (config.colors?.background !== undefined) style.setProperty('--background', config.colors.background);
  if (config.colors?.text !== undefined) style.setProperty('--text', config.colors.text);
}
