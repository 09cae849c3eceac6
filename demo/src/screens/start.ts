/**
 * Start: create a demo customer (the demo backend creates it on the service with the platform
 * credentials and binds it to this browser), or continue as one created earlier (another browser
 * or device of the same person).
 */
import { demoApi } from '../api.js';
import type { App, Screen } from '../app.js';
import { add, busy, field, h, status } from '../dom.js';
import { showFlash } from './flash.js';

function input(testid: string, attrs: Record<string, string>): HTMLInputElement {
  return h('input', { testid, required: true, ...attrs });
}

function suggestion(): { email: string; phone: string } {
  const n = Math.floor(Math.random() * 1e7).toString().padStart(7, '0');
  return { email: `ada.${n.slice(0, 4)}@example.com`, phone: `+1415${n}` };
}

export const startScreen: Screen = (app: App, container: HTMLElement) => {
  const s = status('start-status');
  showFlash(app, s);
  const sample = suggestion();
  const fullName = input('signup-name', { autocomplete: 'name', value: 'Ada Lovelace' });
  const email = input('signup-email', { type: 'email', autocomplete: 'email', value: sample.email });
  const phone = input('signup-phone', { type: 'tel', autocomplete: 'tel', value: sample.phone, pattern: '\\+[0-9]{7,15}' });
  const create = h('button', { type: 'submit', class: 'primary', testid: 'signup-submit' }, 'Create demo customer');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'signup-title' },
    h('h2', { id: 'signup-title' }, 'New demo customer'),
    h('p', { class: 'muted' }, 'The demo backend creates a customer on the service with its platform credentials (never sent to this page). The customer gets an embedded wallet with an email-code login.'),
    field('Full name', fullName),
    field('Email', email, 'Your email-code login goes here.'),
    field('Phone (E.164)', phone, 'For the SMS-code login you can add later, e.g. +14155550123.'),
    s.el,
    h('div', { class: 'row end' }, create),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    s.clear();
    void busy(create, 'Creating…', async () => {
      try {
        app.setMe(await demoApi.signup({ fullName: fullName.value, email: email.value, phoneNumber: phone.value }));
        app.go('login');
      } catch (e) {
        app.fail(s, e);
      }
    });
  });

  const s2 = status('signin-status');
  const existing = input('signin-email', { type: 'email', autocomplete: 'email' });
  const cont = h('button', { type: 'submit', testid: 'signin-submit' }, 'Continue');
  const signin = h(
    'form',
    { class: 'card', 'aria-labelledby': 'signin-title' },
    h('h2', { id: 'signin-title' }, 'Already created one?'),
    h('p', { class: 'muted' }, 'Another browser or device of the same person: continue as the demo customer with this email, then log in to its wallet.'),
    field('Email', existing),
    s2.el,
    h('div', { class: 'row end' }, cont),
  );
  signin.addEventListener('submit', (event) => {
    event.preventDefault();
    s2.clear();
    void busy(cont, 'Looking…', async () => {
      try {
        app.setMe(await demoApi.signin(existing.value));
        // The customer's wallet loads now: it finishes what a logout left to end (e.g. an end the
        // proxy refused while the demo sign-in had expired: the wallet's 'end-refused').
        await app.wallet?.restore().catch(() => undefined);
        app.go('login');
      } catch (e) {
        app.fail(s2, e);
      }
    });
  });

  const me = app.me;
  const current = me
    ? h(
        'div',
        { class: 'card current', testid: 'current-customer' },
        h('p', {}, 'This browser acts for ', h('b', {}, String(me.customer.fullName ?? me.customer.email ?? me.customer.id)), ` (${me.customer.email ?? 'no email'}).`),
        h(
          'div',
          { class: 'row' },
          h('a', { href: '#/login', class: 'button primary', testid: 'goto-login' }, 'Go to wallet login'),
          h('button', {
            type: 'button',
            testid: 'demo-logout',
            onclick: async () => {
              await app.wallet?.logout().catch(() => undefined);
              await demoApi.logout();
              app.setMe(null);
              app.go('start');
            },
          }, 'Forget this customer'),
        ),
      )
    : null;

  add(container, h('h1', {}, 'Embedded wallet demo'), h('p', { class: 'lead' }, 'Keys live in this browser as non-extractable P-256 keys; every wallet action is signed here and sent through the demo’s proxy.'), current, form, signin);
  if (!me) fullName.focus();
};
