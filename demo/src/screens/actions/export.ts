/**
 * Export the wallet's recovery phrase: a fresh recipient key, a signed export, the envelope's
 * signature checked against the trusted enclave keys, opened here. Shown only on click, hidden
 * (and dropped) after 30 seconds or when the user leaves the screen.
 */
import type { App } from '../../app.js';
import { busy, h, replace } from '../../dom.js';
import { frame, type Section } from './section.js';

const SHOW_MS = 30_000;

export function exportSection(app: App): Section {
  const { el, body, s } = frame(
    'export',
    'Export recovery phrase',
    app.frame ? 'Approved, decrypted and shown in the wallet window (the signer frame), never in this page.' : 'Decrypted in this page with a one-time key; never stored, never logged. It hides itself after 30 seconds.',
  );
  const phrase = h('div', { class: 'mnemonic', testid: 'mnemonic', hidden: true, 'aria-live': 'polite' });
  const left = h('p', { class: 'small muted', testid: 'mnemonic-countdown', hidden: true });
  const reveal = h('button', { type: 'button', class: 'primary', testid: 'export-reveal' }, 'Reveal recovery phrase');
  const hide = h('button', { type: 'button', testid: 'export-hide', hidden: true }, 'Hide now');
  let timer: number | undefined;
  let deadline = 0;

  const conceal = () => {
    window.clearInterval(timer);
    timer = undefined;
    replace(phrase);
    phrase.hidden = true;
    left.hidden = true;
    hide.hidden = true;
    reveal.hidden = false;
  };
  const tick = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) return conceal();
    left.textContent = `Hides in ${Math.ceil(ms / 1000)} s.`;
  };
  hide.addEventListener('click', () => {
    conceal();
    reveal.focus();
  });
  reveal.addEventListener('click', () =>
    void busy(reveal, 'Exporting…', async () => {
      s.clear();
      try {
        if (app.frame) {
          // Frame mode: approved, decrypted and shown in the signer frame only; this page learns that it was shown.
          await app.frame.exportWallet(app.accountId);
          s.note('The recovery phrase was shown in the wallet window (never in this page).');
          return;
        }
        const words = (await app.wallet!.exportWallet(app.accountId)).trim().split(/\s+/);
        replace(phrase, h('ol', {}, ...words.map((w) => h('li', {}, w))));
        phrase.dataset.words = String(words.length);
        phrase.hidden = false;
        left.hidden = false;
        hide.hidden = false;
        reveal.hidden = true;
        deadline = Date.now() + SHOW_MS;
        tick();
        timer = window.setInterval(tick, 250);
        hide.focus();
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );
  body.append(h('div', { class: 'row' }, reveal, hide), phrase, left);
  return { el, dispose: conceal };
}
