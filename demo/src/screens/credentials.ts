/**
 * Credentials of the wallet: the list (the current session's credential marked), delete (signed by
 * a session of *another* credential: the library picks one this browser holds, or says to log in
 * with another), and add an SMS code, an OAuth identity (full-page round trip to the sandbox
 * sign-in page), a passkey, or the email code again. In frame mode each is approved in the signer
 * frame, and the code that activates an SMS or email login is typed there.
 */
import type { App, Screen } from '../app.js';
import { add, busy, field, h, replace, status, type Status } from '../dom.js';
import { formatTime, shortId, TYPE_LABEL } from '../format.js';
import { redirectToSignIn } from '../oauth.js';
import type { AuthMethod } from '../../../src/index.js';
import { showFlash } from './flash.js';
import { otpForm } from './otp-form.js';

function credentialRow(app: App, s: Status, c: AuthMethod, reload: () => Promise<void>): HTMLElement {
  const current = app.wallet!.session(app.accountId)?.credentialId === c.id;
  const held = app.wallet!.sessions().some((x) => x.credentialId === c.id);
  const actions = h('div', { class: 'row' });
  const del = h('button', { type: 'button', class: 'danger', testid: 'cred-delete', 'aria-label': `Delete ${TYPE_LABEL[c.type] ?? c.type} ${c.nickname}` }, 'Delete');
  del.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger', testid: 'cred-delete-confirm' }, 'Yes, delete');
    const no = h('button', { type: 'button', testid: 'cred-delete-cancel' }, 'Keep');
    replace(actions, h('span', { class: 'small' }, 'Delete this credential? Its sessions end too.'), no, yes);
    no.addEventListener('click', () => replace(actions, del));
    yes.addEventListener('click', () =>
      void busy(yes, 'Deleting…', async () => {
        s.clear();
        try {
          await app.wallet!.deleteCredential(c.id, app.accountId);
          s.note(`${TYPE_LABEL[c.type] ?? c.type} ${c.nickname} deleted.`);
          await reload();
        } catch (e) {
          app.fail(s, e);
          replace(actions, del);
        }
      }),
    );
    yes.focus();
  });
  actions.append(del);
  return h(
    'li',
    { class: 'cred', testid: 'cred-row', 'data-type': c.type, 'data-id': c.id },
    h('div', {}, h('b', {}, TYPE_LABEL[c.type] ?? c.type), ' ', h('span', { testid: 'cred-nickname' }, c.nickname), current ? h('span', { class: 'tag', testid: 'cred-current' }, 'current session') : held ? h('span', { class: 'tag' }, 'session here') : null),
    h('div', { class: 'small muted', title: c.id }, `${shortId(c.id)} · added ${formatTime(c.createdAt)}`),
    actions,
  );
}

function addPanel(app: App, s: Status, reload: () => Promise<void>): HTMLElement {
  const wallet = app.wallet!;
  const me = app.me!;
  const area = h('div', { class: 'add-area', testid: 'add-area' });
  /** A button that adds an OTP credential (a signed action), then shows the form that activates it. */
  const addOtp = (kind: 'sms' | 'email', label: string, sentTo: string): HTMLElement => {
    const button = h('button', { type: 'button', testid: `add-${kind}` }, label);
    const what = kind === 'sms' ? 'SMS' : 'Email';
    button.addEventListener('click', () =>
      void busy(button, 'Adding…', async () => {
        s.clear();
        try {
          if (app.frame) {
            // Frame mode: approved in the frame, and the code that activates it is typed there.
            const added = kind === 'sms' ? await app.frame.addSmsOtp({ accountId: app.accountId }) : await app.frame.addEmailOtp({ accountId: app.accountId });
            replace(area, h('p', { testid: `add-${kind}-in-frame` }, `Code sent to ${sentTo}: type it in the wallet window to activate the ${what.toLowerCase()} login.`));
            await added.verify();
            replace(area);
            s.note(`${what} login added and verified.`);
            await reload();
            return;
          }
          const otp = kind === 'sms' ? await wallet.addSmsOtp({ accountId: app.accountId }) : await wallet.addEmailOtp({ accountId: app.accountId });
          replace(area, otpForm(app, s, otp, `Code sent to ${sentTo}: enter it to activate the ${kind === 'sms' ? 'SMS' : 'email'} login.`, async (code) => {
            await otp.verify(code);
            replace(area);
            s.note(`${what} login added and verified.`);
            await reload();
          }, `add-${kind}`));
        } catch (e) {
          app.fail(s, e);
        }
      }),
    );
    return button;
  };
  const addSms = addOtp('sms', `SMS code to ${me.customer.phoneNumber ?? 'your phone'}`, me.customer.phoneNumber ?? 'your phone');
  const addEmail = addOtp('email', 'Email code', me.customer.email ?? 'your email');
  const addOAuth = h('button', { type: 'button', testid: 'add-oauth', disabled: !me.oauth }, 'OAuth (sandbox sign-in page)');
  addOAuth.addEventListener('click', () => {
    try {
      redirectToSignIn(me, 'add');
    } catch (e) {
      app.fail(s, e);
    }
  });
  const nickname = h('input', { testid: 'passkey-nickname', value: 'This device', maxlength: 100, required: true });
  const addPasskey = h('button', { type: 'submit', testid: 'add-passkey' }, 'Create passkey');
  const passkeyForm = h('form', { class: 'inline-form' }, field('Passkey name', nickname), addPasskey);
  passkeyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(addPasskey, 'Waiting for the passkey…', async () => {
      s.clear();
      try {
        const method = await wallet.registerPasskey({ accountId: app.accountId, nickname: nickname.value.trim() });
        s.note(`Passkey “${method.nickname}” added. You can now log in with it.`);
        await reload();
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'add-title' },
    h('h2', { id: 'add-title' }, 'Add a credential'),
    h('p', { class: 'muted small' }, 'Adding is a signed action: your current session signs it.'),
    h('div', { class: 'row wrap' }, addSms, addOAuth, addEmail),
    passkeyForm,
    area,
  );
}

export const credentialsScreen: Screen = (app: App, container: HTMLElement) => {
  const s = status('cred-status');
  showFlash(app, s);
  const list = h('ul', { class: 'rows', testid: 'cred-list', 'aria-busy': 'true' });
  const reload = async () => {
    try {
      const credentials = await app.wallet!.listCredentials(app.accountId);
      replace(list, ...credentials.map((c) => credentialRow(app, s, c, reload)));
      // The passkey code, and the wallet's passkeys (excludeCredentials) taken from the list just read
      // (no second GET), ready before the click so the ceremony starts inside it (Safari ties
      // navigator.credentials.create to the user's click); again after every change to the list.
      void app.wallet!.preparePasskeyRegistration({ accountId: app.accountId, credentials }).catch(() => undefined);
    } catch (e) {
      app.fail(s, e);
    } finally {
      list.removeAttribute('aria-busy');
    }
  };
  void reload();
  add(
    container,
    h('h1', {}, 'Credentials'),
    s.el,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'creds-title' },
      h('h2', { id: 'creds-title' }, 'Ways into this wallet'),
      h('p', { class: 'muted small' }, 'A credential is deleted with a session of a different credential: log in with another one first (Log in → another method).'),
      list,
    ),
    addPanel(app, s, reload),
  );
};
