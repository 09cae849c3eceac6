/** Sandbox only: add test money to the wallet (the sandbox's funding tool, through the proxy). */
import { serviceCall } from '../../api.js';
import type { App } from '../../app.js';
import { busy, field, h } from '../../dom.js';
import { formatMoney, toUnits, type Money } from '../../format.js';
import { frame, type Section } from './section.js';

export function walletMoney(app: App): Money | undefined {
  return app.me?.accounts.find((a) => a.id === app.me?.walletAccountId)?.balance as Money | undefined;
}

export function fundSection(app: App): Section | null {
  if (!app.me?.sandbox) return null;
  const { el, body, s } = frame('fund', 'Fund the wallet (sandbox)', 'Test money from the sandbox, so there is something to send. Not a signed action.');
  const decimals = walletMoney(app)?.currency.decimals ?? 6;
  const amount = h('input', { testid: 'fund-amount', inputmode: 'decimal', value: '25', required: true });
  const submit = h('button', { type: 'submit', testid: 'fund-submit' }, 'Add funds');
  const balance = h('p', { testid: 'fund-balance', class: 'small' }, `Balance: ${formatMoney(walletMoney(app))}`);
  const form = h('form', { class: 'inline-form' }, field(`Amount (${walletMoney(app)?.currency.code ?? 'USDC'})`, amount), submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    s.clear();
    const units = toUnits(amount.value, decimals);
    if (units === null) return s.error(`Enter a positive amount with at most ${decimals} decimals.`);
    void busy(submit, 'Funding…', async () => {
      try {
        await serviceCall(app.leg, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(app.accountId)}/fund`, { body: { amount: units } });
        await app.loadMe();
        s.note(`Added ${amount.value} to the wallet.`);
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  body.append(form, balance);
  return { el, dispose: app.onMe(() => (balance.textContent = `Balance: ${formatMoney(walletMoney(app))}`)) };
}
