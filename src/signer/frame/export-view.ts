/**
 * The export's phrase screen (THREAT-MODEL.md P2): the recovery phrase, in the frame only. Hidden by
 * default: its words are not in the page's DOM until the user reveals them by a trusted click, and
 * leave it again on Hide and on close. Copy, by a trusted click, writes them to the clipboard.
 * A click made by script (`element.click()`, `dispatchEvent`) reveals and copies nothing.
 */
import { DEFAULT_STRINGS, fill } from '../words/strings.js';
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

export const renderPhrase: RenderPhrase = (phrase, clearAfterMs, onClose) => {
  const s = DEFAULT_STRINGS;
  let words: readonly string[] | undefined = phrase;
  const list = el('ol', { className: 'phrase', testId: 'signer-phrase-words' });
  list.setAttribute('aria-label', s.phraseTitle);
  const hidden = el('p', { text: s.phraseHidden, testId: 'signer-phrase-hidden' });
  const status = el('p', { testId: 'signer-phrase-status' });
  status.setAttribute('role', 'status');
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
  reveal.addEventListener('click', (event) => {
    if (!event.isTrusted || words === undefined) return;
    if (!list.hidden) return hide();
    list.replaceChildren(...words.map((word) => el('li', { text: word })));
    list.hidden = false;
    hidden.hidden = true;
    reveal.textContent = s.phraseHide;
    reveal.setAttribute('aria-pressed', 'true');
  });
  copy.addEventListener('click', (event) => {
    if (!event.isTrusted || words === undefined) return;
    navigator.clipboard.writeText(words.join(' ')).then(
      () => {
        status.textContent = s.phraseCopied;
      },
      () => {
        status.textContent = s.phraseCopyFailed;
      },
    );
  });
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
  );
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', s.phraseTitle);
  screen.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') onClose();
  });
  const remove = mount(screen);
  reveal.focus();
  return {
    close() {
      words = undefined;
      hide();
      status.textContent = '';
      remove();
    },
  };
};
