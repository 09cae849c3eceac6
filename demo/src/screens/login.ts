/**
 * Log in to the wallet: email code, SMS code, OAuth (the sandbox's test sign-in page, full-page
 * redirect) or passkey; in frame mode as well (the code is typed in the signer frame, the passkey
 * ceremony and the OAuth login's key are the frame's). The passkey challenge is fetched when the passkey tab opens
 * (`preparePasskeyLogin`, see passkey-prep.ts), so the WebAuthn ceremony starts right inside the
 * login click; not before, so a login by code asks the service for the credentials once.
 */
import type { App, Screen } from '../app.js';
import { add, busy, h, replace, status, type Status } from '../dom.js';
import { TYPE_LABEL } from '../format.js';
import { redirectToSignIn } from '../oauth.js';
import { showFlash } from './flash.js';
import { otpForm } from './otp-form.js';
import { passkeyPrep, type PasskeyPrep } from './passkey-prep.js';

type Tab = 'email' | 'sms' | 'oauth' | 'passkey';
const TABS: { id: Tab; label: string }[] = [
  { id: 'email', label: 'Email code' },
  { id: 'sms', label: 'SMS code' },
  { id: 'oauth', label: 'OAuth' },
  { id: 'passkey', label: 'Passkey' },
];

async function loggedIn(app: App, task: () => Promise<unknown>): Promise<void> {
  app.loggingIn = true;
  try {
    await task();
    app.go('home');
  } finally {
    app.loggingIn = false;
  }
}

function otpPanel(app: App, s: Status, type: 'EMAIL_OTP' | 'SMS_OTP'): HTMLElement {
  const me = app.me!;
  const where = type === 'EMAIL_OTP' ? (me.customer.email ?? 'your email') : (me.customer.phoneNumber ?? 'your phone');
  const prefix = type === 'EMAIL_OTP' ? 'login-email' : 'login-sms';
  const panel = h('div', { class: 'panel' });
  const send = h('button', { type: 'button', class: 'primary', testid: `${prefix}-send` }, `Send a code to ${where}`);
  send.addEventListener('click', () => {
    s.clear();
    void busy(send, 'Sending…', async () => {
      try {
        if (app.frame) {
          // Frame mode: the code is typed in the signer frame, never in this page.
          const login = await app.frame.startOtpLogin({ accountId: app.accountId, type });
          replace(panel, h('p', { testid: 'login-in-frame' }, `Code sent to ${where}: type it in the wallet window.`));
          await loggedIn(app, () => login.verify());
          return;
        }
        const otp = await app.wallet!.startOtpLogin({ accountId: app.accountId, type });
        replace(panel, otpForm(app, s, otp, `Code sent to ${where}.`, (code) => loggedIn(app, () => otp.verify(code))));
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  panel.append(h('p', { class: 'muted' }, type === 'SMS_OTP' ? 'Works once an SMS-code credential was added to this wallet (Credentials).' : 'Every new wallet has this one.'), send);
  return panel;
}

function oauthPanel(app: App, s: Status): HTMLElement {
  const me = app.me!;
  if (!me.oauth) return h('div', { class: 'panel' }, h('p', { class: 'muted' }, 'OAuth needs an identity provider: the local sandbox has a test one; with a real service, wire your own.'));
  const go = h('button', { type: 'button', class: 'primary', testid: 'login-oauth' }, 'Continue with the sandbox sign-in page');
  go.addEventListener('click', () => {
    s.clear();
    void busy(go, 'Preparing…', async () => {
      try {
        const prepared = await app.wallet!.prepareOAuth({ accountId: app.accountId });
        redirectToSignIn(me, 'login', prepared.nonce);
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  return h('div', { class: 'panel' }, h('p', { class: 'muted' }, 'Leaves for a test identity provider and comes back with an ID token bound to a fresh session key (its nonce). Add OAuth to the wallet first (Credentials).'), go);
}

function passkeyPanel(app: App, s: Status, prep: PasskeyPrep, note: HTMLElement, legacy: HTMLElement | null): HTMLElement {
  const go = h('button', { type: 'button', class: 'primary', testid: 'login-passkey' }, 'Log in with a passkey');
  go.addEventListener('click', () => {
    s.clear();
    void busy(go, 'Waiting for the passkey…', async () => {
      try {
        const ready = await prep.take();
        await loggedIn(app, () => ready.login());
      } catch (e) {
        // The challenge was used (or never came): get the next one ready.
        prep.prepare();
        app.fail(s, e);
      }
    });
  });
  return h('div', { class: 'panel' }, note, go, legacy);
}

export const loginScreen: Screen = (app: App, container: HTMLElement) => {
  const s = status('login-status');
  const me = app.me!;
  const wallet = app.wallet!;
  const accountId = app.accountId;

  // The passkey challenge, fetched when the passkey tab opens (not in the click: iOS wants the
  // ceremony in the gesture). The deprecated sealed-key flow (uncompressed clientPublicKey) lives in
  // its own entry, loaded only when asked for.
  const passkeyNote = h('p', { class: 'muted', testid: 'passkey-state' });
  const legacy = h('input', { type: 'checkbox', id: 'login-legacy', testid: 'login-legacy' });
  const prep = passkeyPrep(wallet, accountId, () => legacy.checked, (text) => (passkeyNote.textContent = text));
  legacy.addEventListener('change', () => prep.prepare());
  // The legacy entry works on the in-origin wallet only (frame mode: the ceremony runs in the frame).
  const legacyField = app.frame ? null : h('label', { class: 'toggle small', for: 'login-legacy' }, legacy, ' Use the deprecated sealed-key flow (legacy entry)');

  const body = h('div', { class: 'tab-body' });
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Login method' });
  const select = (tab: Tab) => {
    for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.tab === tab));
    s.clear();
    if (tab === 'passkey') prep.prepare();
    const panel = tab === 'email' ? otpPanel(app, s, 'EMAIL_OTP') : tab === 'sms' ? otpPanel(app, s, 'SMS_OTP') : tab === 'oauth' ? oauthPanel(app, s) : passkeyPanel(app, s, prep, passkeyNote, legacyField);
    replace(body, panel);
  };
  for (const t of TABS) {
    tabs.append(h('button', { type: 'button', 'data-tab': t.id, testid: `login-tab-${t.id}`, onclick: () => select(t.id) }, t.label));
  }
  select('email');
  // After the first tab is shown (switching tabs clears the status line).
  showFlash(app, s);

  const current = wallet.session(accountId);
  add(
    container,
    h('h1', {}, 'Log in to your wallet'),
    h('p', { class: 'lead' }, `${String(me.customer.fullName ?? '')} · ${me.customer.email ?? ''}`.replace(/^ · /, '')),
    current ? h('p', { class: 'note-box', testid: 'login-already' }, `You are already logged in here (${TYPE_LABEL[current.credentialType] ?? current.credentialType}). Logging in with another credential adds a second session, which deleting a credential needs.`) : null,
    me.sandbox ? h('p', { class: 'hint-box', testid: 'sandbox-hint' }, 'Sandbox: every login code is 000000.') : null,
    h('div', { class: 'card' }, tabs, body, s.el),
  );
};
