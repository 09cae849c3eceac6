/**
 * The export's phrase screen (THREAT-MODEL.md P2): the recovery phrase, in the frame only. Hidden by
 * default: its words are not in the page's DOM until the user reveals them, and leave it again on
 * Hide and on close. Copy writes them to the clipboard. "Reveal" and "Copy" are guarded as
 * "Approve" is (approve-button.ts, approve-guard.ts): a press counts only once the button has been
 * fully visible and unmoved for a while, from a pointer that rested on it, a key after the user's
 * own Tab, or a touch held — so an overlay, a moved or just-shown frame cannot steal a click to
 * reveal or copy the phrase. A click made by script (`element.click()`, `dispatchEvent`) reveals
 * and copies nothing. "Hide" and "Done" reveal nothing: a trusted click is enough.
 */
import { fill, type Strings } from '../words/strings.js';
import { guardButton } from './approve-button.js';
import { el, mount } from './views.js';

export interface PhraseScreen {
  /** Clears the words (DOM and the screen's reference to them) and removes the screen. */
  close(): void;
}

/**
 * Draws the phrase screen for `words`; `onClose` is the user's Done (or Escape). The screen keeps
 * the words until {@link PhraseScreen.close}; the caller decides when that is (Done, time, abort).
 */
export type RenderPhrase = (words: readonly string[], clearAfterMs: number, onClose: () => void) => PhraseScreen;

/** The phrase screen in `strings` (the host's table). */
export const phraseRenderer = (strings: Strings): RenderPhrase => (phrase, clearAfterMs, onClose) => {
  const s = strings;
  let words: readonly string[] | undefined = phrase;
  const list = el('ol', { className: 'phrase', testId: 'signer-phrase-words' });
  list.setAttribute('aria-label', s.phraseTitle);
  const hidden = el('p', { text: s.phraseHidden, testId: 'signer-phrase-hidden' });
  const status = el('p', { className: 'hint', testId: 'signer-phrase-status' });
  status.setAttribute('role', 'status');
  const hint = el('p', { className: 'hint', testId: 'signer-phrase-hint' });
  hint.setAttribute('aria-live', 'polite');
  const reveal = el('button', { text: s.phraseReveal, className: 'primary', testId: 'signer-phrase-reveal' });
  const copy = el('button', { text: s.phraseCopy, testId: 'signer-phrase-copy' });
  const done = el('button', { text: s.phraseClose, testId: 'signer-phrase-close' });
  for (const button of [reveal, copy, done]) button.type = 'button';
  reveal.setAttribute('aria-pressed', 'false');

  const hide = () => {
    list.replaceChildren();
    list.hidden = true;
    hidden.hidden = false;
    reveal.textContent = s.phraseReveal;
    reveal.setAttribute('aria-pressed', 'false');
  };
  hide();
  const revealOrHide = () => {
    if (words === undefined) return;
    if (!list.hidden) return hide();
    list.replaceChildren(...words.map((word) => el('li', { text: word })));
    list.hidden = false;
    hidden.hidden = true;
    reveal.textContent = s.phraseHide;
    reveal.setAttribute('aria-pressed', 'true');
  };
  const copyWords = () => {
    if (words === undefined) return;
    navigator.clipboard.writeText(words.join(' ')).then(
      () => {
        status.textContent = s.phraseCopied;
      },
      () => {
        status.textContent = s.phraseCopyFailed;
      },
    );
  };
  done.addEventListener('click', () => onClose());
  const screen = el(
    'section',
    { className: 'screen', testId: 'signer-phrase' },
    el('h1', { text: s.phraseTitle }),
    el('p', { text: s.phraseWarning, className: 'warning' }),
    hidden,
    list,
    el('p', { text: fill(s.phraseClears, { seconds: String(Math.round(clearAfterMs / 1000)) }) }),
    status,
    el('div', { className: 'buttons' }, copy, reveal, done),
    // Under the buttons: its words must not move them (a moved button disarms).
    hint,
  );
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', s.phraseTitle);
  screen.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') onClose();
  });
  screen.tabIndex = -1;
  const remove = mount(screen);
  // Focus on the dialog, never on a guarded button (a keyboard press needs the user's own Tab).
  screen.focus();
  // Guarded once in the document (the guard observes where they are); "Hide" needs no guard.
  const stopGuards = [guardButton(reveal, hint, revealOrHide, s, { free: () => !list.hidden }), guardButton(copy, hint, copyWords, s)];
  return {
    close() {
      words = undefined;
      for (const stop of stopGuards) stop();
      hide();
      status.textContent = '';
      remove();
    },
  };
};
