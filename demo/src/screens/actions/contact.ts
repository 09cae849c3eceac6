/**
 * Change the customer's email or phone: `PATCH /customers/{id}`. When the wallet logs in with a
 * code sent to that contact, the service asks for a signature (202) and changes the contact and the
 * login credential together.
 */
import type { App } from '../../app.js';
import { busy, field, h } from '../../dom.js';
import { frame, type Section } from './section.js';

export function contactSection(app: App): Section {
  const { el, body, s } = frame('contact', 'Change email or phone', 'One at a time. Signed when a login code goes to it.');
  const me = app.me!;
  const kind = h('select', { testid: 'contact-kind' }, h('option', { value: 'email' }, 'Email'), h('option', { value: 'phoneNumber' }, 'Phone'));
  const value = h('input', { testid: 'contact-value', type: 'email', required: true, autocomplete: 'email' });
  const current = h('p', { class: 'small', testid: 'contact-current' });
  const paint = () => {
    const email = app.me?.customer.email ?? '—';
    const phone = app.me?.customer.phoneNumber ?? '—';
    current.textContent = `Now: ${email} · ${phone}`;
  };
  paint();
  kind.addEventListener('change', () => {
    const phone = kind.value === 'phoneNumber';
    value.type = phone ? 'tel' : 'email';
    value.autocomplete = phone ? 'tel' : 'email';
    value.placeholder = phone ? '+14155550123' : 'new@example.com';
  });
  value.placeholder = 'new@example.com';
  const submit = h('button', { type: 'submit', testid: 'contact-submit' }, 'Change');
  const form = h('form', { class: 'inline-form' }, field('What', kind), field('New value', value), submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    s.clear();
    const v = value.value.trim();
    void busy(submit, 'Saving…', async () => {
      try {
        const patch = kind.value === 'phoneNumber' ? { phoneNumber: v } : { email: v };
        await app.wallet!.changeContact(me.customer.id, patch, { accountId: app.accountId });
        await app.loadMe();
        paint();
        s.note(`${kind.value === 'phoneNumber' ? 'Phone' : 'Email'} changed to ${v}; the matching login code now goes there.`);
        value.value = '';
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  body.append(current, form);
  return { el };
}
