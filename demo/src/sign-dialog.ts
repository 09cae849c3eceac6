/**
 * The `onBeforeSign` prompt: shows what is about to be signed (decoded) and waits for the user.
 * Prompts queue one at a time. With "auto-approve" on (remembered in localStorage) every payload is
 * signed at once and still shown in the request log. The automatic session refresh (`automatic`)
 * is approved by policy, never by a dialog: the wallet waits only briefly for it. Ending sessions
 * (a logout, a replaced session) asks no prompt at all. A prompt the wallet gave up on (`signal`
 * aborted: its wait ran out, a logout in any tab) closes.
 */
import { byId, h, replace } from './dom.js';
import type { RequestLog } from './log-panel.js';
import { decodePayload } from './payload.js';

export interface SignInfo {
  payloadToSign: string;
  method: string;
  path: string;
  purpose: string;
  leg: number;
  requestId?: string;
  expiresAt?: string;
  automatic?: boolean;
  signal?: AbortSignal;
}

const AUTO_KEY = 'demo.autoApprove';

export class SignPrompt {
  private queue: Promise<unknown> = Promise.resolve();
  readonly toggle: HTMLElement;
  private readonly checkbox: HTMLInputElement;

  constructor(
    private readonly log: () => RequestLog | undefined,
    private readonly dialog: HTMLDialogElement = byId<HTMLDialogElement>('sign-dialog'),
  ) {
    this.checkbox = h('input', { type: 'checkbox', id: 'auto-approve', testid: 'auto-approve' });
    this.checkbox.checked = localStorage.getItem(AUTO_KEY) === '1';
    this.checkbox.addEventListener('change', () => localStorage.setItem(AUTO_KEY, this.checkbox.checked ? '1' : '0'));
    this.toggle = h('label', { class: 'toggle', for: 'auto-approve' }, this.checkbox, ' Auto-approve signing');
  }

  get autoApprove(): boolean {
    return this.checkbox.checked;
  }

  /** The hook: resolves true to sign, false to refuse (the call then fails with SIGNING_REFUSED). */
  confirm = (info: SignInfo): Promise<boolean> => {
    if (info.automatic === true) {
      this.log()?.signature({ ...info, purpose: `${info.purpose} (automatic)` }, true);
      return Promise.resolve(true);
    }
    const next = this.queue.then(() => this.ask(info));
    this.queue = next.catch(() => undefined);
    return next;
  };

  private async ask(info: SignInfo): Promise<boolean> {
    const approved = this.autoApprove ? true : await this.show(info);
    this.log()?.signature(info, approved);
    return approved;
  }

  private show(info: SignInfo): Promise<boolean> {
    const decoded = decodePayload(info.payloadToSign);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        info.signal?.removeEventListener('abort', onAbort);
        this.dialog.removeEventListener('cancel', onCancel);
        this.dialog.close();
        resolve(ok);
      };
      const onCancel = (event: Event) => {
        event.preventDefault();
        finish(false);
      };
      const onAbort = () => finish(false);
      if (info.signal?.aborted) return resolve(false);
      info.signal?.addEventListener('abort', onAbort, { once: true });
      const approve = h('button', { type: 'button', class: 'primary', testid: 'sign-approve', onclick: () => finish(true) }, 'Sign');
      const decline = h('button', { type: 'button', testid: 'sign-decline', onclick: () => finish(false) }, 'Decline');
      replace(
        this.dialog,
        h('h2', { id: 'sign-title' }, 'Sign this request?'),
        h(
          'dl',
          { class: 'sign-facts' },
          h('dt', {}, 'Action'),
          h('dd', { testid: 'sign-purpose' }, info.purpose),
          h('dt', {}, 'Request'),
          h('dd', {}, `${info.method} ${info.path} (leg ${info.leg})`),
          info.expiresAt ? h('dt', {}, 'Expires') : null,
          info.expiresAt ? h('dd', {}, new Date(info.expiresAt).toLocaleTimeString()) : null,
        ),
        h('p', { class: 'small muted' }, `Your session key signs exactly these bytes (${decoded.kind === 'jwt' ? 'a verification token, decoded' : decoded.kind === 'json' ? 'JSON, pretty-printed here' : 'raw'}):`),
        h('pre', { class: 'payload', testid: 'sign-payload', tabindex: 0 }, decoded.text),
        h('div', { class: 'row end' }, decline, approve),
      );
      this.dialog.addEventListener('cancel', onCancel);
      this.dialog.showModal();
      approve.focus();
    });
  }
}
