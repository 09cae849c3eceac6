/** The code step of an OTP login or of adding an SMS credential: code, verify, resend. */
import type { App } from '../app.js';
import { busy, field, h, type Status } from '../dom.js';

interface OtpLike {
  resend(): Promise<void>;
}

export function otpForm(app: App, s: Status, otp: OtpLike, sent: string, verify: (code: string) => Promise<unknown>, prefix = 'otp'): HTMLElement {
  const code = h('input', {
    testid: `${prefix}-code`,
    inputmode: 'text',
    autocomplete: 'one-time-code',
    required: true,
    minlength: 4,
    maxlength: 12,
    pattern: '[A-Za-z0-9]{4,12}',
    spellcheck: 'false',
  });
  const submit = h('button', { type: 'submit', class: 'primary', testid: `${prefix}-verify` }, 'Verify');
  const resend = h('button', { type: 'button', testid: `${prefix}-resend` }, 'Send a new code');
  const form = h('form', { class: 'otp-form' }, h('p', { testid: `${prefix}-sent` }, sent), field('Code', code, 'Codes may be 4–12 letters or digits.'), h('div', { class: 'row' }, resend, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    s.clear();
    void busy(submit, 'Verifying…', async () => {
      try {
        await verify(code.value.trim());
      } catch (e) {
        app.fail(s, e);
        code.select();
        code.focus();
      }
    });
  });
  resend.addEventListener('click', () => {
    s.clear();
    void busy(resend, 'Sending…', async () => {
      try {
        await otp.resend();
        s.note('A new code was sent; the previous one no longer works.');
        code.value = '';
        code.focus();
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  queueMicrotask(() => code.focus());
  return form;
}
