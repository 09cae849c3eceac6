/**
 * The frame's screens, in plain DOM (no framework, no inline script or style attribute: the page
 * runs under a strict Content-Security-Policy). Here: the code entry ({@link renderCodeEntry}) and
 * the branding, in the page's startup script; the approval screen is approval-screen.ts, loaded
 * with the first prompt. Every screen is drawn into the page's `#signer` element.
 */
import { fill, type Strings } from '../words/strings.js';
import { pageLanguage, type SignerConfig } from './config.js';

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

/** An approval screen's words changed size after it was shown (approval-screen.ts). */
export function wordsChanged(): void {
  wordsResized?.();
}

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

/**
 * The page's host configuration applied: its title (the table's `pageTitle` with the host's name)
 * and language ({@link pageLanguage}), name, logo, colours (CSS custom properties). Until this runs
 * the static page holds the default table's title and language (src/signer/page/index.html).
 */
export function applyBranding(config: Pick<SignerConfig, 'name' | 'logoUrl' | 'colors' | 'language' | 'locale'>, strings: Strings): void {
  document.title = fill(strings.pageTitle, { name: config.name });
  document.documentElement.lang = pageLanguage(config);
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
