/**
 * The host's wording and locale (issue 33; src/signer/frame/config.ts `strings`, `locale`,
 * `timeZone`), Chromium: a signer whose configuration is in French (its strings, `fr-FR`,
 * Europe/Paris) shows its code entry and a payment's prompt in those words — title, labels, buttons,
 * the field's label for screen readers — with the amount and the offer's end formatted by `Intl`
 * in French. Nothing in the parent's call chooses them. Declined by its French button: nothing
 * signed. (Every screen in a table that marks every key: portable/12-all-strings.spec.ts.)
 */
import { expect, test } from '@playwright/test';
import { frameWallet, newCustomer, OTP, signer, startLogin, typeCode } from './helpers.js';
import { useFrameStack } from './stack.js';

const FRENCH = {
  executeQuoteTitle: 'Envoyer un paiement',
  youSend: 'Vous envoyez',
  theyReceive: 'Ils reçoivent',
  payFrom: 'Depuis',
  destination: 'Vers',
  quoteExpires: "L'offre prend fin",
  quote: 'Devis',
  approve: 'Approuver',
  decline: 'Refuser',
  otpTitle: 'Saisissez votre code',
  otpSentTo: 'Nous avons envoyé un code à {where}.',
  otpWhereEmail: 'votre adresse e-mail',
  otpCode: 'Code reçu',
  continue: 'Continuer',
  cancel: 'Annuler',
};
const frameStack = useFrameStack({ signerConfig: { strings: FRENCH, locale: 'fr-FR', timeZone: 'Europe/Paris' } });

test("the code entry and a payment's prompt in the host's French strings, amounts and dates in fr-FR; declined by its French button", async ({ page }) => {
  const accountId = await newCustomer(page, frameStack());
  await frameWallet(page);
  await startLogin(page, accountId);
  const entry = signer(page).getByRole('form', { name: 'Saisissez votre code' });
  await expect(entry).toContainText('Nous avons envoyé un code à votre adresse e-mail.');
  await expect(entry.getByRole('textbox', { name: 'Code reçu' })).toBeVisible();
  await expect(entry.getByRole('button', { name: 'Continuer' })).toBeVisible();
  await expect(entry.getByRole('button', { name: 'Annuler' })).toBeVisible();
  await expect(entry).not.toContainText('Enter your code');
  await typeCode(page, OTP);
  expect(await page.evaluate(() => window.t.verifying as Promise<{ ok: boolean }>)).toMatchObject({ ok: true });
  const quote = await page.evaluate(async (accountId) => {
    const me = (await (await fetch('/demo/me')).json()) as { payees: { accountId: string }[] };
    const payee = me.payees[0]?.accountId as string;
    const wallet = window.t.wallet as { createQuote(a: object): Promise<{ id: string; expiresAt: string }> };
    return wallet.createQuote({ sourceAccountId: accountId, destinationAccountId: payee, amount: 1_234_567_890 });
  }, accountId);
  const executes = () => frameStack().signed().filter((s) => s.includes('/execute')).length;
  await page.evaluate((id) => {
    window.t.outcome = (window.t.wallet as { executeQuote(id: string): Promise<unknown> }).executeQuote(id).then(
      () => ({ ok: true }),
      (error: { code?: string }) => ({ ok: false, code: error.code }),
    );
  }, quote.id);

  const prompt = signer(page).getByRole('dialog', { name: 'Envoyer un paiement' });
  await expect(prompt).toBeVisible();
  const value = (label: string) => prompt.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]');
  // fr-FR: a comma before the decimals, a (narrow) no-break space between thousands; USDC (6 decimals, a
  // code Intl has no currency for) after the number. en-US would be "1,234.567890 USDC".
  await expect(value('Vous envoyez')).toHaveText(/^1[\u202f\u00a0]234,567890 USDC$/);
  await expect(value('Depuis')).toHaveText(accountId);
  await expect(value('Devis')).toHaveText(quote.id);
  // The offer's end: a French month and Paris time (UTC+1 on this date), as Intl writes it in fr-FR.
  await expect(value("L'offre prend fin")).toHaveText(/\d{1,2} (janv\.|févr\.|mars|avr\.|mai|juin|juil\.|août|sept\.|oct\.|nov\.|déc\.) \d{4}.*UTC[+−-]\d/);
  await expect(prompt).not.toContainText('You send');
  await expect(prompt.getByRole('button', { name: 'Approuver' })).toBeVisible();
  await expect(prompt.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);

  await prompt.getByRole('button', { name: 'Refuser' }).click();
  expect(await page.evaluate(() => window.t.outcome)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(executes()).toBe(0);
});
