/**
 * Journey 15, in every engine and both modes: the export shows a valid BIP-39 phrase that reached
 * the wallet encrypted to a one-time key. In-origin the demo's page shows it and hides it again
 * after 30 s by its own clock: the test moves that clock (the page's `Date.now`, which the countdown
 * reads) forward, in any engine, once the phrase is shown. In frame mode the phrase is approved and
 * shown in the signer frame only (THREAT-MODEL P2), closed by the user; the app's page is told only
 * that it was shown (the timeout is the app page's own: there is none in the frame).
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Tab } from '../drivers/driver.js';
import { phraseWordsInFrame } from '../frame/in-page.js';
import { pressOn, shown, signerIn, textIn } from '../frame/portable/signer-steps.js';
import { approvePrompt, expect, isVisible, newLoggedInCustomer, test, textOf, visible } from './fixtures.js';
import { inFrameMode } from './modes.js';
import { recordWalletRequests, walletRequests } from './wallet-requests.js';

const EXPORT_PATH = '/api/internal-accounts/[^/]+/export$';

/** A valid 12- or 24-word BIP-39 phrase. */
function expectPhrase(words: readonly string[]): void {
  expect([12, 24]).toContain(words.length);
  for (const word of words) expect(wordlist).toContain(word);
  expect(validateMnemonic(words.join(' '), wordlist)).toBe(true);
}

/** The export's one answer: the phrase in it never in clear, asked for with a one-time uncompressed key. */
async function expectSealedAnswer(tab: Tab, words: readonly string[]): Promise<void> {
  await expect.poll(async () => (await walletRequests(tab, 'POST', EXPORT_PATH)).filter((r) => r.status === 200)).toHaveLength(1);
  const [answer] = await walletRequests(tab, 'POST', EXPORT_PATH);
  expect(answer!.answer).not.toContain(words.join(' '));
  expect(answer!.fields.clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);
}

/** In the page: its wall clock (`Date.now`, which the countdown reads) runs `ms` ahead from now on. */
function clockAhead(ms: number): void {
  const real = Date.now.bind(Date);
  Date.now = () => real() + ms;
}

test('15 · export shows a valid BIP-39 mnemonic, hidden again after a timeout', async ({ openDevice }) => {
  test.slow(); // a login and an approved export: Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  await tab.click('nav-actions');
  await recordWalletRequests(tab, { headers: [], fields: ['clientPublicKey'] });
  await tab.click('export-reveal');

  if (inFrameMode(tab)) {
    const frame = signerIn(tab);
    await expect.poll(() => textIn(frame, 'signer-approval')).toContain('Reveal your recovery phrase');
    await approvePrompt(tab);
    await shown(frame, 'signer-phrase');
    expect(await textIn(frame, 'signer-phrase')).toContain('Your recovery phrase');
    // Reveal is a guarded button (armed once visible long enough, a resting pointer): pressed as a person does.
    await pressOn(frame, 'signer-phrase-reveal');
    await expect.poll(() => frame.evaluate(phraseWordsInFrame).then((w) => w.length)).toBeGreaterThan(0);
    const words = (await frame.evaluate(phraseWordsInFrame)).map((w) => w.trim());
    expectPhrase(words);
    await expectSealedAnswer(tab, words);

    await frame.click('signer-phrase-close');
    await expect.poll(() => textOf(tab, 'export-status')).toContain('shown in the wallet window');
    expect(await isVisible(tab, 'mnemonic')).toBe(false);
    expect(await tab.evaluate(() => document.documentElement.outerHTML)).not.toContain(words.slice(0, 3).join(' '));
    await visible(tab, 'export-reveal');
    return;
  }

  // Shown, or what the section says instead (an error shows here, not as a time-out).
  await expect.poll(async () => ((await isVisible(tab, 'mnemonic')) ? 'shown' : await textOf(tab, 'export-status'))).toBe('shown');
  const words = await tab.evaluate(() => [...document.querySelectorAll('[data-testid="mnemonic"] li')].map((li) => (li.textContent ?? '').trim()));
  expectPhrase(words);
  expect(await textOf(tab, 'mnemonic-countdown')).toMatch(/^Hides in (30|29) s\.$/);
  // The phrase reached the page encrypted to its one-time key, never in clear.
  await expectSealedAnswer(tab, words);

  await tab.evaluate(clockAhead, 31_000);
  await expect.poll(() => isVisible(tab, 'mnemonic')).toBe(false);
  expect(await tab.evaluate(() => document.querySelectorAll('[data-testid="mnemonic"] li').length)).toBe(0);
  await visible(tab, 'export-reveal');
});
