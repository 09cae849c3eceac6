/**
 * Send money: `wallet.createQuote` (a plain `POST /quotes` from the wallet), then
 * `wallet.executeQuote` stamps the quote's payloadToSign and executes it with an Idempotency-Key
 * (one stamped call, no 202 leg).
 */
import type { App } from '../../app.js';
import { busy, field, h } from '../../dom.js';
import { formatMoney, shortId, toUnits } from '../../format.js';
import { walletMoney } from './fund.js';
import { frame, type Section } from './section.js';

export function transferSection(app: App): Section {
  const { el, body, s } = frame('transfer', 'Send money', 'A quote from the wallet, then its payload signed here and executed (one stamped call, no 202 leg).');
  const wallet = app.wallet!;
  const payees = app.me?.payees ?? [];
  const payee = h('select', { testid: 'transfer-payee', required: true });
  for (const p of payees) payee.append(h('option', { value: p.accountId }, p.label));
  const currency = walletMoney(app)?.currency;
  const decimals = currency?.decimals ?? 6;
  const amount = h('input', { testid: 'transfer-amount', inputmode: 'decimal', value: '5', required: true });
  const submit = h('button', { type: 'submit', class: 'primary', testid: 'transfer-submit', disabled: payees.length === 0 }, 'Send');
  const result = h('div', { testid: 'transfer-result', class: 'result', 'aria-live': 'polite' });
  const amountField = field(`Amount (${currency?.code ?? 'USDC'})`, amount, `Wallet balance: ${formatMoney(walletMoney(app))}`);
  const hint = amountField.querySelector('.hint');
  const paint = () => {
    if (hint) hint.textContent = `Wallet balance: ${formatMoney(walletMoney(app))}`;
  };
  paint();
  const form = h('form', { class: 'stack' }, field('To', payee), amountField, h('div', { class: 'row end' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    s.clear();
    result.textContent = '';
    const units = toUnits(amount.value, decimals);
    if (units === null) return s.error(`Enter a positive amount with at most ${decimals} decimals.`);
    void busy(submit, 'Sending…', async () => {
      try {
        const quote = await wallet.createQuote({ sourceAccountId: app.accountId, destinationAccountId: payee.value, amount: units, description: 'Embedded wallet demo transfer' });
        result.textContent = `Quote ${shortId(quote.id)} (${quote.status}); signing…`;
        const done = await wallet.executeQuote(quote, { idempotencyKey: crypto.randomUUID() });
        await app.loadMe();
        result.textContent = `Sent ${amount.value} ${currency?.code ?? ''}: quote ${shortId(done.id)} is ${done.status}. Balance now ${formatMoney(walletMoney(app))}.`;
      } catch (e) {
        result.textContent = '';
        app.fail(s, e);
      }
    });
  });
  body.append(form, result);
  return { el, dispose: app.onMe(paint) };
}
